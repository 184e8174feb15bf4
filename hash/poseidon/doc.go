// Package poseidon is the Poseidon hash over BLS12-381 Fr exactly as
// neptune (argumentcomputer/neptune) defines it for Filecoin: Strength
// Standard, S-box x^5, width t = arity + 1, RF = 8 full rounds and RP partial
// rounds (55/56/57/57 for arity 2/4/8/11), round constants from the Grain
// LFSR, a Cauchy MDS matrix M[i][j] = 1/(i + t + j), and the state
// [domain tag, in_1 … in_arity] whose element 1 is the digest.
//
// Two permutations are provided and must agree:
//
//   - HashReference is the plain definition (neptune's hash_correct): every
//     round adds t constants, applies the S-box (to all elements in a full
//     round, to element 0 in a partial round) and multiplies by M;
//   - Hash is neptune's OptimizedStatic mode, the one Filecoin runs and the
//     one the circuit (gadgets/poseidon) mirrors: round constants compressed
//     through M⁻¹ so that one constant follows each S-box, and the partial
//     rounds' M factored into a dense pre-sparse matrix followed by RP sparse
//     matrices (first row and column dense, identity elsewhere).
//
// Constants are generated once per arity on first use and cached; a
// Constants value is a cached Params plus a domain tag (2^arity − 1 for
// Merkle trees, id·2^40 for custom hashes such as SnapDeals').
//
// The package knows nothing of trees or circuits.
package poseidon
