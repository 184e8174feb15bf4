package post

import (
	"fmt"

	"github.com/cuzk-project/cuzk/filecoin/c1"
	"github.com/cuzk-project/cuzk/hash"
)

// SectorProof is one sector's vanilla proof as Curio sends it: filecoin-proofs'
// FallbackPoStSectorProof (sector_id, comm_r, and a storage-proofs-post
// fallback Proof) whose Proof holds the one SectorProof every vanilla proof
// generator writes (inclusion_proofs, comm_c, comm_r_last).
//
// Inclusion are the openings of tree R in challenge order: 66 for
// WinningPoSt, 10 for WindowPoSt. comm_r = Poseidon₂(comm_c, comm_r_last)
// and every opening hashes up to comm_r_last.
type SectorProof struct {
	SectorID         uint64
	CommR            hash.Domain
	Inclusion        []c1.MerkleProof
	CommC, CommRLast hash.Domain
}

// CheckShape checks s against the registered proof: VanillaChallenges
// openings, each of tree R's variant (Single, Sub or Top), levels and
// arities with every index below its arity, and every value the circuit
// reads as a field element (comm_r, comm_c, comm_r_last, leaves, siblings,
// roots) canonical. It hashes nothing: Partition.Verify does.
func (s *SectorProof) CheckShape(info Info) error {
	if n := len(s.Inclusion); n != info.VanillaChallenges() {
		return bad("sector %d: inclusion_proofs: %d, want %d", s.SectorID, n, info.VanillaChallenges())
	}
	for _, f := range []struct {
		name string
		d    *hash.Domain
	}{{"comm_r", &s.CommR}, {"comm_c", &s.CommC}, {"comm_r_last", &s.CommRLast}} {
		if err := canonical(f.d); err != nil {
			return bad("sector %d: %s: %v", s.SectorID, f.name, err)
		}
	}
	sh, err := shapeOf(info)
	if err != nil {
		return err
	}
	for n := range s.Inclusion {
		if err := sh.check(&s.Inclusion[n]); err != nil {
			return bad("sector %d: inclusion_proofs[%d]%v", s.SectorID, n, err)
		}
	}
	return nil
}

// treeShape is what every opening of tree R looks like for one sector
// size: the variant, and the levels and arity of each of its paths.
type treeShape struct {
	kind           c1.ProofKind
	baseLevels     int
	base, sub, top int
}

func shapeOf(info Info) (treeShape, error) {
	if info.Nodes == 0 || info.Nodes > 1<<40 {
		return treeShape{}, bad("%s: unusable sector of %d nodes", info.Name, info.Nodes)
	}
	levels, err := info.TreeR.BaseLevels(int(info.Nodes))
	if err != nil {
		return treeShape{}, bad("%s: tree R: %v", info.Name, err)
	}
	return treeShape{kind: c1.KindOf(info.TreeR), baseLevels: levels,
		base: info.TreeR.Base, sub: info.TreeR.Sub, top: info.TreeR.Top}, nil
}

// shapeError is a rejection inside one opening; it prints as the field
// path after the opening's name (".base_proof[3].hashes: …").
type shapeError struct{ field, msg string }

func (e *shapeError) Error() string { return e.field + ": " + e.msg }

func (t *treeShape) check(m *c1.MerkleProof) error {
	if m.Kind != t.kind {
		return &shapeError{"", fmt.Sprintf("a %s proof, want %s", m.Kind, t.kind)}
	}
	type part struct {
		name          string
		path          []c1.PathElement
		levels, arity int
	}
	parts := []part{{".path", m.Base, t.baseLevels, t.base}}
	if t.kind >= c1.KindSub {
		parts = []part{{".base_proof", m.Base, t.baseLevels, t.base}, {".sub_proof", m.Sub, 1, t.sub}}
	}
	if t.kind == c1.KindTop {
		parts = append(parts, part{".top_proof", m.Top, 1, t.top})
	}
	if (t.kind < c1.KindSub && len(m.Sub) != 0) || (t.kind < c1.KindTop && len(m.Top) != 0) {
		return &shapeError{"", fmt.Sprintf("a %s proof with paths of layers it does not have", t.kind)}
	}
	for _, p := range parts {
		if len(p.path) != p.levels {
			return &shapeError{p.name, fmt.Sprintf("%d levels, want %d", len(p.path), p.levels)}
		}
		for l, e := range p.path {
			at := fmt.Sprintf("%s[%d]", p.name, l)
			if len(e.Siblings) != p.arity-1 {
				return &shapeError{at + ".hashes", fmt.Sprintf("%d siblings, want %d", len(e.Siblings), p.arity-1)}
			}
			if e.Index < 0 || e.Index >= p.arity {
				return &shapeError{at + ".index", fmt.Sprintf("%d, want < %d", e.Index, p.arity)}
			}
			for j := range e.Siblings {
				if err := canonical(&e.Siblings[j]); err != nil {
					return &shapeError{fmt.Sprintf("%s.hashes[%d]", at, j), err.Error()}
				}
			}
		}
	}
	if err := canonical(&m.Root); err != nil {
		return &shapeError{".root", err.Error()}
	}
	if err := canonical(&m.Leaf); err != nil {
		return &shapeError{".leaf", err.Error()}
	}
	return nil
}

// canonical checks that d, read little-endian, is below the scalar field
// modulus, as rust-fil-proofs requires before it turns a domain into a
// scalar.
func canonical(d *hash.Domain) error {
	if _, err := d.Element(); err != nil {
		return fmt.Errorf("%x is not a canonical field element", d[:])
	}
	return nil
}
