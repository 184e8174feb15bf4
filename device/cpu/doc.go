// Package cpu is the embedded groth16.Device: it computes a proof's MSM
// sums on the CPU with gnark-crypto.
//
// H follows bellperson exactly (src/domain.rs, and execute_fft in
// src/groth16/prover/native.rs): m is the
// smallest power of two ≥ the number of rows, ω is gnark's (= blstrs')
// 2^log m-th root of unity, the coset shift is 7, and the m − 1 scalars of
// the H MSM are H's coefficients in natural order. gnark's DIF transforms
// leave their output bit-reversed and its DIT transforms expect bit-reversed
// input, so the chain is iFFT(DIF) → coset FFT(DIT) → pointwise → coset
// iFFT(DIF) → bit reversal.
//
// The L, A and B queries are walked in step with bellperson's densities
// (a base is consumed only where the density bit is set: L is dense, A
// takes the inputs and the A-dense aux, B the B-dense inputs and aux).
// Each MSM is split by scalar value (device/internal/split, shared with the
// CUDA device): zeros are skipped, ones (a bitmap over the bases) are
// summed by batched affine additions, and only the remaining scalars go to
// a Pippenger MSM (gnark-crypto's MultiExp) over compacted bases.
//
// Memory. gnark's MultiExp wants its bases next to each other, so the
// bases of the remaining scalars (about a quarter of L, A and B on a PoRep
// witness) are copied. Prepare copies a tail of up to 2^22 bases (2^21 in
// G2: 384 MiB either way); a longer tail is gathered and multiplied one
// chunk at a time in Run and Finish through one pooled buffer. At a 32 GiB
// PoRep partition (130 M aux, a quarter outside {0, 1}: about 2^25 tail
// bases for L and for A) that keeps the copies at 384 MiB per query in
// flight instead of about 9 GiB per proof (3 GiB each for L and A, 0.8 GiB
// for B_G1, 1.6 GiB for B_G2). The price is one bucket reduction per chunk:
// about 1.5 % more additions at 2^22-point chunks by gnark's cost model
// (BenchmarkChunkedTail measures an upper bound; docs/gpu-notes.md has the
// numbers). For the same reason no MultiExp call takes
// more than 2^24 points: MultiExp allocates 34 bytes of digits per point,
// 4.3 GiB for H at 2^27 points (≈ 0.4 % more additions). The split's tail
// buffers are sized by a counting pass, not for every scalar.
// Scattered index lists fed straight to a Pippenger MSM would avoid the
// copy altogether but need an MSM of our own. Run and Finish check their
// context between MultiExp calls.
//
// The work is split as the groth16.Device interface asks: Prepare splits
// scalars and compacts bases, Run computes H and the G1 MSMs, Finish the
// B_G2 MSM. H is transformed in place in a, b and c when they have room for
// the domain, in pooled vectors otherwise. Every step uses all of
// GOMAXPROCS, the caller's goroutine among them, and the caller alone for
// work too small to share (a new goroutine can wait tens of milliseconds
// for a core while the engine's other stages run). Scratch vectors are
// pooled and reused between proofs, and a Device is safe for concurrent
// use.
//
// The package knows nothing of engines, circuits or files.
package cpu
