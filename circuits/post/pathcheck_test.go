package post

import (
	"errors"
	"strings"
	"testing"

	fpost "github.com/cuzk-project/cuzk/filecoin/post"
	"github.com/cuzk-project/cuzk/r1cs"
)

// TestPathCheckedBySynthesis: a path that does not hash to comm_r_last,
// which the planner's fpost VerifyUnhashed leaves to the circuit, fails
// the witness and the prover assignment with the error fpost Verify
// gives, sector and challenge named; the untampered partition
// synthesizes, and a partition without CheckRoot (what setup and the
// compiled system synthesize) is not checked.
func TestPathCheckedBySynthesis(t *testing.T) {
	fresh := generatedWindow2K(t, 9)
	if p, err := NewPartition(fresh()); err != nil {
		t.Fatal(err)
	} else if _, err := p.Witness(2); err != nil {
		t.Fatalf("untampered: %v", err)
	}

	v := fresh()
	if v.Given < 2 {
		t.Fatalf("%d given sectors: the test wants two", v.Given)
	}
	s := &v.Sectors[1]
	incl := append(s.Inclusion[:0:0], s.Inclusion...)
	sib := append(incl[4].Base[0].Siblings[:0:0], incl[4].Base[0].Siblings...)
	sib[2][0] ^= 1
	incl[4].Base[0].Siblings = sib
	s.Inclusion = incl

	if err := v.VerifyUnhashed(); err != nil {
		t.Fatalf("VerifyUnhashed: %v, want nil (the path is the circuit's to hash)", err)
	}
	want := v.Verify()
	if !errors.Is(want, fpost.ErrBadVanillaProof) || !strings.Contains(want.Error(), "sector 1") ||
		!strings.Contains(want.Error(), "challenge 4") || !strings.Contains(want.Error(), "the path hashes to") {
		t.Fatalf("Verify: %v, want the path of sector 1 challenge 4 refused", want)
	}
	p, err := NewPartition(v)
	if err != nil {
		t.Fatal(err)
	}
	_, werr := p.Witness(2)
	_, aerr := p.Assign(2)
	for name, err := range map[string]error{"Witness": werr, "Assign": aerr} {
		if !errors.Is(err, fpost.ErrBadVanillaProof) || !strings.Contains(err.Error(), want.Error()) {
			t.Errorf("%s: %v\nwant ErrBadVanillaProof with %q", name, err, want)
		}
	}

	p.CheckRoot = nil
	sh, err := p.Config.Shape()
	if err != nil {
		t.Fatal(err)
	}
	c := r1cs.NewChecker(sh)
	if err := r1cs.Synthesize(c, p); err != nil {
		t.Fatalf("without CheckRoot: %v", err)
	}
	if c.Satisfied() {
		t.Error("without CheckRoot the tampered path leaves an unsatisfied row, want one")
	}
}
