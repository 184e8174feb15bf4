// Package update is the EmptySectorUpdate (SnapDeals) partition circuit of
// rust-fil-proofs (storage-proofs-update circuit.rs EmptySectorUpdateCircuit
// with the gadgets of gadgets.rs) built from this project's gadgets so that
// it yields the same R1CS row by row and variable by variable: Filecoin's
// .params index their l, a and b queries by aux variable, so the order of
// every allocation is part of the circuit.
//
// Once per partition, in this order:
//
//	k_and_h_select (aux, inputized); its log2(partitions) + 6 low bits
//	allocated, one decomposition row; the partition bits packed into k;
//	comm_r_old, comm_d_new, comm_r_new (each aux, then inputized);
//	phi = Poseidon₂ with the custom tag 2^40 of (comm_d_new, comm_r_old);
//	comm_c, root_r_old, root_r_new, the apex leaves and the siblings of
//	tree D above the apex tree (aux);
//	Poseidon₂(comm_c, root_r_old) · ONE = comm_r_old, the same for root_r_new;
//	the apex tree over the apex leaves (SHA-254), its root's path to
//	comm_d_new along the partition bits;
//	the challenge digests: per digest index k·d + j (one row), the custom
//	Poseidon of (comm_r_new, index), its 255 bits and a decomposition row.
//
// Per challenge (the challenge's bits are its share of a digest's bits
// followed by the partition bits):
//
//	the top h bits for each of the six allowed h, each packed and multiplied
//	by its h_select bit, their sum; rho = the custom Poseidon of (phi, sum);
//	leaf_r_old, leaf_d_new (aux); leaf_r_new = leaf_r_old + leaf_d_new·rho;
//	the tree R_old siblings, the PoR of leaf_r_old to root_r_old;
//	the tree R_new siblings, the PoR of leaf_r_new to root_r_new;
//	the apex leaf selected by the challenge's apex bits;
//	the tree D siblings below the apex leaves, the PoR of leaf_d_new to it.
//
// The order is R_old, R_new, then D. The circuit derives its challenges
// from comm_r_new and k; the vanilla proof's path indices, its leaf of tree
// R_new and its tree D siblings inside the apex tree are not used.
//
// A Partition carries plain values; BlankConfig gives the shape with zero
// values (counting and parameter setup). The package knows nothing of
// Groth16, parameters or devices.
package update
