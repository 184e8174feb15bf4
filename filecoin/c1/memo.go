package c1

import (
	"sync"

	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/hash/merkle"
)

// maxMemoArity is the widest node the memo keeps (trees C and R are 8-ary;
// tree D binary).
const maxMemoArity = 8

// nodeMemo remembers, for each tree node position hashed, the children
// hashed there and their parent, so that the openings of one C1 that share
// a node (c_x and its nearby DRG parents low in the tree, every opening near
// the root) hash it once. A cached parent is used only for exactly the same
// children, so every opening is still checked in full, siblings included:
// the circuit hashes each path with its own siblings. Safe for concurrent
// use.
type nodeMemo struct {
	shards [64]memoShard
}

type memoShard struct {
	mu sync.Mutex
	m  map[memoKey]*memoEntry
}

// memoKey is a node position: the tree, the level above the leaves and the
// node's index within that level.
type memoKey struct {
	tree  uint8
	level uint8
	index uint64
}

type memoEntry struct {
	children [maxMemoArity]hash.Domain
	n        int
	parent   hash.Domain
}

func (mm *nodeMemo) shard(k memoKey) *memoShard {
	return &mm.shards[(k.index*0x9e3779b97f4a7c15+uint64(k.level)<<8+uint64(k.tree))>>58]
}

// node hashes children at position k with h, from the memo when it holds
// the same children there.
func (mm *nodeMemo) node(h merkle.Hasher, k memoKey, children []hash.Domain) (hash.Domain, error) {
	if len(children) > maxMemoArity {
		return h.Node(children)
	}
	s := mm.shard(k)
	s.mu.Lock()
	e := s.m[k]
	s.mu.Unlock()
	if e != nil && e.n == len(children) && [maxMemoArity]hash.Domain(e.children[:]) == childrenArray(children) {
		return e.parent, nil
	}
	parent, err := h.Node(children)
	if err != nil {
		return hash.Domain{}, err
	}
	if e == nil {
		e = &memoEntry{children: childrenArray(children), n: len(children), parent: parent}
		s.mu.Lock()
		if s.m == nil {
			s.m = make(map[memoKey]*memoEntry)
		}
		if s.m[k] == nil {
			s.m[k] = e
		}
		s.mu.Unlock()
	}
	return parent, nil
}

func childrenArray(children []hash.Domain) (a [maxMemoArity]hash.Domain) {
	copy(a[:], children)
	return a
}

// root hashes m's leaf up its path (base, sub, top) in tree `tree` with h.
func (mm *nodeMemo) root(h merkle.Hasher, tree uint8, m *MerkleProof) (hash.Domain, error) {
	cur := m.Leaf
	idx := m.LeafIndex()
	var buf [maxMemoArity]hash.Domain
	level := 0
	for _, part := range [3][]PathElement{m.Base, m.Sub, m.Top} {
		for _, e := range part {
			a := e.Arity()
			if e.Index < 0 || e.Index >= a {
				return hash.Domain{}, bad("level %d: index %d outside [0, %d)", level, e.Index, a)
			}
			var children []hash.Domain
			if a <= maxMemoArity {
				children = buf[:0]
			}
			children = append(children, e.Siblings[:e.Index]...)
			children = append(children, cur)
			children = append(children, e.Siblings[e.Index:]...)
			idx /= uint64(a)
			next, err := mm.node(h, memoKey{tree: tree, level: uint8(level), index: idx}, children)
			if err != nil {
				return hash.Domain{}, bad("level %d: %v", level, err)
			}
			cur = next
			level++
		}
	}
	return cur, nil
}
