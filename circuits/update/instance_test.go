package update

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/hash"
	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
	"github.com/cuzk-project/cuzk/hash/poseidon"
)

// instance is a small, self-consistent sector update: a random old replica
// and tree R_old, random new data and its tree D, the new replica encoded
// from them (new = old + data·rho(high bits of the node)) with tree R_new,
// and partition k's challenges drawn as the reference draws them from
// comm_r_new.
type instance struct {
	part       *Partition
	challenges []uint64
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

func hash2(t testing.TB, c []fr.Element) fr.Element {
	t.Helper()
	h, err := randomness.Hash(c)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// challenges is challenges.rs Challenges::new: digest j of partition k is
// the custom Poseidon of (comm_r_new, k·d + j); challenge i of a digest is
// its little-endian bits [i·b, (i+1)·b) with k above them.
func challenges(t testing.TB, c Config, commRNew fr.Element, k int) []uint64 {
	t.Helper()
	b := c.randomBits()
	var out []uint64
	for j := range c.Digests() {
		var idx fr.Element
		idx.SetUint64(uint64(k*c.Digests() + j))
		d := hash2(t, []fr.Element{commRNew, idx})
		limbs := d.Bits()
		for i := 0; i < c.ChallengesPerDigest() && len(out) < c.Challenges(); i++ {
			var v uint64
			for x := range b {
				bit := i*b + x
				v |= (limbs[bit/64] >> (uint(bit) % 64) & 1) << x
			}
			out = append(out, v|uint64(k)<<b)
		}
	}
	return out
}

func newInstance(t testing.TB, c Config, k int, seed uint64) *instance {
	t.Helper()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 0x736e6170))
	n := int(c.Nodes)
	h := c.DefaultH()
	old := make([]hash.Domain, n)
	data := make([]hash.Domain, n)
	for i := range old {
		old[i], data[i] = randomDomain(r), randomDomain(r)
	}
	treeROld, err := hmerkle.NewPoseidon(c.TreeR, old)
	if err != nil {
		t.Fatal(err)
	}
	// Tree D level by level: levels[0] the data, levels[height] the root.
	levels := [][]hash.Domain{data}
	for len(levels[len(levels)-1]) > 1 {
		prev := levels[len(levels)-1]
		next := make([]hash.Domain, len(prev)/2)
		for i := range next {
			next[i] = hash.Sha254Node(&prev[2*i], &prev[2*i+1])
		}
		levels = append(levels, next)
	}
	treeD, err := hmerkle.NewSha254(data)
	if err != nil {
		t.Fatal(err)
	}
	if treeD.Root() != levels[len(levels)-1][0] {
		t.Fatal("tree D levels disagree with hash/merkle")
	}

	p := &Partition{Config: c, K: k, H: h, CommC: mustElement(t, randomDomain(r))}
	p.RootROld = mustElement(t, treeROld.Root())
	p.CommROld, err = poseidon.HashMerkleTree([]fr.Element{p.CommC, p.RootROld})
	if err != nil {
		t.Fatal(err)
	}
	p.CommDNew = mustElement(t, treeD.Root())
	phi := hash2(t, []fr.Element{p.CommDNew, p.CommROld})
	shift := bits.TrailingZeros64(c.Nodes) - h
	replica := make([]hash.Domain, n)
	for i := range replica {
		var high fr.Element
		high.SetUint64(uint64(i) >> shift)
		rho := hash2(t, []fr.Element{phi, high})
		v, d := mustElement(t, old[i]), mustElement(t, data[i])
		d.Mul(&d, &rho)
		v.Add(&v, &d)
		replica[i] = hash.DomainOf(&v)
	}
	treeRNew, err := hmerkle.NewPoseidon(c.TreeR, replica)
	if err != nil {
		t.Fatal(err)
	}
	p.RootRNew = mustElement(t, treeRNew.Root())
	p.CommRNew, err = poseidon.HashMerkleTree([]fr.Element{p.CommC, p.RootRNew})
	if err != nil {
		t.Fatal(err)
	}

	apexRow := c.levelsToApex()
	for i := range c.ApexLeaves() {
		p.ApexLeaves = append(p.ApexLeaves, mustElement(t, levels[apexRow][k*c.ApexLeaves()+i]))
	}
	rootRow := apexRow + c.apexBits()
	for l := range c.partitionBits() {
		p.PartitionPath = append(p.PartitionPath, mustElement(t, levels[rootRow+l][(k>>l)^1]))
	}

	siblings := func(tree *hmerkle.Tree, node uint64) [][]fr.Element {
		t.Helper()
		proof, err := tree.Prove(int(node))
		if err != nil {
			t.Fatal(err)
		}
		out := make([][]fr.Element, len(proof.Path))
		for l, e := range proof.Path {
			for _, s := range e.Siblings {
				out[l] = append(out[l], mustElement(t, s))
			}
		}
		return out
	}
	in := &instance{part: p, challenges: challenges(t, c, p.CommRNew, k)}
	for _, node := range in.challenges {
		ch := Challenge{
			LeafROld: mustElement(t, old[node]),
			LeafDNew: mustElement(t, data[node]),
			PathROld: siblings(treeROld, node),
			PathRNew: siblings(treeRNew, node),
		}
		for l, sib := range siblings(treeD, node)[:apexRow] {
			if len(sib) != 1 || sib[0] != mustElement(t, levels[l][(node>>l)^1]) {
				t.Fatalf("tree D proof of node %d level %d disagrees with the levels", node, l)
			}
			ch.PathDNew = append(ch.PathDNew, sib[0])
		}
		p.Challenges = append(p.Challenges, ch)
	}
	return in
}

// publicInputs is circuit.rs PublicInputs::to_vec.
func (in *instance) publicInputs() []fr.Element {
	p := in.part
	var kh fr.Element
	kh.SetUint64(p.Config.KAndHSelect(p.K, p.H))
	return []fr.Element{kh, p.CommROld, p.CommDNew, p.CommRNew}
}
