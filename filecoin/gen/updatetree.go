package gen

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/filecoin/update"
	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/hash/merkle"
)

// The trees of a structured SnapDeals sector (sectors too large to fill
// leaf by leaf; see GenerateSnap).
//
// A patterned tree has patternKinds kinds of node at every level. The root
// is of kind 0, and a node's kind fixes the kinds of its children (drawn
// from the seed per level and kind: no two kinds of a level with the same
// children, every kind with children of at least two kinds), so each level
// holds patternKinds distinct values and costs that many hashes, while every
// node of every level has siblings unlike it. Every leaf is defined: leaf i
// is the value of its kind, found by walking down from the root.
//
// The new replica tree is old + data·rho leaf by leaf. Below the height
// where rho changes (one rho per 2^(log2(nodes) − h) nodes), a subtree is
// fixed by the kinds of the old-replica and data subtrees over the same
// leaves and by its rho block, so it is hashed once per such triple; above
// that height each node is hashed once. 64 GiB: 1,024 blocks, at most
// 25 hashes each.

// patternKinds is the number of node kinds per level.
const patternKinds = 2

// treeLevels is a tree's level arities, bottom up, and the number of leaf
// bits below each level.
type treeLevels struct {
	arities []int
	below   []int // below[l]: log2 of the leaves under a node of level l
}

func levelsOf(shape merkle.Shape, leaves uint64) (treeLevels, error) {
	if leaves > 1<<40 {
		return treeLevels{}, fmt.Errorf("gen: %d leaves", leaves)
	}
	n, err := shape.BaseLevels(int(leaves))
	if err != nil {
		return treeLevels{}, err
	}
	var tl treeLevels
	for range n {
		tl.arities = append(tl.arities, shape.Base)
	}
	for _, a := range []int{shape.Sub, shape.Top} {
		if a > 0 {
			tl.arities = append(tl.arities, a)
		}
	}
	tl.below = make([]int, len(tl.arities)+1)
	for l, a := range tl.arities {
		tl.below[l+1] = tl.below[l] + bits.TrailingZeros(uint(a))
	}
	return tl, nil
}

// openLeaf opens leaf i of a tree given by its levels and node function.
func openLeaf(tl treeLevels, node func(level int, idx uint64) (hash.Domain, error), i uint64) (*merkle.Proof, error) {
	leaf, err := node(0, i)
	if err != nil {
		return nil, err
	}
	root, err := node(len(tl.arities), 0)
	if err != nil {
		return nil, err
	}
	p := &merkle.Proof{Leaf: leaf, Root: root, Path: make([]merkle.PathElement, len(tl.arities))}
	j := i
	for l, a := range tl.arities {
		start := j / uint64(a) * uint64(a)
		e := merkle.PathElement{Index: int(j - start), Siblings: make([]hash.Domain, 0, a-1)}
		for s := start; s < start+uint64(a); s++ {
			if s == j {
				continue
			}
			d, err := node(l, s)
			if err != nil {
				return nil, err
			}
			e.Siblings = append(e.Siblings, d)
		}
		p.Path[l] = e
		j /= uint64(a)
	}
	return p, nil
}

// patternTree is a patterned tree.
type patternTree struct {
	treeLevels
	// kids[l][k]: the kinds of the children (at level l) of a level-l+1
	// node of kind k.
	kids [][patternKinds][]uint8
	// values[l][k]: the value of a level-l node of kind k.
	values [][patternKinds]hash.Domain
}

// newPatternTree draws a patterned tree from (seed, tag): the children
// kinds per level and the leaf value of each kind (leaf(k)).
func newPatternTree(h merkle.Hasher, tl treeLevels, seed uint64, tag string, leaf func(k int) hash.Domain) (*patternTree, error) {
	p := &patternTree{treeLevels: tl, kids: make([][patternKinds][]uint8, len(tl.arities)),
		values: make([][patternKinds]hash.Domain, len(tl.arities)+1)}
	for k := range patternKinds {
		p.values[0][k] = leaf(k)
	}
	for l, a := range tl.arities {
		for k := range patternKinds {
			for try := uint64(0); ; try++ {
				r := draw(seed, tag+"/kids", uint64(l), uint64(k), try)
				kids := make([]uint8, a)
				for c := range kids {
					kids[c] = uint8(binary.LittleEndian.Uint16(r[2*c%32:]) % patternKinds)
				}
				if p.usable(l, k, kids) {
					p.kids[l][k] = kids
					break
				}
			}
			children := make([]hash.Domain, a)
			for c, kk := range p.kids[l][k] {
				children[c] = p.values[l][kk]
			}
			v, err := h.Node(children)
			if err != nil {
				return nil, fmt.Errorf("gen: %s level %d: %w", tag, l+1, err)
			}
			p.values[l+1][k] = v
		}
	}
	return p, nil
}

// usable says whether kids may be kind k's children at level l: not all
// alike, and not those of an earlier kind.
func (p *patternTree) usable(l, k int, kids []uint8) bool {
	alike := true
	for _, c := range kids[1:] {
		alike = alike && c == kids[0]
	}
	if alike {
		return false
	}
	for j := range k {
		if string(p.kids[l][j]) == string(kids) {
			return false
		}
	}
	return true
}

// kind is the kind of node idx of the level.
func (p *patternTree) kind(level int, idx uint64) uint8 {
	top := len(p.arities)
	var pos [64]uint8
	j := idx
	for m := level; m < top; m++ {
		a := uint64(p.arities[m])
		pos[m] = uint8(j % a)
		j /= a
	}
	var k uint8
	for m := top - 1; m >= level; m-- {
		k = p.kids[m][k][pos[m]]
	}
	return k
}

func (p *patternTree) node(level int, idx uint64) (hash.Domain, error) {
	return p.values[level][p.kind(level, idx)], nil
}

func (p *patternTree) Root() hash.Domain { return p.values[len(p.arities)][0] }

func (p *patternTree) Prove(i uint64) (*merkle.Proof, error) {
	return openLeaf(p.treeLevels, p.node, i)
}

// encodedTree is the new replica tree over old + data·rho, old a patterned
// replica tree and data a patterned tree D (binary, so its level below[l]
// lies under level l of the replica tree, node for node).
type encodedTree struct {
	treeLevels
	old, data  *patternTree
	blockShift int          // log2 of the nodes sharing one rho
	rhos       []fr.Element // by high bits
	memo       map[encKey]hash.Domain
	root       hash.Domain
}

// encKey names an encoded subtree: within one rho block by the kinds under
// it and the block, above that height by its index.
type encKey struct {
	level          uint8
	inBlock        bool
	oldKind, dKind uint8
	n              uint64 // the block, or the index
}

func newEncodedTree(info update.Info, tl treeLevels, old, data *patternTree, phi fr.Element) (*encodedTree, error) {
	e := &encodedTree{treeLevels: tl, old: old, data: data, blockShift: info.TreeDLevels - info.H,
		rhos: make([]fr.Element, 1<<info.H), memo: make(map[encKey]hash.Domain)}
	for high := range e.rhos {
		e.rhos[high] = update.Rho(phi, uint64(high))
	}
	// Every distinct subtree is hashed here, once; Prove then reads the memo.
	var err error
	if e.root, err = e.node(len(tl.arities), 0); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *encodedTree) node(level int, idx uint64) (hash.Domain, error) {
	b := e.below[level]
	key := encKey{level: uint8(level), n: idx}
	if b <= e.blockShift {
		key = encKey{level: uint8(level), inBlock: true, oldKind: e.old.kind(level, idx),
			dKind: e.data.kind(b, idx), n: idx << b >> e.blockShift}
	}
	if v, ok := e.memo[key]; ok {
		return v, nil
	}
	var v hash.Domain
	if level == 0 {
		o, err := e.old.values[0][key.oldKind].Element()
		if err != nil {
			return v, err
		}
		d, err := e.data.values[0][key.dKind].Element()
		if err != nil {
			return v, err
		}
		r := update.Encode(o, d, e.rhos[key.n])
		v = hash.DomainOf(&r)
	} else {
		a := uint64(e.arities[level-1])
		children := make([]hash.Domain, a)
		for c := range a {
			var err error
			if children[c], err = e.node(level-1, idx*a+c); err != nil {
				return v, err
			}
		}
		var err error
		if v, err = (merkle.Poseidon{}).Node(children); err != nil {
			return v, fmt.Errorf("gen: new replica tree level %d: %w", level, err)
		}
	}
	e.memo[key] = v
	return v, nil
}

func (e *encodedTree) Root() hash.Domain { return e.root }

func (e *encodedTree) Prove(i uint64) (*merkle.Proof, error) {
	return openLeaf(e.treeLevels, e.node, i)
}
