// Package synthetic is a deterministic family of satisfiable R1CS circuits
// for tests and benchmarks.
//
// A Config fixes the total number of rows after r1cs.Synthesize (circuit
// constraints plus one input constraint per input, ONE included), so that a
// power-of-two Constraints gives an FFT domain of exactly that size; the
// number of public inputs; the fraction of aux values in {0, 1}; the A-aux
// and B-aux densities; and a seed. Every decision is a pure function of the
// seed and a variable's index, so two syntheses of one Config produce
// identical assignments, and Shape can predict every count exactly without
// touching a field element.
//
// Circuit constraint j allocates aux variable x_j and enforces
//
//	(x_j? + c·x_k? + input?) · (ONE + x_j? + x_k'?) = x_j + κ·ONE
//
// where the optional terms appear according to x_j's (and earlier
// variables') A/B membership and κ is chosen so the row holds. ONE is always
// in B, so the B-input density is exactly {ONE}, as in a Filecoin PoRep
// partition. Default gives a PoRep-like shape: 75 % of aux values in {0, 1},
// A-aux density 99.7 %, B-aux density 25 %.
//
// The package knows nothing of Groth16, parameters or devices.
package synthetic
