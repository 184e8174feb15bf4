package post

import (
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

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

func randomDomain(r *rand.Rand) hash.Domain {
	var d hash.Domain
	for i := 0; i < 32; i += 8 {
		v := r.Uint64()
		for j := range 8 {
			d[i+j] = byte(v >> (8 * j))
		}
	}
	d[31] &= 0x3f
	return d
}

func mustElement(t testing.TB, d hash.Domain) fr.Element {
	t.Helper()
	e, err := d.Element()
	if err != nil {
		t.Fatal(err)
	}
	return e
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
			replica[i] = randomDomain(r)
		}
		tree, err := hmerkle.NewPoseidon(cfg.TreeR, replica)
		if err != nil {
			t.Fatal(err)
		}
		s := Sector{CommC: mustElement(t, randomDomain(r)), CommRLast: mustElement(t, tree.Root())}
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
