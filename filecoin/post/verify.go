package post

import (
	"fmt"
	"slices"

	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/hash/merkle"
	"github.com/cuzk-project/cuzk/internal/parallel"
)

// Verify checks the partition's vanilla proofs with nothing but the
// partition: no parameters, no device. It is what must hold before the
// circuit is synthesized, and what rust-fil-proofs' FallbackPoSt::verify
// checks, for every circuit sector (the reference checks WinningPoSt's
// first only):
//
//   - the shape: SectorCount circuit sectors, each with Challenges
//     openings of tree R's variant, levels and arities, every value
//     canonical; WinningPoSt's all of one sector, WindowPoSt's padding a
//     repeat of the last given sector;
//   - comm_r = Poseidon₂(comm_c, comm_r_last);
//   - Challenges are those re-derived from Randomness, the sector number
//     and the challenge index (LeafChallenge, ChallengeIndex with Index),
//     and opening n of circuit sector i opens leaf Challenges[i][n];
//   - every opening's root is comm_r_last and its path hashes up to it.
//
// Circuit sectors are checked in parallel; a repeat that shares its
// openings with the sector before it is not hashed again. Every failure
// wraps ErrBadVanillaProof and names sector, challenge and field; with
// several the first in order is reported.
func (p *Partition) Verify() error { return p.verify(true) }

// VerifyUnhashed is Verify without hashing the given sectors' openings up
// to their roots: every other check, and the padding sectors' openings
// hashed where they are not the last given sector's. It is what the
// planner checks before synthesis, whose circuit hashes every given
// opening anyway (a third of a 32 GiB WindowPoSt partition's host work
// otherwise done twice) and fails with CheckRoot's error where a path
// does not reach comm_r_last.
func (p *Partition) VerifyUnhashed() error { return p.verify(false) }

// CheckRoot is what Verify says of circuit sector i's opening n when its
// path hashes to root: nil where root is the sector's comm_r_last.
func (p *Partition) CheckRoot(i, n int, root hash.Domain) error {
	if i < 0 || i >= len(p.Sectors) {
		return bad("circuit sector %d of %d", i, len(p.Sectors))
	}
	if s := &p.Sectors[i]; root != s.CommRLast {
		return bad("%s: the path hashes to %s, not to comm_r_last %s", p.where(i, n), root, s.CommRLast)
	}
	return nil
}

// verify is Verify, the given sectors' paths hashed only with hashGiven.
func (p *Partition) verify(hashGiven bool) error {
	info := p.Info
	if len(p.Sectors) != info.SectorCount || len(p.Challenges) != info.SectorCount {
		return bad("%d circuit sectors and %d challenge lists, want %d", len(p.Sectors), len(p.Challenges), info.SectorCount)
	}
	if p.Given < 1 || p.Given > info.SectorCount || (info.Winning && p.Given != info.SectorCount) {
		return bad("%d given sectors of %d", p.Given, info.SectorCount)
	}
	if err := checkRandomness(p.Randomness); err != nil {
		return err
	}
	if p.Index < 0 || p.Index > maxPartitionIndex || (info.Winning && p.Index != 0) {
		return bad("partition index %d", p.Index)
	}
	sh, err := shapeOf(info)
	if err != nil {
		return err
	}
	return parallel.FirstError(len(p.Sectors), func(i int) error { return p.sector(&sh, i, hashGiven) })
}

// where names circuit sector i's challenge n as the request knows it:
// WinningPoSt's circuit sectors are the challenges of its one sector.
func (p *Partition) where(i, n int) string {
	s := &p.Sectors[i]
	if p.Info.Winning {
		return fmt.Sprintf("sector number %d challenge %d: inclusion_proofs[%d]", s.SectorID, i, i)
	}
	return fmt.Sprintf("sector %d (number %d) challenge %d: inclusion_proofs[%d]", i, s.SectorID, n, n)
}

func (p *Partition) sectorName(i int) string {
	if p.Info.Winning {
		return fmt.Sprintf("sector number %d (circuit sector %d)", p.Sectors[i].SectorID, i)
	}
	return fmt.Sprintf("sector %d (number %d)", i, p.Sectors[i].SectorID)
}

// sector checks circuit sector i, its paths hashed unless it is a given
// one and not hashGiven.
func (p *Partition) sector(sh *treeShape, i int, hashGiven bool) error {
	info := p.Info
	s := &p.Sectors[i]
	// The sector this one must be a copy of, by sector and commitments.
	ref := -1
	switch {
	case info.Winning && i > 0:
		ref = 0
	case !info.Winning && i >= p.Given:
		ref = p.Given - 1
	}
	if ref >= 0 {
		r := &p.Sectors[ref]
		if s.SectorID != r.SectorID || s.CommR != r.CommR || s.CommC != r.CommC || s.CommRLast != r.CommRLast {
			return bad("%s: not a repeat of %s", p.sectorName(i), p.sectorName(ref))
		}
	}
	want := p.derived(i)
	if !slices.Equal(p.Challenges[i], want) {
		return bad("%s: challenges %v, the randomness gives %v", p.sectorName(i), p.Challenges[i], want)
	}
	if i > 0 && sameOpenings(s, &p.Sectors[i-1]) && slices.Equal(p.Challenges[i], p.Challenges[i-1]) {
		return nil // a repeat of the sector before, checked there
	}
	if len(s.Inclusion) != info.Challenges {
		return bad("%s: inclusion_proofs: %d, want %d", p.sectorName(i), len(s.Inclusion), info.Challenges)
	}
	for _, f := range []struct {
		name string
		d    *hash.Domain
	}{{"comm_r", &s.CommR}, {"comm_c", &s.CommC}, {"comm_r_last", &s.CommRLast}} {
		if err := canonical(f.d); err != nil {
			return bad("%s: %s: %v", p.sectorName(i), f.name, err)
		}
	}
	commR, err := merkle.Poseidon{}.Node([]hash.Domain{s.CommC, s.CommRLast})
	if err != nil {
		return bad("%s: comm_r: %v", p.sectorName(i), err)
	}
	if commR != s.CommR {
		return bad("%s: comm_r: %s, but Poseidon(comm_c %s, comm_r_last %s) = %s", p.sectorName(i), s.CommR, s.CommC, s.CommRLast, commR)
	}
	for n := range s.Inclusion {
		m := &s.Inclusion[n]
		if err := sh.check(m); err != nil {
			return bad("%s%v", p.where(i, n), err)
		}
		if m.Root != s.CommRLast {
			return bad("%s.root: %s, but comm_r_last is %s", p.where(i, n), m.Root, s.CommRLast)
		}
		if got := m.LeafIndex(); got != p.Challenges[i][n] {
			return bad("%s: opens leaf %d, but the randomness challenges leaf %d (challenge index %d, partition %d)",
				p.where(i, n), got, p.Challenges[i][n], p.challengeIndex(i, n), p.Index)
		}
		if !hashGiven && i < p.Given {
			continue // the circuit hashes it (CheckRoot)
		}
		root, err := m.Native().ComputeRoot(merkle.Poseidon{})
		if err != nil {
			return bad("%s: %v", p.where(i, n), err)
		}
		if err := p.CheckRoot(i, n, root); err != nil {
			return err
		}
	}
	return nil
}

// challengeIndex is the challenge index of circuit sector i's challenge n.
func (p *Partition) challengeIndex(i, n int) uint64 {
	if p.Info.Winning {
		return ChallengeIndex(p.Info.API, i, 1, 0)
	}
	return ChallengeIndex(p.Info.API, p.Index*p.Info.SectorCount+min(i, p.Given-1), p.Info.Challenges, n)
}

// derived is circuit sector i's challenges from the randomness.
func (p *Partition) derived(i int) []uint64 {
	info := p.Info
	id := p.Sectors[i].SectorID
	if info.Winning {
		return []uint64{LeafChallenge(p.Randomness, id, ChallengeIndex(info.API, i, 1, 0), info.Nodes)}
	}
	return windowChallenges(info, p.Randomness, id, p.Index*info.SectorCount+min(i, p.Given-1))
}

// sameOpenings reports whether a and b are one sector with one set of
// openings (a padding repeat shares its openings' backing array).
func sameOpenings(a, b *SectorProof) bool {
	if a.SectorID != b.SectorID || a.CommR != b.CommR || a.CommC != b.CommC || a.CommRLast != b.CommRLast ||
		len(a.Inclusion) != len(b.Inclusion) {
		return false
	}
	return len(a.Inclusion) == 0 || &a.Inclusion[0] == &b.Inclusion[0]
}
