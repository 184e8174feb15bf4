package post

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/internal/circuittest"
	gmerkle "github.com/cuzk-project/cuzk/gadgets/merkle"
	"github.com/cuzk-project/cuzk/hash"
	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
	"github.com/cuzk-project/cuzk/hash/poseidon"
)

// instance is a small, self-consistent set of sectors: per sector a random
// replica and its tree R, a random comm_c, comm_r = Poseidon₂(comm_c,
// comm_r_last), and random challenged leaves. The leaves are not the
// reference's challenge derivation: the circuit sees them only as public
// inputs.
type instance struct {
	part   *Partition
	leaves [][]uint64 // per given sector, per challenge
}

// newInstance builds sectors given sectors (at most cfg.Sectors) of shape cfg.
func newInstance(t testing.TB, cfg Config, sectors int, seed uint64) *instance {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 0x706f7374))
	in := &instance{part: &Partition{Config: cfg}}
	for range sectors {
		replica := make([]hash.Domain, cfg.Nodes)
		for i := range replica {
			replica[i] = circuittest.RandomDomain(r)
		}
		tree, err := hmerkle.NewPoseidon(cfg.TreeR, replica)
		if err != nil {
			t.Fatal(err)
		}
		s := Sector{CommC: circuittest.Element(t, circuittest.RandomDomain(r)), CommRLast: circuittest.Element(t, tree.Root())}
		if s.CommR, err = poseidon.HashMerkleTree([]fr.Element{s.CommC, s.CommRLast}); err != nil {
			t.Fatal(err)
		}
		var leaves []uint64
		for range cfg.Challenges {
			c := r.Uint64N(cfg.Nodes)
			p, err := tree.Prove(int(c))
			if err != nil {
				t.Fatal(err)
			}
			path, leaf, _, err := gmerkle.PathFromProof(p)
			if err != nil {
				t.Fatal(err)
			}
			s.Challenges = append(s.Challenges, Challenge{Leaf: leaf, Path: path})
			leaves = append(leaves, c)
		}
		in.part.Sectors = append(in.part.Sectors, s)
		in.leaves = append(in.leaves, leaves)
	}
	return in
}

// publicInputs is compound.rs generate_public_inputs for the instance: per
// circuit sector comm_r and the leaf indices, the last given sector
// repeated up to the configuration's count.
func (in *instance) publicInputs() []fr.Element {
	var out []fr.Element
	for i := range in.part.Config.Sectors {
		k := min(i, len(in.part.Sectors)-1)
		out = append(out, in.part.Sectors[k].CommR)
		for _, c := range in.leaves[k] {
			var e fr.Element
			e.SetUint64(c)
			out = append(out, e)
		}
	}
	return out
}
