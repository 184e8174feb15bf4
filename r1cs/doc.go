// Package r1cs owns rank-1 constraint systems with bellperson's semantics:
// variables (input or aux), linear combinations, the ConstraintSystem a
// circuit talks to, and its implementations:
//
//   - ProvingAssignment evaluates a, b and c for every constraint at Enforce
//     time and tracks the densities bellperson's prover tracks;
//   - WitnessAssignment records only the input and aux values;
//   - Counter counts constraints, variables, non-zeros and density popcounts
//     without storing values or constraints.
//
// Conventions (bellperson's, and therefore the Filecoin parameters'):
// input 0 is the constant ONE; inputs are numbered in AllocInput order; after
// a circuit is synthesized one constraint input_i · 0 = 0 (A = input_i,
// B = C = 0) is appended per input (see Finalize).
//
// The package knows nothing of Groth16, parameters or devices, beyond the
// size of the prover's evaluation domain (DomainSize), which sizes a, b
// and c.
package r1cs
