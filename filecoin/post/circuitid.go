package post

import (
	"fmt"
	"strings"

	"github.com/cuzk-project/cuzk/filecoin"
)

// CircuitID is cuzk's name for the proof's circuit and so for its parameter
// set: "winning-2k" … "winning-64g" and "wpost-2k" … "wpost-64g". Window V1
// and V1_1 of one size share a circuit and its parameter files: the
// ApiVersion changes the challenges, not the constraints.
func (i Info) CircuitID() string {
	kind := "wpost-"
	if i.Winning {
		kind = "winning-"
	}
	return kind + filecoin.SizeName(i.SectorSize)
}

// ParseCircuitID inverts CircuitID: it returns the Winning V1 or the Window
// V1_1 proof of that size.
func ParseCircuitID(id string) (Info, error) {
	for _, k := range []struct {
		prefix string
		first  Proof
	}{{"winning-", StackedDrgWinning2KiBV1}, {"wpost-", StackedDrgWindow2KiBV1_1}} {
		if size, ok := strings.CutPrefix(id, k.prefix); ok {
			if i, ok := filecoin.ParseSizeName(size); ok {
				return (k.first + Proof(i)).Info()
			}
		}
	}
	return Info{}, fmt.Errorf("%w: circuit id %q is not winning-* or wpost-* of 2k, 8m, 512m, 32g, 64g", ErrUnknownProof, id)
}
