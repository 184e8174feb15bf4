package groth16

import bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"

// VerifyingKey is bellperson's VerifyingKey; IC[0] belongs to ONE.
type VerifyingKey struct {
	AlphaG1, BetaG1 bls12381.G1Affine
	BetaG2, GammaG2 bls12381.G2Affine
	DeltaG1         bls12381.G1Affine
	DeltaG2         bls12381.G2Affine
	IC              []bls12381.G1Affine
}

// Params are bellperson's Parameters: the verifying key and the five
// proving queries. A, BG1 and BG2 hold only the non-identity points, in step
// with the densities (inputs first, then aux).
type Params struct {
	VK  VerifyingKey
	H   []bls12381.G1Affine // m−1 points
	L   []bls12381.G1Affine // one per aux variable
	A   []bls12381.G1Affine // inputs + A-aux popcount
	BG1 []bls12381.G1Affine // B-input popcount + B-aux popcount
	BG2 []bls12381.G2Affine // same count and order as BG1
	// Deferred, when set, holds the five queries in their file instead
	// (OpenParams): H, L, A, BG1 and BG2 are then empty; Len counts the
	// points either way.
	Deferred *Deferred
}

// Proof is a Groth16 proof; its encoding is 192 bytes (compressed A‖B‖C).
type Proof struct {
	A bls12381.G1Affine
	B bls12381.G2Affine
	C bls12381.G1Affine
}

// ProofSize is the length of an encoded proof.
const ProofSize = 192
