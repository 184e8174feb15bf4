package post

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	fpost "github.com/cuzk-project/cuzk/filecoin/post"
	gmerkle "github.com/cuzk-project/cuzk/gadgets/merkle"
	"github.com/cuzk-project/cuzk/hash"
)

// ConfigFor is the circuit of a registered PoSt proof: SectorCount circuit
// sectors of Challenges challenges (WinningPoSt 66 × 1, WindowPoSt the
// partition's sectors × 10). Window V1 and V1_1 of one size share it.
func ConfigFor(info fpost.Info) Config {
	return Config{Nodes: info.Nodes, TreeR: info.TreeR, Sectors: info.SectorCount, Challenges: info.Challenges}
}

// Blank is the partition of info's shape with zero values (see
// BlankConfig): what counting and parameter setup synthesize.
func Blank(info fpost.Info) *Partition { return BlankConfig(ConfigFor(info)) }

// NewPartition takes the circuit's values from a partition's vanilla
// proofs (compound.rs circuit, circuit.rs Sector::circuit): per circuit
// sector comm_r, comm_c, comm_r_last and each opening's leaf and path. The
// repeated sectors of a short WindowPoSt partition are not converted: the
// circuit repeats the last given one. Shapes and canonical values are
// checked, and that every opening opens the leaf its challenge names (the
// path is the public input). The openings' paths are hashed by the
// circuit's synthesis, which fails with fpost.Partition.CheckRoot's error
// where one does not reach comm_r_last (CheckRoot); the other hashes are
// fpost.Partition.VerifyUnhashed's. Errors wrap fpost.ErrBadVanillaProof.
func NewPartition(v *fpost.Partition) (*Partition, error) {
	cfg := ConfigFor(v.Info)
	if v.Given < 1 || v.Given > len(v.Sectors) || len(v.Challenges) < v.Given {
		return nil, fmt.Errorf("%w: %d given sectors of %d, %d challenge lists",
			fpost.ErrBadVanillaProof, v.Given, len(v.Sectors), len(v.Challenges))
	}
	p := &Partition{Config: cfg, Sectors: make([]Sector, v.Given)}
	for i := range p.Sectors {
		s, err := newSector(&v.Sectors[i], v.Challenges[i])
		if err != nil {
			return nil, fmt.Errorf("%w: circuit sector %d (sector %d): %w", fpost.ErrBadVanillaProof, i, v.Sectors[i].SectorID, err)
		}
		p.Sectors[i] = s
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", fpost.ErrBadVanillaProof, err)
	}
	p.CheckRoot = func(i, j int, root fr.Element) error { return v.CheckRoot(i, j, hash.DomainOf(&root)) }
	return p, nil
}

func newSector(v *fpost.SectorProof, challenges []uint64) (Sector, error) {
	var s Sector
	var err error
	for _, f := range []struct {
		name string
		d    hash.Domain
		e    *fr.Element
	}{{"comm_r", v.CommR, &s.CommR}, {"comm_c", v.CommC, &s.CommC}, {"comm_r_last", v.CommRLast, &s.CommRLast}} {
		if *f.e, err = f.d.Element(); err != nil {
			return s, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	if len(v.Inclusion) != len(challenges) {
		return s, fmt.Errorf("%d openings for %d challenges", len(v.Inclusion), len(challenges))
	}
	s.Challenges = make([]Challenge, len(v.Inclusion))
	for j := range v.Inclusion {
		np := v.Inclusion[j].Native()
		if leaf := np.LeafIndex(); leaf != challenges[j] {
			return s, fmt.Errorf("challenge %d: opening of leaf %d, challenged leaf %d", j, leaf, challenges[j])
		}
		path, leaf, _, err := gmerkle.PathFromProof(np)
		if err != nil {
			return s, fmt.Errorf("challenge %d: %w", j, err)
		}
		s.Challenges[j] = Challenge{Leaf: leaf, Path: path}
	}
	return s, nil
}
