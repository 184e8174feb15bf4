package update

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/internal/circuittest"
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
	old := make([]hash.Domain, n)
	data := make([]hash.Domain, n)
	for i := range old {
		old[i], data[i] = circuittest.RandomDomain(r), circuittest.RandomDomain(r)
	}
	treeROld, err := hmerkle.NewPoseidon(c.TreeR, old)
	if err != nil {
		t.Fatal(err)
	}
	treeD, levels := buildTreeD(t, data)

	p := &Partition{Config: c, K: k, H: c.DefaultH(), CommC: circuittest.Element(t, circuittest.RandomDomain(r))}
	p.RootROld = circuittest.Element(t, treeROld.Root())
	p.CommROld, err = poseidon.HashMerkleTree([]fr.Element{p.CommC, p.RootROld})
	if err != nil {
		t.Fatal(err)
	}
	p.CommDNew = circuittest.Element(t, treeD.Root())
	treeRNew, err := hmerkle.NewPoseidon(c.TreeR, encodeReplica(t, p, old, data))
	if err != nil {
		t.Fatal(err)
	}
	p.RootRNew = circuittest.Element(t, treeRNew.Root())
	p.CommRNew, err = poseidon.HashMerkleTree([]fr.Element{p.CommC, p.RootRNew})
	if err != nil {
		t.Fatal(err)
	}

	apexRow := c.levelsToApex()
	for i := range c.ApexLeaves() {
		p.ApexLeaves = append(p.ApexLeaves, circuittest.Element(t, levels[apexRow][k*c.ApexLeaves()+i]))
	}
	rootRow := apexRow + c.apexBits()
	for l := range c.partitionBits() {
		p.PartitionPath = append(p.PartitionPath, circuittest.Element(t, levels[rootRow+l][(k>>l)^1]))
	}

	in := &instance{part: p, challenges: challenges(t, c, p.CommRNew, k)}
	for _, node := range in.challenges {
		ch := Challenge{
			LeafROld: circuittest.Element(t, old[node]),
			LeafDNew: circuittest.Element(t, data[node]),
			PathROld: treeSiblings(t, treeROld, node),
			PathRNew: treeSiblings(t, treeRNew, node),
		}
		for l, sib := range treeSiblings(t, treeD, node)[:apexRow] {
			if len(sib) != 1 || sib[0] != circuittest.Element(t, levels[l][(node>>l)^1]) {
				t.Fatalf("tree D proof of node %d level %d disagrees with the levels", node, l)
			}
			ch.PathDNew = append(ch.PathDNew, sib[0])
		}
		p.Challenges = append(p.Challenges, ch)
	}
	return in
}

// buildTreeD is tree D over data, and its levels: levels[0] the data,
// levels[height] the root.
func buildTreeD(t testing.TB, data []hash.Domain) (*hmerkle.Tree, [][]hash.Domain) {
	t.Helper()
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
	return treeD, levels
}

// encodeReplica is the new replica of p's update: old + data·rho, rho of node i
// from phi(comm_d_new, comm_r_old) and i's top p.H bits.
func encodeReplica(t testing.TB, p *Partition, old, data []hash.Domain) []hash.Domain {
	t.Helper()
	phi := hash2(t, []fr.Element{p.CommDNew, p.CommROld})
	shift := bits.TrailingZeros64(p.Config.Nodes) - p.H
	replica := make([]hash.Domain, len(old))
	for i := range replica {
		var high fr.Element
		high.SetUint64(uint64(i) >> shift)
		rho := hash2(t, []fr.Element{phi, high})
		v, d := circuittest.Element(t, old[i]), circuittest.Element(t, data[i])
		d.Mul(&d, &rho)
		v.Add(&v, &d)
		replica[i] = hash.DomainOf(&v)
	}
	return replica
}

// treeSiblings are the siblings of tree's path from node, bottom up.
func treeSiblings(t testing.TB, tree *hmerkle.Tree, node uint64) [][]fr.Element {
	t.Helper()
	proof, err := tree.Prove(int(node))
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]fr.Element, len(proof.Path))
	for l, e := range proof.Path {
		for _, s := range e.Siblings {
			out[l] = append(out[l], circuittest.Element(t, s))
		}
	}
	return out
}

// publicInputs is circuit.rs PublicInputs::to_vec.
func (in *instance) publicInputs() []fr.Element {
	p := in.part
	var kh fr.Element
	kh.SetUint64(p.Config.KAndHSelect(p.K, p.H))
	return []fr.Element{kh, p.CommROld, p.CommDNew, p.CommRNew}
}
