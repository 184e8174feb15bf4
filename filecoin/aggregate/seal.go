package aggregate

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/porep"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/groth16"
	snarkpack "github.com/cuzk-project/cuzk/groth16/aggregate"
)

var (
	// ErrBadBatch reports a batch no aggregate can be made or checked
	// for: no sectors, counts that differ, sectors of different miners or
	// seal proofs, a non-interactive seal proof, a proof of the wrong
	// size, public data that does not decode.
	ErrBadBatch = errors.New("aggregate: bad seal batch")
	// ErrInvalid reports an aggregate that is not valid for the batch: it
	// does not decode, aggregates another number of proofs, or fails
	// verification.
	ErrInvalid = errors.New("aggregate: invalid seal aggregate")
)

// batch is a commit batch ready for SnarkPack: the seal proof they share
// and the transcript bytes.
type batch struct {
	info    filecoin.SealInfo
	include []byte
	seals   []porep.Seal
}

// newBatch checks that seals form one batch and derives the transcript
// bytes from their seeds and comm_r.
func newBatch(seals []filecoin.SealVerifyInfo) (*batch, error) {
	if len(seals) == 0 {
		return nil, fmt.Errorf("%w: no sectors", ErrBadBatch)
	}
	b := &batch{seals: make([]porep.Seal, len(seals))}
	h := sha256.New()
	for i := range seals {
		v := &seals[i]
		if v.SealProof != seals[0].SealProof {
			return nil, fmt.Errorf("%w: sector %d (number %d) has SealProof %d, sector 0 %d: a batch has one seal proof",
				ErrBadBatch, i, v.Number, v.SealProof, seals[0].SealProof)
		}
		if v.Miner != seals[0].Miner {
			return nil, fmt.Errorf("%w: sector %d (number %d) is miner %d's, sector 0 miner %d's: a batch has one miner",
				ErrBadBatch, i, v.Number, v.Miner, seals[0].Miner)
		}
		s, err := porep.SealOf(v)
		if err != nil {
			return nil, fmt.Errorf("%w: sector %d (number %d): %w", ErrBadBatch, i, v.Number, err)
		}
		if s.Info.Feature == filecoin.NonInteractive {
			return nil, fmt.Errorf("%w: %s is non-interactive PoRep; this aggregates interactive seal proofs only", ErrBadBatch, s.Info.Name)
		}
		b.seals[i] = s
		h.Write(s.Seed[:])
		h.Write(s.CommR[:])
	}
	b.info = b.seals[0].Info
	b.include = h.Sum(nil)
	return b, nil
}

// proofCount is the number of partition proofs before padding.
func (b *batch) proofCount() int { return len(b.seals) * b.info.Partitions }

// TargetLen is the number of proofs an aggregate of n partition proofs
// holds: the next power of two, at least 2.
func TargetLen(n int) int {
	t := 2
	for t < n {
		t <<= 1
	}
	return t
}

// inputs are every partition's public inputs in aggregation order, padded
// to TargetLen by repeating the last.
func (b *batch) inputs() ([][]fr.Element, error) {
	out := make([][]fr.Element, 0, TargetLen(b.proofCount()))
	for i := range b.seals {
		in, err := b.seals[i].Inputs()
		if err != nil {
			return nil, fmt.Errorf("%w: sector %d: %w", ErrBadBatch, i, err)
		}
		out = append(out, in...)
	}
	for len(out) < cap(out) {
		out = append(out, out[len(out)-1])
	}
	return out, nil
}

// AggregateSeals aggregates the C2 proofs of a commit batch under srs (its
// first 2n powers of g and n of h serve n padded proofs). proofs[i] is
// seals[i]'s proof, partitions × 192 bytes; the seals' own Proof fields
// are not read. It returns the aggregate's bytes. It does not verify the
// proofs; VerifySeals checks the result.
func AggregateSeals(ctx context.Context, srs *snarkpack.SRS, seals []filecoin.SealVerifyInfo, proofs [][]byte) ([]byte, error) {
	if len(proofs) != len(seals) {
		return nil, fmt.Errorf("%w: %d proofs for %d sectors", ErrBadBatch, len(proofs), len(seals))
	}
	b, err := newBatch(seals)
	if err != nil {
		return nil, err
	}
	want := b.info.Partitions * groth16.ProofSize
	all := make([]groth16.Proof, 0, TargetLen(b.proofCount()))
	for i, p := range proofs {
		if len(p) != want {
			return nil, fmt.Errorf("%w: sector %d (number %d): proof has %d bytes, want %d partitions × %d",
				ErrBadBatch, i, seals[i].Number, len(p), b.info.Partitions, groth16.ProofSize)
		}
		ps, err := groth16.DecodeProofs(p)
		if err != nil {
			return nil, fmt.Errorf("%w: sector %d (number %d): %w", ErrBadBatch, i, seals[i].Number, err)
		}
		all = append(all, ps...)
	}
	for len(all) < cap(all) {
		all = append(all, all[len(all)-1])
	}
	if len(all) > snarkpack.MaxProofs {
		return nil, fmt.Errorf("%w: %d partition proofs pad to %d, over the %d an SRS can serve",
			ErrBadBatch, b.proofCount(), len(all), snarkpack.MaxProofs)
	}
	pk, _, err := srs.Specialize(len(all))
	if err != nil {
		return nil, fmt.Errorf("%d sectors of %d partitions (%d proofs padded): %w", len(seals), b.info.Partitions, len(all), err)
	}
	agg, err := snarkpack.Aggregate(ctx, pk, b.include, all)
	if err != nil {
		return nil, err
	}
	return agg.MarshalBinary()
}

// VerifySeals checks aggregate against the seals' public data alone and
// the PoRep verifying key of their seal proof. rnd seeds the verifier's
// random weights (crypto/rand if nil). It returns nil when valid, an
// error wrapping ErrInvalid when the aggregate is not valid for the batch,
// ErrBadBatch for public data that no aggregate is valid for, and any
// other error when verification could not run (an SRS too short).
func VerifySeals(srs *snarkpack.SRS, vk *groth16.VerifyingKey, seals []filecoin.SealVerifyInfo, aggregate []byte, rnd io.Reader) error {
	b, err := newBatch(seals)
	if err != nil {
		return err
	}
	p, err := snarkpack.DecodeProof(aggregate)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	n := TargetLen(b.proofCount())
	if int(p.N) != n {
		return fmt.Errorf("%w: it aggregates %d proofs; %d sectors of %d partitions pad to %d",
			ErrInvalid, p.N, len(seals), b.info.Partitions, n)
	}
	inputs, err := b.inputs()
	if err != nil {
		return err
	}
	if len(vk.IC) != len(inputs[0])+1 {
		return fmt.Errorf("%w: the verifying key has %d public inputs, %s has %d", groth16.ErrInputCount, len(vk.IC)-1, b.info.Name, len(inputs[0]))
	}
	_, svk, err := srs.Specialize(n)
	if err != nil {
		return fmt.Errorf("%d sectors of %d partitions (%d proofs padded): %w", len(seals), b.info.Partitions, n, err)
	}
	if err := snarkpack.Verify(svk, vk, inputs, p, b.include, rnd); err != nil {
		if errors.Is(err, snarkpack.ErrInvalid) {
			return fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		return err
	}
	return nil
}
