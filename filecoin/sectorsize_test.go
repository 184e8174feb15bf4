package filecoin

import "testing"

func TestSectorSizes(t *testing.T) {
	for i, s := range SectorSizes() {
		if got, ok := SectorSizeIndex(s.Bytes); !ok || got != i {
			t.Errorf("SectorSizeIndex(%d) = %d, %v; want %d", s.Bytes, got, ok, i)
		}
		if got, ok := ParseSizeName(s.Short); !ok || got != i {
			t.Errorf("ParseSizeName(%q) = %d, %v; want %d", s.Short, got, ok, i)
		}
		if got := SizeName(s.Bytes); got != s.Short {
			t.Errorf("SizeName(%d) = %q, want %q", s.Bytes, got, s.Short)
		}
		// Every generation of the seal registry has the size at index i.
		for g := 0; g < numSealProofs; g += NumSectorSizes {
			info, err := SealProof(g + i).Info()
			if err != nil {
				t.Fatal(err)
			}
			if info.SectorSize != s.Bytes || info.TreeR != s.TreeR || info.VanillaKey != "StackedDrg"+s.Label+"V1" {
				t.Errorf("%v: %d bytes, tree %v, key %s; size %d is %+v", info.Proof, info.SectorSize, info.TreeR, info.VanillaKey, i, s)
			}
		}
	}
	if _, ok := SectorSizeIndex(4 << 10); ok {
		t.Error("4 KiB is a sector size")
	}
	if _, ok := ParseSizeName("32G"); ok {
		t.Error(`"32G" is a size name`)
	}
	if got := SizeName(4 << 10); got != "4096b" {
		t.Errorf("SizeName(4 KiB) = %q", got)
	}
}
