package poseidon

import (
	"errors"
	"fmt"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// ErrArity reports an arity this package has no round numbers for.
var ErrArity = errors.New("poseidon: unsupported arity")

// ErrPreimage reports a preimage whose length is not the arity.
var ErrPreimage = errors.New("poseidon: preimage length differs from arity")

// FullRounds is RF for every supported arity (Strength Standard).
const FullRounds = 8

// partialRounds is neptune's RP for Strength Standard (round_numbers.rs,
// 128-bit security with the +2 / ×1.075 margins), keyed by arity.
var partialRounds = map[int]int{2: 55, 4: 56, 8: 57, 11: 57, 16: 59, 24: 59, 36: 60}

// PartialRounds returns RP for arity, or ErrArity.
func PartialRounds(arity int) (int, error) {
	rp, ok := partialRounds[arity]
	if !ok {
		return 0, fmt.Errorf("%w: %d (supported: 2, 4, 8, 11, 16, 24, 36)", ErrArity, arity)
	}
	return rp, nil
}

// Params holds everything a Poseidon instance of one arity needs except the
// domain tag. Instances are shared and must not be modified.
type Params struct {
	Arity, Width              int // Width = Arity + 1
	FullRounds, PartialRounds int

	// RoundConstants are the Grain constants, Width per round, in round order.
	RoundConstants []fr.Element
	// MDS is the Cauchy matrix (symmetric).
	MDS Matrix
	// Compressed are the OptimizedStatic constants: Width added before the
	// first S-boxes, then Width after each S-box layer of the first RF/2
	// full rounds, one after each partial S-box, and Width after each of the
	// last RF/2 full rounds but the final one: FullRounds·Width + PartialRounds.
	Compressed []fr.Element
	// PreSparse replaces MDS after the last initial full round.
	PreSparse Matrix
	// Sparse replace MDS after each partial round, in order.
	Sparse []SparseMatrix
}

var (
	paramsCache sync.Map   // arity → *Params; read without locking
	paramsMu    sync.Mutex // serializes generation
	merkleCache sync.Map   // arity → *Constants with the MerkleTree tag
)

// ParamsFor returns the cached parameters of arity, generating them on first
// use (a few milliseconds).
func ParamsFor(arity int) (*Params, error) {
	if p, ok := paramsCache.Load(arity); ok {
		return p.(*Params), nil
	}
	paramsMu.Lock()
	defer paramsMu.Unlock()
	if p, ok := paramsCache.Load(arity); ok {
		return p.(*Params), nil
	}
	p, err := newParams(arity)
	if err != nil {
		return nil, err
	}
	paramsCache.Store(arity, p)
	return p, nil
}

func newParams(arity int) (*Params, error) {
	rp, err := PartialRounds(arity)
	if err != nil {
		return nil, err
	}
	t := arity + 1
	p := &Params{
		Arity: arity, Width: t, FullRounds: FullRounds, PartialRounds: rp,
		RoundConstants: roundConstants(t, FullRounds, rp),
		MDS:            cauchyMDS(t),
	}
	inv, err := p.MDS.inverse()
	if err != nil {
		return nil, fmt.Errorf("poseidon: arity %d: MDS: %w", arity, err)
	}
	p.Compressed = compressRoundConstants(p, inv)
	// neptune factors the transpose; M is symmetric, so it is M itself.
	p.PreSparse, p.Sparse, err = sparseFactors(p.MDS.transpose(), rp)
	if err != nil {
		return nil, fmt.Errorf("poseidon: arity %d: sparse factors: %w", arity, err)
	}
	return p, nil
}

// compressRoundConstants moves every round's constants back through M⁻¹ so
// that they can be added right after the previous S-box layer (neptune
// preprocessing.rs, fully preprocessed partial rounds). Through the partial
// rounds only element 0 passes an S-box, so the other elements' constants
// are folded backwards into one vector added after the last initial full
// round, leaving one scalar per partial round.
func compressRoundConstants(p *Params, mInv Matrix) []fr.Element {
	t, half, rp := p.Width, p.FullRounds/2, p.PartialRounds
	rc := func(r int) []fr.Element { return p.RoundConstants[r*t : (r+1)*t] }
	out := make([]fr.Element, 0, p.FullRounds*t+rp)

	out = append(out, rc(0)...)
	for i := range half - 1 {
		out = append(out, mInv.apply(rc(i+1))...)
	}

	last := half + rp // first round of the final full rounds
	acc := append([]fr.Element(nil), rc(last)...)
	partial := make([]fr.Element, rp) // in application order
	for i := range rp {
		inv := mInv.apply(acc)
		partial[rp-1-i] = inv[0]
		inv[0].SetZero()
		prev := rc(last - 1 - i)
		for j := range inv {
			inv[j].Add(&inv[j], &prev[j])
		}
		acc = inv
	}
	out = append(out, mInv.apply(acc)...)
	out = append(out, partial...)

	for i := 1; i < half; i++ {
		out = append(out, mInv.apply(rc(last+i))...)
	}
	return out
}

// Constants is a Params with a domain tag: what one hash function needs.
type Constants struct {
	*Params
	// Tag is state element 0 before the permutation.
	Tag fr.Element
}

// MerkleTreeTag is neptune's HashType::MerkleTree tag, 2^arity − 1.
func MerkleTreeTag(arity int) fr.Element {
	var e fr.Element
	e.SetUint64(1<<uint(arity) - 1)
	return e
}

// CustomTag is neptune's HashType::Custom(Arbitrary(id)) tag, id·2^40, for
// id in 1..256. SnapDeals uses id 1.
func CustomTag(id int) (fr.Element, error) {
	if id < 1 || id > 256 {
		return fr.Element{}, fmt.Errorf("poseidon: custom domain tag id %d out of range 1..256", id)
	}
	var e fr.Element
	e.SetUint64(uint64(id) << 40)
	return e, nil
}

// MerkleTree returns the constants Filecoin uses for tree nodes, column
// hashes and comm_r (Strength Standard, tag 2^arity − 1). The value is
// shared: do not modify it.
func MerkleTree(arity int) (*Constants, error) {
	if c, ok := merkleCache.Load(arity); ok {
		return c.(*Constants), nil
	}
	p, err := ParamsFor(arity)
	if err != nil {
		return nil, err
	}
	c, _ := merkleCache.LoadOrStore(arity, &Constants{Params: p, Tag: MerkleTreeTag(arity)})
	return c.(*Constants), nil
}

// Custom returns the constants with tag id·2^40 (SnapDeals: id 1).
func Custom(arity, id int) (*Constants, error) {
	tag, err := CustomTag(id)
	if err != nil {
		return nil, err
	}
	p, err := ParamsFor(arity)
	if err != nil {
		return nil, err
	}
	return &Constants{Params: p, Tag: tag}, nil
}

// MustMerkleTree is MerkleTree for arities fixed in code; it panics on an
// unsupported arity.
func MustMerkleTree(arity int) *Constants {
	c, err := MerkleTree(arity)
	if err != nil {
		panic(err)
	}
	return c
}
