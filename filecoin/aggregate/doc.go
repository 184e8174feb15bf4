// Package aggregate aggregates the interactive PoRep seal proofs of a
// commit batch into one SnarkPack (V2) proof and verifies such an
// aggregate from the sectors' public data alone, as filecoin-ffi's
// AggregateSealProofs and VerifyAggregateSeals do before and inside
// ProveCommitSectors3. The argument itself is package groth16/aggregate;
// this package owns the Filecoin conventions around it:
//
//   - the proofs: every sector's C2 proof (partitions × 192 bytes) split
//     into its partition proofs, sector after sector in batch order,
//     partition after partition within a sector; the list padded to the
//     next power of two (at least 2) by repeating the last proof;
//   - the public inputs: each partition's, computed from the sector's
//     SealVerifyInfo (circuits/porep Seal.Inputs), in the same order and
//     padded the same way, by repeating the last partition's inputs;
//   - the transcript bytes: SHA-256 over seed₁ ‖ comm_r₁ ‖ seed₂ ‖ comm_r₂ ‖ …
//     in batch order (seed: InteractiveRandomness; comm_r: the 32-byte
//     digest of SealedCID);
//   - the SRS: v28-fil-inner-product-v1.srs in the parameter directory,
//     of which the first 2¹⁵ + 1 points of each vector are read, as
//     rust-fil-proofs reads them (enough for 16384 partition proofs).
//
// A batch is one miner's sectors of one registered seal proof (what
// go-state-types' AggregateSealVerifyProofAndInfos carries: one Miner,
// one SealProof, and per sector Number, Randomness, InteractiveRandomness,
// SealedCID and UnsealedCID). Non-interactive PoRep proofs are refused.
//
// Compatibility with filecoin-ffi follows rust-fil-proofs'
// aggregate_seal_commit_proofs and verify_aggregate_seal_commit_proofs.
// testdata/mainnet-7x32g is a commit batch aggregated on mainnet with its
// sectors' SealVerifyInfos: the transcript bytes this package derives from
// them are the ones its aggregate was made under (TestMainnetBatchTranscript;
// the aggregate passes the GIPA half of verification under them in
// groth16/aggregate). Whole, it verifies only with the mainnet SRS and the
// 32 GiB PoRep .vk, which the repository does not hold
// (TestMainnetBatchVerifies with CUZK_MAINNET_PARAMS). No aggregate of ours
// has been verified by filecoin-ffi. CheckSRSDigest tells the ceremony's
// SRS file from any other.
//
// WriteDevSRS writes a development SRS derived from a public seed: anyone
// can forge aggregates under it. It is for tests and development only,
// never for mainnet.
package aggregate
