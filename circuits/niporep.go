package circuits

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/porep"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/groth16/aggregate"
)

// AggregationSRSFile is the SnarkPack SRS a non-interactive PoRep's
// aggregate is made with, in the parameter cache.
const AggregationSRSFile = "v28-fil-inner-product-v1.srs"

// maxNIProofs is the most partition proofs a non-interactive PoRep
// aggregates once padded: 126 partitions (32 and 64 GiB) pad to 128.
const maxNIProofs = 128

// AggregationSRS supplies the SnarkPack keys that aggregate and verify a
// non-interactive PoRep's partition proofs. Implementations are safe for
// concurrent use.
type AggregationSRS interface {
	// Check reports whether keys can be had, before any proving: it
	// loads the SRS on first use. A missing file wraps
	// engine.ErrParamsMissing and names the file.
	Check() error
	// Keys returns the prover and verifier keys for n proofs, n a power
	// of two from 2 to 128.
	Keys(n int) (*aggregate.ProverKey, *aggregate.VerifierKey, error)
}

// keyCache specializes one SRS for each proof count asked for.
type keyCache struct {
	mu   sync.Mutex
	srs  *aggregate.SRS
	keys map[int]specialized
}

type specialized struct {
	pk *aggregate.ProverKey
	vk *aggregate.VerifierKey
}

func (c *keyCache) specialize(n int) (*aggregate.ProverKey, *aggregate.VerifierKey, error) {
	if n > maxNIProofs {
		return nil, nil, fmt.Errorf("%w: %d proofs, a non-interactive PoRep aggregates at most %d", aggregate.ErrProofCount, n, maxNIProofs)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if k, ok := c.keys[n]; ok {
		return k.pk, k.vk, nil
	}
	pk, vk, err := c.srs.Specialize(n)
	if err != nil {
		return nil, nil, err
	}
	if c.keys == nil {
		c.keys = make(map[int]specialized)
	}
	c.keys[n] = specialized{pk, vk}
	return pk, vk, nil
}

// FileSRS reads the SRS file (the first 2·128 powers of each vector: all
// a non-interactive PoRep needs) once, on first use.
type FileSRS struct {
	path string

	mu    sync.Mutex
	cache *keyCache // nil until read
}

// NewFileSRS returns the SRS at path, read on first use.
func NewFileSRS(path string) *FileSRS { return &FileSRS{path: path} }

// Check reads the file unless it was read: a missing file is
// engine.ErrParamsMissing, a bad one aggregate.ErrBadSRS, both naming it.
// A failed read is tried again at the next Check.
func (s *FileSRS) Check() error {
	_, err := s.loaded()
	return err
}

func (s *FileSRS) loaded() (*keyCache, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache != nil {
		return s.cache, nil
	}
	srs, err := aggregate.ReadSRSFile(s.path, 2*maxNIProofs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: non-interactive PoRep needs the SnarkPack SRS %s (%s in the parameter cache)",
			engine.ErrParamsMissing, s.path, AggregationSRSFile)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: SnarkPack SRS %s: %w", engine.ErrParamsMissing, s.path, err)
	}
	s.cache = &keyCache{srs: srs}
	return s.cache, nil
}

// Keys specializes the file's SRS for n proofs.
func (s *FileSRS) Keys(n int) (*aggregate.ProverKey, *aggregate.VerifierKey, error) {
	c, err := s.loaded()
	if err != nil {
		return nil, nil, err
	}
	return c.specialize(n)
}

// DevSRS is a SnarkPack SRS derived from a public seed and kept in
// memory, FOR DEVELOPMENT ONLY: whoever knows the seed can forge
// aggregates, and no chain accepts them.
type DevSRS struct {
	seed []byte
	once sync.Once
	err  error
	c    keyCache
}

// NewDevSRS returns the development SRS of seed, generated on first use.
func NewDevSRS(seed []byte) *DevSRS { return &DevSRS{seed: append([]byte(nil), seed...)} }

// Check generates the SRS unless it was.
func (s *DevSRS) Check() error {
	s.once.Do(func() { s.c.srs, s.err = aggregate.DevSRS(s.seed, maxNIProofs) })
	return s.err
}

// Keys specializes the development SRS for n proofs.
func (s *DevSRS) Keys(n int) (*aggregate.ProverKey, *aggregate.VerifierKey, error) {
	if err := s.Check(); err != nil {
		return nil, nil, err
	}
	return s.c.specialize(n)
}

// SetAggregationSRS gives the registry the SRS that non-interactive PoRep
// requests are aggregated with; without one they are refused at plan time.
func (r *Registry) SetAggregationSRS(s AggregationSRS) { r.aggSRS = s }

// NIPoRepTranscript is the transcript input of a non-interactive PoRep's
// aggregate: SHA-256 of the sector's comm_r. Unlike interactive
// aggregation, no seed is hashed: the challenges come from comm_r alone.
func NIPoRepTranscript(commR [32]byte) []byte {
	h := sha256.Sum256(commR[:])
	return h[:]
}

// aggregationTarget is the proof count an aggregate of n proofs holds: the
// next power of two, at least 2.
func aggregationTarget(n int) int {
	t := 2
	for t < n {
		t <<= 1
	}
	return t
}

// padLast extends xs to n elements by repeating its last.
func padLast[T any](xs []T, n int) []T {
	out := make([]T, n)
	copy(out, xs)
	for i := len(xs); i < n; i++ {
		out[i] = xs[len(xs)-1]
	}
	return out
}

// niFinalize returns the Finalize step of a non-interactive PoRep: the
// partition proofs (in partition order, already verified one by one)
// padded to a power of two by repeating the last, aggregated under the
// SRS with the sector's transcript bytes, and the aggregate's encoding
// decoded again and verified against the partitions' public inputs
// (padded alike) before it is returned.
func niFinalize(srs AggregationSRS, commR [32]byte, inputs [][]fr.Element) func(ctx context.Context, vk *groth16.VerifyingKey, proof []byte) ([]byte, error) {
	return func(ctx context.Context, vk *groth16.VerifyingKey, concat []byte) ([]byte, error) {
		proofs, err := groth16.DecodeProofs(concat)
		if err != nil {
			return nil, err
		}
		if len(proofs) == 0 || len(proofs) != len(inputs) {
			return nil, fmt.Errorf("%d partition proofs for %d input sets", len(proofs), len(inputs))
		}
		n := aggregationTarget(len(proofs))
		pk, avk, err := srs.Keys(n)
		if err != nil {
			return nil, err
		}
		include := NIPoRepTranscript(commR)
		agg, err := aggregate.Aggregate(ctx, pk, include, padLast(proofs, n))
		if err != nil {
			return nil, fmt.Errorf("aggregating %d partition proofs: %w", len(proofs), err)
		}
		out, err := agg.MarshalBinary()
		if err != nil {
			return nil, err
		}
		dec, err := aggregate.DecodeProof(out)
		if err != nil {
			return nil, fmt.Errorf("the aggregate does not decode: %w", err)
		}
		if err := aggregate.Verify(avk, vk, padLast(inputs, n), dec, include, nil); err != nil {
			return nil, fmt.Errorf("the aggregate of %d partition proofs does not verify: %w", len(proofs), err)
		}
		return out, nil
	}
}

// VerifyNIPoRep checks a non-interactive PoRep C2, the aggregate of its
// partition proofs, against the seal's public data (SealVerifyInfo, its
// Proof the aggregate's bytes) as a chain node does: every partition's
// public inputs derived from the seal, padded as the prover padded them,
// the comm_r transcript, vk the partitions' Groth16 verifying key.
func VerifyNIPoRep(srs AggregationSRS, vk *groth16.VerifyingKey, v *filecoin.SealVerifyInfo) error {
	s, err := porep.SealOf(v)
	if err != nil {
		return err
	}
	if s.Info.Feature != filecoin.NonInteractive {
		return fmt.Errorf("%w: %s is not a non-interactive PoRep", porep.ErrBadSeal, s.Info.Name)
	}
	n := aggregationTarget(s.Info.Partitions)
	if len(v.Proof) != aggregate.Size(n) {
		return fmt.Errorf("%w: Proof has %d bytes, an aggregate of %d partition proofs (padded to %d) has %d",
			porep.ErrBadSeal, len(v.Proof), s.Info.Partitions, n, aggregate.Size(n))
	}
	agg, err := aggregate.DecodeProof(v.Proof)
	if err != nil {
		return fmt.Errorf("%w: Proof: %w", porep.ErrBadSeal, err)
	}
	inputs, err := s.Inputs()
	if err != nil {
		return err
	}
	_, avk, err := srs.Keys(n)
	if err != nil {
		return err
	}
	return aggregate.Verify(avk, vk, padLast(inputs, n), agg, NIPoRepTranscript(s.CommR), nil)
}
