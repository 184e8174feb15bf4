package filecoin

import (
	"fmt"
	"strings"
)

// sizeNames are the short sector-size names of cuzk's circuit ids.
var sizeNames = []struct {
	bytes uint64
	name  string
}{
	{2 << 10, "2k"}, {8 << 20, "8m"}, {512 << 20, "512m"}, {32 << 30, "32g"}, {64 << 30, "64g"},
}

func sizeName(bytes uint64) string {
	for _, s := range sizeNames {
		if s.bytes == bytes {
			return s.name
		}
	}
	return fmt.Sprintf("%db", bytes)
}

// CircuitID is cuzk's name for the PoRep partition circuit of the proof's
// sector size, and so for its parameter set: "porep-2k", "porep-8m",
// "porep-512m", "porep-32g", "porep-64g". Every proof of one size shares it
// (V1, V1_1, synthetic and non-interactive use one circuit and one .params).
func (i SealInfo) CircuitID() string { return "porep-" + sizeName(i.SectorSize) }

// ParsePoRepCircuitID inverts CircuitID. It returns the V1_1 (interactive)
// proof of that size, whose circuit all proofs of the size share.
func ParsePoRepCircuitID(id string) (SealInfo, error) {
	size, ok := strings.CutPrefix(id, "porep-")
	if ok {
		for i, s := range sizeNames {
			if s.name == size {
				return (StackedDrg2KiBV1_1 + SealProof(i)).Info()
			}
		}
	}
	return SealInfo{}, fmt.Errorf("%w: circuit id %q is not porep-{2k,8m,512m,32g,64g}", ErrUnknownProof, id)
}
