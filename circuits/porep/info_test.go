package porep

import (
	"testing"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/r1cs"
)

// TestConfigFor checks every registered seal proof against the shapes the
// count test uses: all features of a size share one circuit.
func TestConfigFor(t *testing.T) {
	bySize := map[uint64]Config{
		2 << 10:   config2KiB,
		8 << 20:   config8MiB,
		512 << 20: config512MiB,
		32 << 30:  config32GiB,
		64 << 30:  config64GiB,
	}
	for _, p := range filecoin.SealProofs() {
		info, err := p.Info()
		if err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		got := ConfigFor(info)
		if want, ok := bySize[info.SectorSize]; !ok || got != want {
			t.Errorf("%s: ConfigFor = %+v, want %+v", info.Name, got, want)
		}
	}
}

func TestBlankInfo(t *testing.T) {
	info, err := filecoin.StackedDrg2KiBV1_1.Info()
	if err != nil {
		t.Fatal(err)
	}
	var c r1cs.Counter
	if err := r1cs.Synthesize(&c, Blank(info)); err != nil {
		t.Fatal(err)
	}
	if got, want := c.Constraints-c.Inputs, 2_687_921; got != want {
		t.Errorf("Blank(2 KiB) has %d rows, want %d", got, want)
	}
}
