package filecoin

import (
	"fmt"
	"strings"
)

// CircuitID is cuzk's name for the PoRep partition circuit of the proof's
// sector size, and so for its parameter set: "porep-2k", "porep-8m",
// "porep-512m", "porep-32g", "porep-64g". Every proof of one size shares it
// (V1, V1_1, synthetic and non-interactive use one circuit and one .params).
func (i SealInfo) CircuitID() string { return "porep-" + SizeName(i.SectorSize) }

// ParsePoRepCircuitID inverts CircuitID. It returns the V1_1 (interactive)
// proof of that size, whose circuit all proofs of the size share.
func ParsePoRepCircuitID(id string) (SealInfo, error) {
	if size, ok := strings.CutPrefix(id, "porep-"); ok {
		if i, ok := ParseSizeName(size); ok {
			return (StackedDrg2KiBV1_1 + SealProof(i)).Info()
		}
	}
	return SealInfo{}, fmt.Errorf("%w: circuit id %q is not porep-{2k,8m,512m,32g,64g}", ErrUnknownProof, id)
}
