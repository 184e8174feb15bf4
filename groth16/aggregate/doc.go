// Package aggregate owns SnarkPack aggregation of Groth16 proofs over
// BLS12-381 (ePrint 2021/529) in bellperson's conventions, transcript
// version V2 (AggregateVersion::V2, the one Filecoin uses since network
// version 16): the SRS file, the specialized prover and verifier keys, the
// aggregate, its encoding, proving and verification. It knows Groth16
// proofs and verifying keys (package groth16) and nothing of circuits,
// sectors or devices.
//
// # The argument
//
// n proofs (Aᵢ, Bᵢ, Cᵢ), n a power of two ≥ 2, are bound by commitments
// under two SRS's of powers, g^(αⁱ), h^(αⁱ) and g^(βⁱ), h^(βⁱ):
//
//	v = (h^(αⁱ), h^(βⁱ))_{i<n}          commits to G1 vectors
//	w = (g^(α^(n+i)), g^(β^(n+i)))_{i<n} commits to G2 vectors
//	ComAB = (∏ e(Aᵢ, v₁ᵢ)·e(w₁ᵢ, Bᵢ), ∏ e(Aᵢ, v₂ᵢ)·e(w₂ᵢ, Bᵢ))
//	ComC  = (∏ e(Cᵢ, v₁ᵢ), ∏ e(Cᵢ, v₂ᵢ))
//
// A challenge r from the commitments and the caller's transcript bytes
// weights the proofs: IPAB = ∏ e(Aᵢ, Bᵢ^(rⁱ)) and AggC = Σ rⁱ·Cᵢ, so that
// the n Groth16 equations become one,
//
//	IPAB = e(α, β)^(Σrⁱ) · e(Σⱼ rʲ·accⱼ, γ) · e(AggC, δ),
//
// with accⱼ = IC₀ + Σ xⱼₖ·IC_{k+1} for proof j's public inputs xⱼ. TIPP
// (a target inner pairing product argument, for IPAB under ComAB with w
// rescaled by r⁻ⁱ) and MIPP (a multi-exponentiation argument, for AggC
// under ComC) share one GIPA recursion of log₂ n rounds: each round
// halves the vectors and keys with a challenge x, folding A, C and w by x
// and B, r and v by x⁻¹. The final keys are KZG commitments to polynomials
// in product form, so two openings at a challenge z (one in G2 for v, one
// in G1 for w, each for α and β) prove them well formed.
//
// # Transcript
//
// Every challenge is SHA-256 over "snarkpack-v1", a tag and the values as
// bincode serializes blstrs types (see transcript.go), reduced to a
// scalar by a counter loop. The tags, in order: "hcom" (ComAB, ComC);
// "random-r" (hcom, the caller's bytes); "gipa-0" (hcom, IPAB, AggC, r);
// per round k, "gipa-k" (the previous x⁻¹ and the round's messages; round 0
// is tagged "gipa-0" again: that second use is what V2 added);
// "gipa-extra-link" (the last x, the finals, the last round's messages);
// "random-z" (that, the final keys and the final A, B, C: V1 had fewer).
// A changed byte anywhere here changes every later challenge, which is what
// makes the aggregate bind to its inputs, so the byte layout is part of
// validity, not a detail.
//
// # Encodings
//
// Points are compressed as zcash/blstrs do (G1 48 bytes, G2 96 bytes with
// x.c1 first; gnark-crypto's compressed encoding for BLS12-381 has the
// same flags). GT elements in the aggregate are torus-compressed to one
// Fp6 (288 bytes, little-endian Fp); in the transcript they are the full
// twelve Fp coefficients (576 bytes). gnark-crypto and blstrs build Fp12
// by the same tower and compute the same reduced pairing (both use the
// cube of the textbook final exponentiation), so the GT values agree;
// TestGTGeneratorMatchesBlstrs checks this against blstrs's constant.
// An aggregate of n proofs is 2260 + 2976·log₂ n bytes (Size).
//
// # SRS
//
// The SRS file (v28-fil-inner-product-v1.srs on mainnet, from two
// powers-of-tau ceremonies) holds four vectors, g^α, g^β, h^α, h^β, each a
// u32 big-endian length (at most MaxSRSSize) and compressed points.
// ReadSRS reads only a prefix of each vector: n proofs need 2n powers of g
// and n of h. DevSRS derives one from a seed FOR DEVELOPMENT AND TESTS
// ONLY: whoever knows the seed knows α and β and can forge aggregates.
//
// # Filecoin
//
// Filecoin aggregates a batch of PoRep (or SnapDeals) partition proofs,
// padded to a power of two by repeating the last proof (and, for
// verification, the last proof's public inputs). Its transcript bytes are
// SHA-256 over seed₁ ‖ comm_r₁ ‖ seed₂ ‖ comm_r₂ ‖ … in sector order (comm_r
// alone for non-interactive PoRep), 32 bytes, which the transcript writes
// with its length. rust-fil-proofs reads the first 2¹⁵ + 1 points of each
// SRS vector, enough for 16384 proofs.
//
// # Compatibility
//
// The transcript, the encodings and the argument follow bellperson's
// groth16::aggregate module. Checked against data bellperson made
// (testdata/REFERENCE.md, reference_test.go): real aggregates of 16, 128
// and 512 proofs, one of them from a mainnet commit batch, decode and
// re-encode byte for byte; for the two non-interactive PoRep ones (their
// transcript bytes SHA-256(comm_r)) and the mainnet one (SHA-256 over
// seed ‖ comm_r per sector) the challenges this package derives fold the
// GIPA statement onto the aggregate's final values (TIPP and MIPP, all six
// equations), which pins the tags "hcom", "random-r", "gipa-0" (both uses)
// and "gipa-k", the bincode of GT, G1 and Fr, the counter loop and the V2
// round order; and blstrs's torus compression of e(g1, g2) is reproduced
// byte for byte. Not checked against bellperson's output, for want of the
// mainnet SRS and the PoRep verifying keys: the "gipa-extra-link" and
// "random-z" challenges, the KZG openings and the Groth16 equation with
// its public inputs (those follow bellperson's source, and are pinned
// against this package's own output by testdata/self-v2-n8, which has the
// layout a full vector would take: SRS prefix, verifying key, proofs,
// inputs, transcript bytes and aggregate). With those files, the mainnet
// batch can be verified whole (filecoin/aggregate's
// TestMainnetBatchVerifies). No aggregate of ours has been verified by
// bellperson.
//
// # Invariants
//
// Decoders (DecodeProof, ReadSRS) reject non-canonical coordinates, bad
// flags, points outside their prime-order subgroup and GT elements outside
// the order-r subgroup, and name the field; they never panic. Verify checks
// every count (proofs, input vectors, inputs per proof) before any
// arithmetic, and merges all pairing equations but the Groth16 one with
// random 128-bit weights into a single final exponentiation.
package aggregate
