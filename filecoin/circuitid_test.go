package filecoin

import (
	"errors"
	"testing"
)

func TestCircuitID(t *testing.T) {
	want := map[uint64]string{2 << 10: "porep-2k", 8 << 20: "porep-8m", 512 << 20: "porep-512m", 32 << 30: "porep-32g", 64 << 30: "porep-64g"}
	for _, p := range SealProofs() {
		info, err := p.Info()
		if err != nil {
			t.Fatal(err)
		}
		id := info.CircuitID()
		if id != want[info.SectorSize] {
			t.Fatalf("%v: circuit id %q, want %q", p, id, want[info.SectorSize])
		}
		back, err := ParsePoRepCircuitID(id)
		if err != nil {
			t.Fatal(err)
		}
		// One circuit per size: the parsed proof has the same parameter files.
		if back.SectorSize != info.SectorSize || back.ParamsFile() != info.ParamsFile() {
			t.Fatalf("%s → %v (%s), want the files of %v", id, back.Proof, back.ParamsFile(), p)
		}
	}
	for _, id := range []string{"", "porep-", "porep-4k", "porep-32G", "wpost-32g", "porep-32g-x"} {
		if _, err := ParsePoRepCircuitID(id); !errors.Is(err, ErrUnknownProof) {
			t.Fatalf("%q: err = %v", id, err)
		}
	}
}
