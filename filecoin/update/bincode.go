package update

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/cuzk-project/cuzk/filecoin/c1"
	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/hash/merkle"
)

// ChallengeProof is one challenge's openings (storage-proofs-update
// vanilla.rs ChallengeProof): the challenged node in the old replica tree,
// in the new data's tree D (a Single proof over the whole binary tree) and
// in the new replica tree.
type ChallengeProof struct {
	ROld, DNew, RNew c1.MerkleProof
}

// PartitionProof is one partition's vanilla proof (vanilla.rs
// PartitionProof), what rust-filecoin-proofs-api's
// generate_partition_proofs returns bincode-encoded and Curio sends to cuzk.
type PartitionProof struct {
	CommC hash.Domain
	// ApexLeaves (serde "apex_leafs") are the tree D nodes at ApexHeight
	// within the partition's chunk, left to right.
	ApexLeaves []hash.Domain
	Challenges []ChallengeProof
}

// The bincode 1.x layout (default options: fixed-width little-endian
// integers, u64 lengths, enums as a u32 variant index):
//
//	PartitionProof = comm_c [32] ‖ u64 n ‖ apex_leafs [32]×n ‖ u64 m ‖ ChallengeProof×m
//	ChallengeProof = MerkleProof(proof_r_old) ‖ MerkleProof(proof_d_new) ‖ MerkleProof(proof_r_new)
//	MerkleProof    = u32 variant ‖ Single: root ‖ leaf ‖ path
//	                              Sub:    base ‖ sub ‖ root ‖ leaf
//	                              Top:    base ‖ sub ‖ top ‖ root ‖ leaf
//	path           = u64 levels ‖ (u64 k ‖ hashes [32]×k ‖ u64 index)×levels
//
// Domains are 32 raw bytes: little-endian scalars for Poseidon, SHA-254
// digests (the top two bits clear) for tree D.

// treeShape is the expected layout of one kind of opening.
type treeShape struct {
	kind c1.ProofKind
	// base is the arity and level count of the base path; sub and top the
	// arities of the one-level sub and top paths (0: absent).
	baseArity, baseLevels int
	sub, top              int
}

func (s treeShape) levels() int {
	n := s.baseLevels
	if s.sub > 0 {
		n++
	}
	if s.top > 0 {
		n++
	}
	return n
}

// opening is one of a challenge proof's Merkle openings: its serde name,
// the proof, and the layout it must have.
type opening struct {
	name string
	m    *c1.MerkleProof
	sh   treeShape
}

// openings are c's openings in serialization order.
func (c *ChallengeProof) openings(treeR, treeD treeShape) [3]opening {
	return [3]opening{{"proof_r_old", &c.ROld, treeR}, {"proof_d_new", &c.DNew, treeD}, {"proof_r_new", &c.RNew, treeR}}
}

// shapes returns the layouts of the replica and tree D openings.
func (i Info) shapes() (treeR, treeD treeShape, err error) {
	if i.Nodes > math.MaxInt {
		return treeShape{}, treeShape{}, fmt.Errorf("%w: %d nodes", ErrUnknownProof, i.Nodes)
	}
	levels, err := i.TreeR.BaseLevels(int(i.Nodes))
	if err != nil {
		return treeShape{}, treeShape{}, fmt.Errorf("update: %s: tree R: %w", i.Name, err)
	}
	treeR = treeShape{kind: c1.KindOf(i.TreeR), baseArity: i.TreeR.Base, baseLevels: levels, sub: i.TreeR.Sub, top: i.TreeR.Top}
	treeD = treeShape{kind: c1.KindSingle, baseArity: 2, baseLevels: i.TreeDLevels}
	return treeR, treeD, nil
}

// DecodePartitionProof reads one bincode PartitionProof of the proof info
// describes. It accepts exactly the encodings MarshalBinary writes: the
// counts, variants, path lengths and arities of info's trees, every path
// index below its arity, every domain a canonical scalar (the circuit
// allocates each one), nothing after the proof. Errors wrap
// ErrBadVanillaProof and name the field and the byte offset.
func DecodePartitionProof(b []byte, info Info) (*PartitionProof, error) {
	shR, shD, err := info.shapes()
	if err != nil {
		return nil, err
	}
	d := &decoder{b: b}
	p := &PartitionProof{}
	if p.CommC, err = d.domain("comm_c"); err != nil {
		return nil, err
	}
	n, err := d.count("apex_leafs", info.ApexLeaves)
	if err != nil {
		return nil, err
	}
	p.ApexLeaves = make([]hash.Domain, n)
	for j := range p.ApexLeaves {
		if p.ApexLeaves[j], err = d.domain(fmt.Sprintf("apex_leafs[%d]", j)); err != nil {
			return nil, err
		}
	}
	if n, err = d.count("challenge_proofs", info.Challenges); err != nil {
		return nil, err
	}
	p.Challenges = make([]ChallengeProof, n)
	for j := range p.Challenges {
		c := &p.Challenges[j]
		for _, o := range c.openings(shR, shD) {
			if err := d.merkleProof(o.m, o.sh); err != nil {
				return nil, within(within(err, o.name), fmt.Sprintf("challenge_proofs[%d]", j))
			}
		}
	}
	if len(d.b) != d.off {
		return nil, bad("", "%d bytes after the proof (offset %d)", len(d.b)-d.off, d.off)
	}
	return p, nil
}

type decoder struct {
	b   []byte
	off int
}

func (d *decoder) take(n int, field string) ([]byte, error) {
	if len(d.b)-d.off < n {
		return nil, bad(field, "truncated at offset %d: %d bytes left, want %d", d.off, len(d.b)-d.off, n)
	}
	s := d.b[d.off : d.off+n]
	d.off += n
	return s, nil
}

func (d *decoder) u32(field string) (uint32, error) {
	s, err := d.take(4, field)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(s), nil
}

func (d *decoder) u64(field string) (uint64, error) {
	s, err := d.take(8, field)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(s), nil
}

// count reads a u64 length that must be want.
func (d *decoder) count(field string, want int) (int, error) {
	at := d.off
	n, err := d.u64(field)
	if err != nil {
		return 0, err
	}
	if n != uint64(want) {
		return 0, bad(field, "length %d at offset %d, want %d", n, at, want)
	}
	return want, nil
}

func (d *decoder) domain(field string) (hash.Domain, error) {
	at := d.off
	s, err := d.take(32, field)
	if err != nil {
		return hash.Domain{}, err
	}
	v := hash.Domain(s)
	if _, err := v.Element(); err != nil {
		return hash.Domain{}, bad(field, "%x at offset %d is not a canonical scalar", s, at)
	}
	return v, nil
}

func (d *decoder) merkleProof(m *c1.MerkleProof, sh treeShape) error {
	at := d.off
	v, err := d.u32("variant")
	if err != nil {
		return err
	}
	if v != uint32(sh.kind) {
		return bad("variant", "%d at offset %d, want %d (%s)", v, at, sh.kind, sh.kind)
	}
	// One backing array holds every sibling of the opening.
	siblings := make([]hash.Domain, 0, sh.baseLevels*(sh.baseArity-1)+max(sh.sub-1, 0)+max(sh.top-1, 0))
	*m = c1.MerkleProof{Kind: sh.kind}
	if sh.kind != c1.KindSingle {
		if m.Base, err = d.path("base", sh.baseArity, sh.baseLevels, &siblings); err != nil {
			return err
		}
		if m.Sub, err = d.path("sub", sh.sub, 1, &siblings); err != nil {
			return err
		}
		if sh.kind == c1.KindTop {
			if m.Top, err = d.path("top", sh.top, 1, &siblings); err != nil {
				return err
			}
		}
	}
	if m.Root, err = d.domain("root"); err != nil {
		return err
	}
	if m.Leaf, err = d.domain("leaf"); err != nil {
		return err
	}
	if sh.kind == c1.KindSingle {
		m.Base, err = d.path("path", sh.baseArity, sh.baseLevels, &siblings)
	}
	return err
}

// path reads an InclusionPath of levels elements of the given arity,
// appending the siblings to *backing (whose capacity is never exceeded, so
// the elements keep pointing into it).
func (d *decoder) path(field string, arity, levels int, backing *[]hash.Domain) ([]merkle.PathElement, error) {
	if _, err := d.count(field, levels); err != nil {
		return nil, err
	}
	path := make([]merkle.PathElement, levels)
	for l := range path {
		el := fmt.Sprintf("%s[%d]", field, l)
		if _, err := d.count(el+".hashes", arity-1); err != nil {
			return nil, err
		}
		start := len(*backing)
		for j := range arity - 1 {
			s, err := d.domain(fmt.Sprintf("%s.hashes[%d]", el, j))
			if err != nil {
				return nil, err
			}
			*backing = append(*backing, s)
		}
		at := d.off
		idx, err := d.u64(el + ".index")
		if err != nil {
			return nil, err
		}
		if idx >= uint64(arity) {
			return nil, bad(el+".index", "%d at offset %d, arity %d", idx, at, arity)
		}
		path[l] = merkle.PathElement{Index: int(idx), Siblings: (*backing)[start:len(*backing):len(*backing)]}
	}
	return path, nil
}

// MarshalBinary is p's bincode encoding, as rust-filecoin-proofs-api
// writes it. It fails only on a negative path index.
func (p *PartitionProof) MarshalBinary() ([]byte, error) {
	size := 32 + 8 + 32*len(p.ApexLeaves) + 8
	for j := range p.Challenges {
		for _, m := range p.Challenges[j].proofs() {
			size += 4 + 64
			for _, part := range parts(m) {
				size += 8
				for _, e := range part {
					size += 16 + 32*len(e.Siblings)
				}
			}
		}
	}
	b := make([]byte, 0, size)
	b = append(b, p.CommC[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(p.ApexLeaves)))
	for _, a := range p.ApexLeaves {
		b = append(b, a[:]...)
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(len(p.Challenges)))
	for j := range p.Challenges {
		for _, m := range p.Challenges[j].proofs() {
			var err error
			if b, err = appendMerkleProof(b, m); err != nil {
				return nil, fmt.Errorf("update: challenge_proofs[%d]: %w", j, err)
			}
		}
	}
	return b, nil
}

// proofs lists the openings in serde field order.
func (c *ChallengeProof) proofs() [3]*c1.MerkleProof {
	return [3]*c1.MerkleProof{&c.ROld, &c.DNew, &c.RNew}
}

// parts is a MerkleProof's paths by its kind, in serde field order.
func parts(m *c1.MerkleProof) [][]merkle.PathElement {
	switch m.Kind {
	case c1.KindSub:
		return [][]merkle.PathElement{m.Base, m.Sub}
	case c1.KindTop:
		return [][]merkle.PathElement{m.Base, m.Sub, m.Top}
	}
	return [][]merkle.PathElement{m.Base}
}

func appendMerkleProof(b []byte, m *c1.MerkleProof) ([]byte, error) {
	b = binary.LittleEndian.AppendUint32(b, uint32(m.Kind))
	ps := parts(m)
	if m.Kind == c1.KindSingle {
		b = append(b, m.Root[:]...)
		b = append(b, m.Leaf[:]...)
	}
	for _, part := range ps {
		b = binary.LittleEndian.AppendUint64(b, uint64(len(part)))
		for l, e := range part {
			if e.Index < 0 {
				return nil, fmt.Errorf("path level %d: negative index %d", l, e.Index)
			}
			b = binary.LittleEndian.AppendUint64(b, uint64(len(e.Siblings)))
			for _, s := range e.Siblings {
				b = append(b, s[:]...)
			}
			b = binary.LittleEndian.AppendUint64(b, uint64(e.Index))
		}
	}
	if m.Kind != c1.KindSingle {
		b = append(b, m.Root[:]...)
		b = append(b, m.Leaf[:]...)
	}
	return b, nil
}
