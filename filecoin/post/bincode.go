package post

import (
	"encoding/binary"
	"fmt"

	"github.com/cuzk-project/cuzk/filecoin/c1"
	"github.com/cuzk-project/cuzk/hash"
)

// The bincode 1.x form of a FallbackPoStSectorProof, as
// rust-filecoin-proofs-api post.rs writes it with bincode::serialize
// (little-endian fixed-width integers, u64 lengths, u32 enum variants):
//
//	sector_id u64 ‖ comm_r [32]
//	‖ u64 sectors (= 1) ‖ u64 n ‖ n × MerkleProof ‖ comm_c [32] ‖ comm_r_last [32]
//
// MerkleProof = u32 variant, then its fields in declaration order:
// 0 Single {root, leaf, path}, 1 Sub {base_proof, sub_proof, root, leaf},
// 2 Top {base_proof, sub_proof, top_proof, root, leaf}; an InclusionPath is
// u64 m ‖ m × (u64 k ‖ k hashes [32] ‖ index u64).

// Decoder limits: far above any registered proof (66 openings; 11 levels of
// arity ≤ 8), and they bound what a hostile length can make us allocate
// before the bytes run out.
const (
	maxOpenings = 1024
	maxLevels   = 64
	maxArity    = 16
)

// DecodeSectorProof reads one vanilla sector proof from its bincode bytes.
// It checks the structure only (one inner sector proof, lengths within the
// input, every path index below its level's arity, no trailing bytes);
// CheckShape checks it against a registered proof. Errors wrap
// ErrBadVanillaProof and name the field and the byte offset. bincode 1.x
// would ignore trailing bytes; a vanilla proof followed by anything is
// refused here, so that MarshalBinary gives the input back.
func DecodeSectorProof(b []byte) (*SectorProof, error) {
	d := binDecoder{b: b, slab: make([]hash.Domain, 0, len(b)/32), opening: -1, level: -1}
	s := &SectorProof{}
	s.SectorID = d.u64("sector_id")
	s.CommR = d.domain("comm_r")
	if n := d.u64("vanilla_proof.sectors"); d.err == nil && n != 1 {
		d.fail("vanilla_proof.sectors", "%d sector proofs, want 1", n)
	}
	n := d.length("vanilla_proof.sectors[0].inclusion_proofs", maxOpenings, 4+8+64)
	if d.err == nil {
		s.Inclusion = make([]c1.MerkleProof, n)
	}
	for i := 0; i < n && d.err == nil; i++ {
		d.opening = i
		d.merkle(&s.Inclusion[i])
	}
	d.opening = -1
	s.CommC = d.domain("vanilla_proof.sectors[0].comm_c")
	s.CommRLast = d.domain("vanilla_proof.sectors[0].comm_r_last")
	if d.err == nil && d.off != len(b) {
		d.fail("", "%d bytes after the proof", len(b)-d.off)
	}
	if d.err != nil {
		return nil, d.err
	}
	return s, nil
}

// binDecoder reads bincode from b; after the first failure every read
// returns zero values and err keeps the failure. opening, variant, part and
// level say where in an opening it is, so that a failure names its field
// without any name being formatted on the way.
type binDecoder struct {
	b    []byte
	off  int
	err  error
	slab []hash.Domain // every sibling hash, carved into path elements

	opening, level int    // −1: none
	variant, part  string // "": none
}

func (d *binDecoder) fail(item, format string, args ...any) {
	if d.err != nil {
		return
	}
	field := item
	if d.opening >= 0 {
		field = fmt.Sprintf("vanilla_proof.sectors[0].inclusion_proofs[%d]", d.opening)
		for _, s := range []string{d.variant, d.part} {
			if s != "" {
				field += "." + s
			}
		}
		if d.level >= 0 {
			field += fmt.Sprintf(".path[%d]", d.level)
		}
		if item != "" {
			field += "." + item
		}
	}
	if field != "" {
		field += ": "
	}
	d.err = bad("%soffset %d: %s", field, d.off, fmt.Sprintf(format, args...))
}

func (d *binDecoder) take(item string, n int) []byte {
	if d.err != nil {
		return nil
	}
	if len(d.b)-d.off < n {
		d.fail(item, "%d bytes left, want %d", len(d.b)-d.off, n)
		return nil
	}
	p := d.b[d.off : d.off+n]
	d.off += n
	return p
}

func (d *binDecoder) u64(item string) uint64 {
	if p := d.take(item, 8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (d *binDecoder) u32(item string) uint32 {
	if p := d.take(item, 4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (d *binDecoder) domain(item string) (v hash.Domain) {
	if p := d.take(item, 32); p != nil {
		copy(v[:], p)
	}
	return v
}

// length reads a u64 length of at most max items of at least minSize bytes
// each, so that the items fit in what is left.
func (d *binDecoder) length(item string, max, minSize int) int {
	at := d.off
	n := d.u64(item)
	if d.err != nil {
		return 0
	}
	if n > uint64(max) || n > uint64(len(d.b)-d.off)/uint64(minSize) {
		d.off = at
		d.fail(item, "length %d: more than %d or than the %d bytes left hold", n, max, len(d.b)-d.off-8)
		return 0
	}
	return int(n)
}

func (d *binDecoder) merkle(m *c1.MerkleProof) {
	d.variant, d.part = "", ""
	at := d.off
	v := d.u32("")
	if d.err != nil {
		return
	}
	if v > uint32(c1.KindTop) {
		d.off = at
		d.fail("", "variant %d, want 0 (Single), 1 (Sub) or 2 (Top)", v)
		return
	}
	m.Kind = c1.ProofKind(v)
	d.variant = m.Kind.String()
	if m.Kind == c1.KindSingle {
		m.Root = d.domain("root")
		m.Leaf = d.domain("leaf")
		m.Base = d.path("path")
		return
	}
	m.Base = d.path("base_proof")
	m.Sub = d.path("sub_proof")
	if m.Kind == c1.KindTop {
		m.Top = d.path("top_proof")
	}
	m.Root = d.domain("root")
	m.Leaf = d.domain("leaf")
}

func (d *binDecoder) path(part string) []c1.PathElement {
	d.part = part
	defer func() {
		if d.err == nil {
			d.part, d.level = "", -1
		}
	}()
	n := d.length("path", maxLevels, 16)
	if d.err != nil {
		return nil
	}
	path := make([]c1.PathElement, n)
	for l := range path {
		d.level = l
		k := d.length("hashes", maxArity-1, 32)
		start := len(d.slab)
		for range k {
			d.slab = append(d.slab, d.domain("hashes"))
		}
		at := d.off
		idx := d.u64("index")
		if d.err != nil {
			return nil
		}
		if idx > uint64(k) {
			d.off = at
			d.fail("index", "%d among %d children", idx, k+1)
			return nil
		}
		path[l] = c1.PathElement{Index: int(idx), Siblings: d.slab[start:len(d.slab):len(d.slab)]}
	}
	return path
}

// MarshalBinary writes s in the bincode form DecodeSectorProof reads, as
// rust-filecoin-proofs-api writes it.
func (s *SectorProof) MarshalBinary() ([]byte, error) {
	size := 8 + 32 + 8 + 8 + 32 + 32
	for i := range s.Inclusion {
		paths, err := written(&s.Inclusion[i])
		if err != nil {
			return nil, fmt.Errorf("post: inclusion proof %d: %w", i, err)
		}
		size += 4 + 64
		for _, p := range paths {
			size += 8
			for _, e := range p {
				size += 8 + 32*len(e.Siblings) + 8
			}
		}
	}
	w := binWriter{b: make([]byte, 0, size)}
	w.u64(s.SectorID)
	w.domain(&s.CommR)
	w.u64(1)
	w.u64(uint64(len(s.Inclusion)))
	for i := range s.Inclusion {
		m := &s.Inclusion[i]
		paths, _ := written(m)
		w.u32(uint32(m.Kind))
		if m.Kind == c1.KindSingle {
			w.domain(&m.Root)
			w.domain(&m.Leaf)
		}
		for _, p := range paths {
			w.path(p)
		}
		if m.Kind != c1.KindSingle {
			w.domain(&m.Root)
			w.domain(&m.Leaf)
		}
	}
	w.domain(&s.CommC)
	w.domain(&s.CommRLast)
	return w.b, nil
}

// written is the paths m's variant serializes, in order; an opening with
// paths its variant lacks, or an index outside its level, has no bincode
// form.
func written(m *c1.MerkleProof) ([][]c1.PathElement, error) {
	var paths [][]c1.PathElement
	switch m.Kind {
	case c1.KindSingle:
		paths = [][]c1.PathElement{m.Base}
	case c1.KindSub:
		paths = [][]c1.PathElement{m.Base, m.Sub}
	case c1.KindTop:
		paths = [][]c1.PathElement{m.Base, m.Sub, m.Top}
	default:
		return nil, fmt.Errorf("variant %s", m.Kind)
	}
	if (m.Kind < c1.KindSub && len(m.Sub) != 0) || (m.Kind < c1.KindTop && len(m.Top) != 0) {
		return nil, fmt.Errorf("a %s proof with paths of layers it does not have", m.Kind)
	}
	for _, p := range paths {
		for _, e := range p {
			if e.Index < 0 || e.Index > len(e.Siblings) {
				return nil, fmt.Errorf("index %d among %d children", e.Index, len(e.Siblings)+1)
			}
		}
	}
	return paths, nil
}

type binWriter struct{ b []byte }

func (w *binWriter) u64(v uint64)          { w.b = binary.LittleEndian.AppendUint64(w.b, v) }
func (w *binWriter) u32(v uint32)          { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *binWriter) domain(d *hash.Domain) { w.b = append(w.b, d[:]...) }

func (w *binWriter) path(p []c1.PathElement) {
	w.u64(uint64(len(p)))
	for _, e := range p {
		w.u64(uint64(len(e.Siblings)))
		for j := range e.Siblings {
			w.domain(&e.Siblings[j])
		}
		w.u64(uint64(e.Index))
	}
}
