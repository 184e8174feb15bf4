// Package porep is the StackedDRG PoRep partition circuit of rust-fil-proofs
// (storage-proofs-porep stacked/circuit: proof.rs StackedCircuit, params.rs
// Proof) built from this project's gadgets so that it yields the same R1CS row
// by row and variable by variable: Filecoin's .params index their l, a and b
// queries by aux variable, so the order of every allocation is part of the
// circuit.
//
// Once per partition (StackedCircuit::synthesize):
//
//	replica_id (aux, inputized, then its 256-bit decomposition, shared by every label);
//	comm_d, comm_r (aux, inputized); comm_r_last, comm_c (aux);
//	Poseidon₂(comm_c, comm_r_last) · ONE = comm_r.
//
// Per challenge (params.rs Proof::synthesize):
//
//	data_leaf; its inclusion in comm_d (SHA-254 binary tree, path bits packed into one input);
//	6 DRG then 8 expander parent columns: rows, Poseidon-L column hash, inclusion in comm_c;
//	the challenge as 64 allocated bits packed into one input;
//	for layer 1..L the label: parents re-decomposed in every layer (6 DRG rows at
//	layer 1; 6 DRG rows at the layer and 8 expander rows at layer − 1 above it),
//	expanded to 37 and hashed with the replica id, layer and challenge;
//	encoded node = last label + data_leaf, its inclusion in comm_r_last;
//	the Poseidon-L hash of the computed labels, its inclusion in comm_c.
//
// A Partition carries plain values: NewPartition reads them from a C1 output,
// Blank gives the shape with zero values (synthesis never fails on values that
// do not satisfy the constraints, so counting and setup use it).
// PublicInputs derives a partition's public inputs from the request and the
// SDR graph, never from the prover's copy of the vanilla proof.
//
// Witness and WitnessInto compute a partition's witness only (inputs and
// aux, no constraints): the challenges have equal, independent shapes, so
// they are synthesized concurrently into fixed windows of the vectors,
// bit for bit the sequential witness.
//
// The package knows nothing of Groth16, parameters or devices.
package porep
