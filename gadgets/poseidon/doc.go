// Package poseidon is the Poseidon hash circuit exactly as neptune's legacy
// circuit (argumentcomputer/neptune src/circuit.rs poseidon_hash), the one
// Filecoin's parameters were generated with. It runs the OptimizedStatic
// permutation of hash/poseidon (its native twin) over allocated numbers:
//
//   - the first full round adds the first Width constants inside the S-box
//     constraints ((x + k)² is one constraint); element 0, the domain tag,
//     is a constant, so its first S-box is computed outside the circuit;
//   - every other S-box costs 3 constraints (x², x⁴, x⁵ plus the following
//     round constant), and first allocates its input with one constraint
//     (lc · ONE = x) when the input is still a linear combination;
//   - MDS, pre-sparse and sparse products produce linear combinations, not
//     variables; they are allocated only when an S-box or the output needs
//     them.
//
// Constraints per hash: 3·(t·RF + RP − 1) + (t·RF + RP − arity), i.e.
// 311/377/505/598 for arity 2/4/8/11.
//
// Speed: the rows' coefficients depend only on the constants, so the first
// hash of an arity and tag records its rows with variables written as slots
// (preimage i, k-th allocation) and every later hash computes only its
// values and binds the recorded rows to its variables; a test checks the
// bound rows equal the direct synthesis term for term. A system that
// ignores constraints gets empty rows; an r1cs.AuxBatcher (the
// r1cs.WitnessAssignment) gets the permutation run on plain field elements,
// its values written into one run of aux variables in the order the
// circuit allocates them (tested bit for bit against the generic gadget).
//
// The package depends on r1cs, gadgets/num and hash/poseidon only.
package poseidon
