package porep

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/sdr"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/hash"
)

// ErrBadSeal reports public seal data a verifier cannot use (a wrong-sized
// randomness, a commitment CID of the wrong kind, a proof of the wrong
// length).
var ErrBadSeal = errors.New("porep: bad seal verify info")

// Seal is what a seal proof's verifier knows: the registered proof and the
// four values the public inputs derive from. The chain's verifier computes
// replica_id itself; so does SealOf, and the engine checks that a C1's
// replica_id equals it.
type Seal struct {
	Info                          filecoin.SealInfo
	ReplicaID, CommD, CommR, Seed hash.Domain
}

// SealOf reads go-state-types' SealVerifyInfo: replica_id =
// SHA-256(prover_id ‖ u64_be(sector) ‖ ticket ‖ comm_d ‖ porep_id) with its
// top two bits cleared, comm_d and comm_r from the CIDs, the seed from the
// interactive randomness.
func SealOf(v *filecoin.SealVerifyInfo) (Seal, error) {
	info, err := v.SealProof.Info()
	if err != nil {
		return Seal{}, fmt.Errorf("%w: %w", ErrBadSeal, err)
	}
	s := Seal{Info: info}
	if len(v.Randomness) != 32 {
		return s, fmt.Errorf("%w: Randomness (the ticket) has %d bytes, want 32", ErrBadSeal, len(v.Randomness))
	}
	if len(v.InteractiveRandomness) != 32 {
		return s, fmt.Errorf("%w: InteractiveRandomness (the seed) has %d bytes, want 32", ErrBadSeal, len(v.InteractiveRandomness))
	}
	if s.CommD, err = v.UnsealedCID.CommD(); err != nil {
		return s, fmt.Errorf("%w: UnsealedCID: %w", ErrBadSeal, err)
	}
	if s.CommR, err = v.SealedCID.CommR(); err != nil {
		return s, fmt.Errorf("%w: SealedCID: %w", ErrBadSeal, err)
	}
	copy(s.Seed[:], v.InteractiveRandomness)
	var ticket [32]byte
	copy(ticket[:], v.Randomness)
	s.ReplicaID = filecoin.ReplicaID(filecoin.ProverID(v.Miner), v.Number, ticket, s.CommD, filecoin.PoRepID(v.SealProof))
	return s, nil
}

// Inputs are the public inputs of every partition (ONE excluded), computed
// from the seal alone: the challenges re-derived from the seed (or comm_r)
// and their parents from the graph. No value comes from a prover.
func (s *Seal) Inputs() ([][]fr.Element, error) {
	g, err := sdr.GraphFor(s.Info)
	if err != nil {
		return nil, err
	}
	var el [3]fr.Element
	for i, d := range []hash.Domain{s.ReplicaID, s.CommD, s.CommR} {
		if el[i], err = d.Element(); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrBadSeal, [...]string{"replica_id", "comm_d", "comm_r"}[i], err)
		}
	}
	parents := func(c uint64, out *[DRGParents + ExpanderParents]uint32) { g.Parents(uint32(c), out) }
	out := make([][]fr.Element, s.Info.Partitions)
	for k := range out {
		ch, err := sdr.Challenges(s.Info, s.ReplicaID, s.Seed, s.CommR, k)
		if err != nil {
			return nil, fmt.Errorf("%w: partition %d challenges: %w", ErrBadSeal, k, err)
		}
		out[k] = publicInputs(el[0], el[1], el[2], ch, parents)
	}
	return out, nil
}

// VerifySeal checks a seal proof (partitions × 192 bytes) from its public
// data alone, all partitions in one batch: what filecoin-ffi's verify_seal
// does with the .vk.
func VerifySeal(vk *groth16.VerifyingKey, v *filecoin.SealVerifyInfo) error {
	s, err := SealOf(v)
	if err != nil {
		return err
	}
	if len(v.Proof) != s.Info.Partitions*groth16.ProofSize {
		return fmt.Errorf("%w: Proof has %d bytes, want %d partitions × %d", ErrBadSeal, len(v.Proof), s.Info.Partitions, groth16.ProofSize)
	}
	proofs, err := groth16.DecodeProofs(v.Proof)
	if err != nil {
		return fmt.Errorf("%w: Proof: %w", ErrBadSeal, err)
	}
	inputs, err := s.Inputs()
	if err != nil {
		return err
	}
	pvk, err := groth16.PrepareVerifyingKey(vk)
	if err != nil {
		return err
	}
	return groth16.BatchVerify(pvk, proofs, inputs, nil)
}
