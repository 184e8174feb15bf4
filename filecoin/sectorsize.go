package filecoin

import (
	"fmt"

	"github.com/cuzk-project/cuzk/hash/merkle"
)

// NumSectorSizes is the number of Filecoin sector sizes. Every registry
// (seal, PoSt and update proofs) numbers its proofs NumSectorSizes per
// generation in SectorSizes order, so an id modulo NumSectorSizes is the
// index of its sector size.
const NumSectorSizes = 5

// SectorSize is what a sector size fixes whatever the proof.
type SectorSize struct {
	Label string // as the proof names spell it: "2KiB", "32GiB"
	Short string // as cuzk's circuit ids spell it: "2k", "32g"
	Bytes uint64
	// TreeR is the shape of trees C and R (comm_c, comm_r_last), and of a
	// SnapDeals update's trees R_old and R_new.
	TreeR merkle.Shape
}

var sectorSizes = [NumSectorSizes]SectorSize{
	{"2KiB", "2k", 2 << 10, merkle.Shape800},
	{"8MiB", "8m", 8 << 20, merkle.Shape800},
	{"512MiB", "512m", 512 << 20, merkle.Shape800},
	{"32GiB", "32g", 32 << 30, merkle.Shape880},
	{"64GiB", "64g", 64 << 30, merkle.Shape882},
}

// SectorSizes lists Filecoin's sector sizes, smallest first.
func SectorSizes() [NumSectorSizes]SectorSize { return sectorSizes }

// SectorSizeIndex is the index in SectorSizes of the size of bytes; false
// for a size Filecoin does not define.
func SectorSizeIndex(bytes uint64) (int, bool) {
	for i, s := range sectorSizes {
		if s.Bytes == bytes {
			return i, true
		}
	}
	return 0, false
}

// ParseSizeName is the index in SectorSizes of the size whose Short name is
// name; false for any other name.
func ParseSizeName(name string) (int, bool) {
	for i, s := range sectorSizes {
		if s.Short == name {
			return i, true
		}
	}
	return 0, false
}

// SizeName is the Short name of the sector size of bytes, or "<bytes>b"
// for a size Filecoin does not define.
func SizeName(bytes uint64) string {
	if i, ok := SectorSizeIndex(bytes); ok {
		return sectorSizes[i].Short
	}
	return fmt.Sprintf("%db", bytes)
}
