package merkle

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	"github.com/cuzk-project/cuzk/gadgets/multipack"
	"github.com/cuzk-project/cuzk/gadgets/num"
	"github.com/cuzk-project/cuzk/gadgets/poseidon"
	"github.com/cuzk-project/cuzk/gadgets/sha256"
	"github.com/cuzk-project/cuzk/hash/merkle"
	native "github.com/cuzk-project/cuzk/hash/poseidon"
	"github.com/cuzk-project/cuzk/r1cs"
)

// MaxArity bounds a path level's arity (Filecoin trees use 2, 4 and 8; the
// generic insertion costs arity·(arity − 1) rows).
const MaxArity = 16

// ErrPath reports a path the circuit cannot be built from.
var ErrPath = errors.New("merkle: bad path")

// NodeHasher is a tree's node hash in the circuit (filecoin-hashers
// HashFunction::hash_multi_leaf_circuit) with its native twin.
type NodeHasher interface {
	HashNode(cs r1cs.ConstraintSystem, children []num.AllocatedNum, height int) (num.AllocatedNum, error)
	Native() merkle.Hasher
}

// Poseidon hashes a level with Poseidon of the level's arity and the
// MerkleTree tag (trees C and R).
type Poseidon struct{}

func (Poseidon) HashNode(cs r1cs.ConstraintSystem, children []num.AllocatedNum, _ int) (num.AllocatedNum, error) {
	c, err := native.MerkleTree(len(children))
	if err != nil {
		return num.AllocatedNum{}, err
	}
	return poseidon.Hash(cs, children, c)
}

func (Poseidon) Native() merkle.Hasher { return merkle.Poseidon{} }

// Sha254 hashes a level with SHA-254 over the children's 256-bit
// little-endian decompositions (tree D).
type Sha254 struct{}

func (Sha254) HashNode(cs r1cs.ConstraintSystem, children []num.AllocatedNum, _ int) (num.AllocatedNum, error) {
	return sha256.HashMultiLeaf(cs, children), nil
}

func (Sha254) Native() merkle.Hasher { return merkle.Sha254{} }

// Root is storage-proofs-core's Root (gadgets/variables.rs): a value the
// circuit allocates where the reference does, or a number the caller has
// already allocated.
type Root struct {
	Var *num.AllocatedNum
	Val fr.Element
}

// RootVal is a value to allocate.
func RootVal(v fr.Element) Root { return Root{Val: v} }

// RootVar is an allocated number.
func RootVar(n num.AllocatedNum) Root { return Root{Var: &n} }

func (r Root) allocated(cs r1cs.ConstraintSystem) num.AllocatedNum {
	if r.Var != nil {
		return *r.Var
	}
	return num.Alloc(cs, r.Val)
}

// PathElement is one level of a path: the node's position among the
// level's children and the other children in order.
type PathElement struct {
	Index    int
	Siblings []fr.Element
}

// PathFromProof converts a native inclusion proof: its path, leaf and root
// as field elements.
func PathFromProof(p *merkle.Proof) (path []PathElement, leaf, root fr.Element, err error) {
	if leaf, err = p.Leaf.Element(); err != nil {
		return nil, leaf, root, fmt.Errorf("%w: leaf: %w", ErrPath, err)
	}
	if root, err = p.Root.Element(); err != nil {
		return nil, leaf, root, fmt.Errorf("%w: root: %w", ErrPath, err)
	}
	path = make([]PathElement, len(p.Path))
	for l, e := range p.Path {
		path[l] = PathElement{Index: e.Index, Siblings: make([]fr.Element, len(e.Siblings))}
		for i := range e.Siblings {
			if path[l].Siblings[i], err = e.Siblings[i].Element(); err != nil {
				return nil, leaf, root, fmt.Errorf("%w: level %d sibling %d: %w", ErrPath, l, i, err)
			}
		}
	}
	return path, leaf, root, nil
}

// PoRCircuit is storage-proofs-core's PoRCircuit: the inclusion of Value
// under Root along Path, whose index bits become public inputs (packed),
// and whose root is inputized unless Private.
type PoRCircuit struct {
	Hasher  NodeHasher
	Value   Root
	Path    []PathElement
	Root    Root
	Private bool

	// CheckRoot, when set, is given the value of the root the path hashes
	// to, before the constraint that it equals Root: an error from it ends
	// the synthesis, so that a witness whose path does not reach its root
	// fails with what is wrong, instead of leaving an unsatisfied row
	// behind (the hashes are then computed once, here, not also by a
	// native check beforehand). It has no effect on the constraints.
	CheckRoot func(computed fr.Element) error
}

// NewPoRCircuit builds the circuit of a native proof with its values.
func NewPoRCircuit(h NodeHasher, p *merkle.Proof, private bool) (*PoRCircuit, error) {
	path, leaf, root, err := PathFromProof(p)
	if err != nil {
		return nil, err
	}
	return &PoRCircuit{Hasher: h, Value: RootVal(leaf), Path: path, Root: RootVal(root), Private: private}, nil
}

// indexBits returns log2(arity), or an error when arity is not a power of
// two ≥ 2 or index is out of range.
func indexBits(l, arity, index int) (int, error) {
	if arity < 2 || arity > MaxArity || arity&(arity-1) != 0 {
		return 0, fmt.Errorf("%w: level %d arity %d is not a power of two in [2, %d]", ErrPath, l, arity, MaxArity)
	}
	if index < 0 || index >= arity {
		return 0, fmt.Errorf("%w: level %d index %d out of range [0, %d)", ErrPath, l, index, arity)
	}
	return bits.TrailingZeros(uint(arity)), nil
}

// ascend hashes cur up the path (por.rs SubPath::synthesize for every
// layer): per level it allocates the index bits, then the siblings, inserts
// and hashes. It returns the computed root and all index bits in order.
func ascend(cs r1cs.ConstraintSystem, h NodeHasher, cur num.AllocatedNum, path []PathElement) (num.AllocatedNum, []boolean.Boolean, error) {
	var pathBits []boolean.Boolean
	for l, e := range path {
		nb, err := indexBits(l, len(e.Siblings)+1, e.Index)
		if err != nil {
			return cur, nil, err
		}
		idx := make([]boolean.Boolean, nb)
		for i := range idx {
			idx[i] = boolean.Is(boolean.Alloc(cs, (e.Index>>uint(i))&1 == 1))
		}
		pathBits = append(pathBits, idx...)
		sib := make([]num.AllocatedNum, len(e.Siblings))
		for i := range sib {
			sib[i] = num.Alloc(cs, e.Siblings[i])
		}
		children, err := Insert(cs, cur, idx, sib)
		if err != nil {
			return cur, nil, fmt.Errorf("level %d: %w", l, err)
		}
		if cur, err = h.HashNode(cs, children, l); err != nil {
			return cur, nil, fmt.Errorf("merkle: level %d hash: %w", l, err)
		}
	}
	return cur, pathBits, nil
}

// Synthesize writes the circuit to cs (por.rs PoRCircuit::synthesize).
func (c *PoRCircuit) Synthesize(cs r1cs.ConstraintSystem) error {
	if c.Hasher == nil {
		return fmt.Errorf("%w: no node hasher", ErrPath)
	}
	for l, e := range c.Path {
		if _, err := indexBits(l, len(e.Siblings)+1, e.Index); err != nil {
			return err
		}
	}
	value := c.Value.allocated(cs)
	computed, pathBits, err := ascend(cs, c.Hasher, value, c.Path)
	if err != nil {
		return err
	}
	if c.CheckRoot != nil {
		if err := c.CheckRoot(computed.Value); err != nil {
			return err
		}
	}
	multipack.PackIntoInputs(cs, pathBits)
	rt := c.Root.allocated(cs)
	// constraint::equal: computed · ONE = rt
	cs.Enforce(computed.LC(), r1cs.LinearCombination{{Var: r1cs.One, Coeff: one}}, rt.LC())
	if !c.Private {
		rt.Inputize(cs)
	}
	return nil
}

// NoChallengeInput is por.rs por_no_challenge_input: the inclusion of leaf
// under root along path with caller-allocated challenge bits (little-endian,
// consumed log2(arity) per level, all of them) and siblings; no public
// input is added. It ends with computed root · ONE = root.
func NoChallengeInput(cs r1cs.ConstraintSystem, h NodeHasher, challengeBits []boolean.AllocatedBit, leaf num.AllocatedNum, path [][]num.AllocatedNum, root num.AllocatedNum) error {
	need := 0
	for l, sib := range path {
		nb, err := indexBits(l, len(sib)+1, 0)
		if err != nil {
			return err
		}
		need += nb
	}
	if need != len(challengeBits) {
		return fmt.Errorf("%w: %d challenge bits, path uses %d", ErrPath, len(challengeBits), need)
	}
	cur := leaf
	used := 0
	for l, sib := range path {
		nb := bits.TrailingZeros(uint(len(sib) + 1))
		idx := make([]boolean.Boolean, nb)
		for i := range idx {
			idx[i] = boolean.Is(challengeBits[used+i])
		}
		used += nb
		children, err := Insert(cs, cur, idx, sib)
		if err != nil {
			return fmt.Errorf("level %d: %w", l, err)
		}
		if cur, err = h.HashNode(cs, children, l); err != nil {
			return fmt.Errorf("merkle: level %d hash: %w", l, err)
		}
	}
	cs.Enforce(cur.LC(), r1cs.LinearCombination{{Var: r1cs.One, Coeff: one}}, root.LC())
	return nil
}
