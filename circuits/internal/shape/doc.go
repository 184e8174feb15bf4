// Package shape computes the size (r1cs.Shape) of a partition circuit
// without synthesizing all of it, the way circuits/porep, circuits/post and
// circuits/update do: a partition is its own part plus n equal units
// (challenges, circuit sectors, apex hashes), so counting the part and one
// unit and multiplying gives the whole, and the result is cached per
// configuration.
//
// It knows r1cs counting, not circuits: each circuit's package says what a
// unit is and synthesizes it.
package shape
