// Package groth16 owns Groth16 over BLS12-381 in bellperson's conventions:
// parameters (the `.params`/`.vk` layout), proof encoding (192 bytes), a
// deterministic dev setup, the split prover and verification.
//
// The prover is split so an engine can lock only the device's kernel region:
// Synthesize (CPU) produces an Assignment; a Device runs Prepare (CPU),
// Run (device) and Finish (CPU) to produce the MSM sums; Assemble applies the
// randomization r, s and yields the Proof. The Device interface is declared
// here, where it is consumed; device packages implement it and this package
// never imports them.
package groth16
