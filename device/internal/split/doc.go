// Package split sorts the scalars of one multi-scalar multiplication by
// value, as every device does before its MSMs: a zero drops its base, a
// one costs only an addition of its base, and the rest (the tail) go to a
// Pippenger MSM with their base indices. A witness is mostly bits (on a
// PoRep partition about three quarters of the L, A and B scalars are 0 or
// 1), so the tail is about a quarter of the query.
//
// The result is a bitmap of the ones over the query's bases (bit b of word
// b/32: the layout the CUDA library takes) and the tail's scalars and base
// indices in base order. Base b is the b-th selected scalar: the scalars
// of a query are spans of the assignment, each taken whole or filtered by
// a density bitmap (a base exists only where the density bit is set).
//
// Count and Fill walk the spans in parallel pieces: Count counts what each
// piece selects and how much of it goes to the tail, so that each piece
// knows its offsets and Fill writes its part without locks (pieces share
// at most their first and last bitmap words, which are zeroed first and
// ORed atomically; Fill stores every other word, so the caller's bitmap
// need not be cleared). The walk classifies without branches: the witness
// mixes zeros, ones and other values at random, so branches would
// mispredict. A prover's L, A and B_G1 queries all read the assignment's
// aux: CountEach and FillEach split them together, each piece of a value
// slice walked once for every query with a span over it, so each value is
// read and classified once, not three times (about 1.5× faster than the
// three walks apart, BenchmarkSplitEach).
//
// A device's steps run while the prover's other stages (synthesis, the
// other worker's MSMs) keep every core busy, and there a new goroutine can
// wait in the run queue for a round of time slices (tens to hundreds of
// milliseconds) before it runs. Parallel and Start therefore never wait
// for a goroutine to be scheduled: the caller works through the pieces
// too and waits only for pieces under way, and a walk of fewer than two
// pieces' worth of scalars starts no goroutine at all.
//
// The package is internal to device/: it is how device/cpu and
// device/cuda prepare their queries, not part of any API, and it knows
// nothing of parameters, curves or devices.
package split
