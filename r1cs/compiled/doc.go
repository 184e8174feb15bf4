// Package compiled owns the pre-compiled constraint system of a circuit
// shape: the matrices A, B and C recorded once from a synthesis, with the
// densities bellperson's prover derives from them, so that a proof needs
// only the witness (inputs and aux) and a = A·w, b = B·w, c = C·w.
//
// It records (Compile), evaluates (System.Eval), encodes (Write, Read,
// Open; a canonical little-endian layout with a sha256 digest), caches on
// disk (Cache) and compresses witnesses whose values are mostly 0 or 1
// (Compress, Compact.Expand; CountCompact and Compaction.Fill into arrays
// the caller owns).
//
// Conventions are those of r1cs.ProvingAssignment, which the package must
// reproduce bit for bit: rows in Enforce order, bellperson's input rows
// (r1cs.Finalize) last; column i is input i and column NumInputs+j is
// aux j; densities A over aux, B over inputs and aux.
//
// The package knows nothing of Groth16, parameters, devices or circuits:
// it sees a circuit only through r1cs.Circuit.
package compiled
