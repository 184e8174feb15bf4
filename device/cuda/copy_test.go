package cuda

import (
	"fmt"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// TestParallelCopy: a then b land in ab whole, for lengths around the
// chunk and any number of tasks (no GPU needed).
func TestParallelCopy(t *testing.T) {
	vec := func(n int, base uint64) []fr.Element {
		v := make([]fr.Element, n)
		for i := range v {
			v[i].SetUint64(base + uint64(i))
		}
		return v
	}
	for _, tc := range []struct{ na, nb, tasks int }{
		{0, 0, 4}, {1, 1, 1}, {5, 3, 0},
		{copyChunk, copyChunk, 2},
		{copyChunk + 3, 2*copyChunk + 1, 3},
		{3*copyChunk - 1, 7, 16},
	} {
		t.Run(fmt.Sprintf("%d+%d/tasks%d", tc.na, tc.nb, tc.tasks), func(t *testing.T) {
			a, b := vec(tc.na, 1), vec(tc.nb, 1<<40)
			ab := make([]fr.Element, tc.na+tc.nb)
			parallelCopy(ab, a, b, tc.tasks)()
			if !slices.Equal(ab[:tc.na], a) || !slices.Equal(ab[tc.na:], b) {
				t.Fatal("ab is not a followed by b")
			}
		})
	}
}
