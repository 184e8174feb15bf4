// Package cpu is the embedded groth16.Device: it computes a proof's MSM
// sums on the CPU with gnark-crypto.
//
// H follows bellperson exactly (filecoin-proofs.md §5.3–5.4): m is the
// smallest power of two ≥ the number of rows, ω is gnark's (= blstrs')
// 2^log m-th root of unity, the coset shift is 7, and the m − 1 scalars of
// the H MSM are H's coefficients in natural order. gnark's DIF transforms
// leave their output bit-reversed and its DIT transforms expect bit-reversed
// input, so the chain is iFFT(DIF) → coset FFT(DIT) → pointwise → coset
// iFFT(DIF) → bit reversal.
//
// The L, A and B queries are walked in step with bellperson's densities
// (§5.5): a base is consumed only where the density bit is set. Each MSM is
// split by scalar value: zeros are skipped, ones are summed by plain point
// additions, and only the remaining scalars go to a Pippenger MSM
// (gnark-crypto's MultiExp) over compacted bases.
//
// The work is split as the groth16.Device interface asks: Prepare splits
// scalars and compacts bases, Run computes H and the G1 MSMs, Finish the
// B_G2 MSM. Every step uses all of GOMAXPROCS, scratch vectors are pooled
// and reused between proofs, and a Device is safe for concurrent use.
//
// The package knows nothing of engines, circuits or files.
package cpu
