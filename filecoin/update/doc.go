// Package update owns SnapDeals' EmptySectorUpdate proof on the native side:
// the registered update proofs and what each fixes (partitions, challenges,
// apex leaves, h), the vanilla PartitionProof exactly as
// rust-filecoin-proofs-api bincode-encodes it, the randomness phi and rho,
// the challenges, vanilla verification of one partition and its public
// inputs, and go-state-types' ReplicaUpdateInfo.
//
// A SnapDeals update re-encodes a committed-capacity replica R_old with new
// data D into R_new, node by node, as
//
//	R_new[i] = R_old[i] + D[i]·rho(i >> (log2(nodes) − h)),
//	rho(high) = Poseidon₂ᶜ(phi, high),  phi = Poseidon₂ᶜ(comm_d_new, comm_r_old),
//
// where Poseidon₂ᶜ is the arity-2 Poseidon with the custom domain tag 2^40
// and all arithmetic is in the BLS12-381 scalar field. comm_r_old and
// comm_r_new are Poseidon₂(comm_c, root) over the old and new replica trees
// (sharing the old sector's comm_c) and comm_d_new is the root of the binary
// SHA-254 tree over D. A proof has one partition per chunk of the sector;
// partition k opens its challenged nodes in the three trees, and its apex
// leaves (the tree D nodes at the top of its chunk) tie its tree D openings
// to comm_d_new.
//
// The package knows nothing of circuits (circuits/update reads these types)
// nor of requests beyond the comms' encodings.
package update
