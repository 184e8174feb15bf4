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
// groth16::aggregate module. What is checked here against blstrs's
// own numbers: the pairing and the Fp12 coefficient order (blstrs's
// Gt::generator). What is not: no aggregate made by bellperson has been
// verified by this package, nor one of ours by bellperson. A vector from
// bellperson (an SRS prefix, a verifying key, the proofs, their inputs,
// the transcript bytes and the aggregate, V2) would settle it twice over:
// Verify must accept it, and Aggregate must reproduce its bytes exactly,
// since aggregation is deterministic. testdata/self-v2-n8 has that
// layout; it holds this package's own output, which it pins byte for byte.
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
