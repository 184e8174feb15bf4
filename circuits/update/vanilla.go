package update

import (
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	fupdate "github.com/cuzk-project/cuzk/filecoin/update"
	"github.com/cuzk-project/cuzk/hash"
	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
)

// ConfigFor is the partition circuit of a registered update proof.
func ConfigFor(info fupdate.Info) Config { return Config{Nodes: info.Nodes, TreeR: info.TreeR} }

// Blank is the partition of info's shape with zero values (see
// BlankConfig): what counting and parameter setup synthesize.
func Blank(info fupdate.Info) *Partition {
	p := BlankConfig(ConfigFor(info))
	p.H = info.H
	return p
}

// NewPartition takes the circuit's values from partition k's vanilla proof
// and comms (circuit.rs PublicInputs::new, PrivateInputs::new): the roots
// of trees R_old and R_new from challenge 0's openings, the partition path
// from the top of challenge 0's tree D opening, and per challenge the
// leaves and siblings the circuit allocates. Shapes and canonical values
// are checked, and that every challenge's tree D opening ends in the same
// partition path (the reference asserts it); the hashes are
// fupdate.Partition.Verify's. Errors wrap fupdate.ErrBadVanillaProof.
func NewPartition(v *fupdate.Partition) (*Partition, error) {
	p, err := newPartition(v)
	if err != nil {
		return nil, fmt.Errorf("%w: partition %d: %w", fupdate.ErrBadVanillaProof, v.K, err)
	}
	return p, nil
}

func newPartition(v *fupdate.Partition) (*Partition, error) {
	cfg := ConfigFor(v.Info)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	vp := v.Proof
	if vp == nil || len(vp.Challenges) == 0 {
		return nil, fmt.Errorf("no challenge proofs")
	}
	p := &Partition{Config: cfg, K: v.K, H: v.Info.H}
	var err error
	for _, f := range []struct {
		name string
		d    hash.Domain
		e    *fr.Element
	}{
		{"comm_r_old", v.CommROld, &p.CommROld}, {"comm_d_new", v.CommDNew, &p.CommDNew},
		{"comm_r_new", v.CommRNew, &p.CommRNew}, {"comm_c", vp.CommC, &p.CommC},
		{"root_r_old", vp.Challenges[0].ROld.Root, &p.RootROld}, {"root_r_new", vp.Challenges[0].RNew.Root, &p.RootRNew},
	} {
		if *f.e, err = f.d.Element(); err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	if p.ApexLeaves, err = elements(vp.ApexLeaves); err != nil {
		return nil, fmt.Errorf("apex leaves: %w", err)
	}

	below, top := cfg.levelsToApex(), cfg.challengeBits()-cfg.partitionBits()
	var partitionPath [][]fr.Element
	p.Challenges = make([]Challenge, len(vp.Challenges))
	for i := range vp.Challenges {
		cp := &vp.Challenges[i]
		ch := &p.Challenges[i]
		if ch.LeafROld, err = cp.ROld.Leaf.Element(); err != nil {
			return nil, fmt.Errorf("challenge %d: leaf_r_old: %w", i, err)
		}
		if ch.LeafDNew, err = cp.DNew.Leaf.Element(); err != nil {
			return nil, fmt.Errorf("challenge %d: leaf_d_new: %w", i, err)
		}
		if ch.PathROld, err = siblings(cp.ROld.Native().Path); err != nil {
			return nil, fmt.Errorf("challenge %d: tree R_old: %w", i, err)
		}
		if ch.PathRNew, err = siblings(cp.RNew.Native().Path); err != nil {
			return nil, fmt.Errorf("challenge %d: tree R_new: %w", i, err)
		}
		d, err := siblings(cp.DNew.Native().Path)
		if err != nil {
			return nil, fmt.Errorf("challenge %d: tree D: %w", i, err)
		}
		if len(d) != cfg.challengeBits() {
			return nil, fmt.Errorf("%w: challenge %d: tree D path of %d levels, want %d", ErrShape, i, len(d), cfg.challengeBits())
		}
		for l, sib := range d {
			if len(sib) != 1 {
				return nil, fmt.Errorf("%w: challenge %d: tree D level %d has %d siblings", ErrShape, i, l, len(sib))
			}
		}
		if i == 0 {
			partitionPath = d[top:]
			for _, sib := range partitionPath {
				p.PartitionPath = append(p.PartitionPath, sib[0])
			}
		} else if !slices.EqualFunc(d[top:], partitionPath, slices.Equal) {
			return nil, fmt.Errorf("challenge %d: tree D siblings above the apex tree differ from challenge 0's", i)
		}
		for _, sib := range d[:below] {
			ch.PathDNew = append(ch.PathDNew, sib[0])
		}
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

func elements(ds []hash.Domain) ([]fr.Element, error) {
	out := make([]fr.Element, len(ds))
	for i := range ds {
		var err error
		if out[i], err = ds[i].Element(); err != nil {
			return nil, fmt.Errorf("%d: %w", i, err)
		}
	}
	return out, nil
}

func siblings(path []hmerkle.PathElement) ([][]fr.Element, error) {
	out := make([][]fr.Element, len(path))
	for l, e := range path {
		var err error
		if out[l], err = elements(e.Siblings); err != nil {
			return nil, fmt.Errorf("level %d sibling %w", l, err)
		}
	}
	return out, nil
}
