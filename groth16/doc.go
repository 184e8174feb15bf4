// Package groth16 owns Groth16 over BLS12-381 in bellperson's conventions:
// parameters (the `.params`/`.vk` layout), proof encoding (192 bytes), a
// deterministic dev setup, the split prover and verification.
//
// The prover is split so an engine can lock only the device's kernel region:
// Synthesize (CPU) produces an Assignment; a Device runs Prepare (CPU),
// Run (device) and Finish (CPU) to produce the MSM sums; Assemble applies the
// randomization r, s and yields the Proof. The Device interface is declared
// here, where it is consumed; device packages implement it and this package
// never imports them. Everything else a caller reads of a device is one
// value, its Profile (profile.go): its name, the host memory it holds for a
// partition, whether it evaluates witness-only assignments itself, the
// buffers it keeps with a share of the memory budget, Discard, and what it
// reports of each Prepare and Run; a wrapper that embeds a Device passes it
// on whole, and an ability a device lacks is a zero field.
//
// # Files
//
// A `.params` file (ReadParams, WriteParams) is bellperson's
// Parameters::write: no header; α₁, β₁, β₂, γ₂, δ₁, δ₂; then the vectors
// ic, h, l, a, b_g1, b_g2, each a u32 big-endian count and uncompressed
// points (G1 96 bytes, G2 192 bytes with c1 first). The `.vk` file
// (ReadVerifyingKey, WriteVerifyingKey) is the prefix up to and including
// ic. Readers reject non-canonical coordinates, bad flags, points off the
// curve, identities where bellperson does, truncation, lengths that
// overrun the file and trailing bytes; checked reading adds subgroup
// checks. Every point error names the vector and the index
// ("params: l[17]: point not on curve"). CheckShape compares the vector
// lengths with a circuit's Shape and wraps ErrParamsMismatch.
//
// A proof is compressed A ‖ B ‖ C (48 + 96 + 48 bytes); Filecoin's
// multi-partition proofs are concatenations (DecodeProofs).
//
// # Setup
//
// Setup is a deterministic setup from a seed, FOR DEVELOPMENT AND TESTS
// ONLY: anyone who knows the seed knows the trapdoor and can forge proofs.
// Real Filecoin parameters come from the trusted-setup ceremony.
//
// # Verification
//
// Verify is bellperson's verify_proof with a PreparedVerifyingKey;
// BatchVerify is verify_proofs_batch (random 128-bit weights, one final
// exponentiation). Both return ErrInvalidProof for a proof that fails.
package groth16
