package tree

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	gmerkle "github.com/cuzk-project/cuzk/gadgets/merkle"
	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
)

var errShape = errors.New("test: bad shape")

func TestArities(t *testing.T) {
	tests := []struct {
		shape hmerkle.Shape
		nodes uint64
		want  []int
	}{
		{hmerkle.Shape{Base: 8}, 1 << 6, []int{8, 8}},
		{hmerkle.Shape{Base: 8, Sub: 8}, 1 << 30, []int{8, 8, 8, 8, 8, 8, 8, 8, 8, 8}},
		{hmerkle.Shape{Base: 8, Sub: 8, Top: 2}, 1 << 31, []int{8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 2}},
		{hmerkle.Shape{Base: 8, Sub: 4, Top: 2}, 1 << 6, []int{8, 4, 2}},
		{hmerkle.Shape{Base: 8}, 1 << 5, nil}, // does not fill base 8
	}
	for _, tc := range tests {
		if got := Arities(tc.shape, tc.nodes); !slices.Equal(got, tc.want) {
			t.Errorf("Arities(%v, %d) = %v, want %v", tc.shape, tc.nodes, got, tc.want)
		}
	}
	if got := Binary(3); !slices.Equal(got, []int{2, 2, 2}) {
		t.Errorf("Binary(3) = %v", got)
	}
}

func TestCheckSector(t *testing.T) {
	tests := []struct {
		nodes uint64
		shape hmerkle.Shape
		want  string // "" for valid
	}{
		{1 << 6, hmerkle.Shape{Base: 8}, ""},
		{1 << 31, hmerkle.Shape{Base: 8, Sub: 8, Top: 2}, ""},
		{0, hmerkle.Shape{Base: 8}, "not a power of two"},
		{96, hmerkle.Shape{Base: 8}, "not a power of two"},
		{1 << 41, hmerkle.Shape{Base: 8}, "not a power of two"},
		{1 << 5, hmerkle.Shape{Base: 8}, "tree R"},
	}
	for _, tc := range tests {
		err := CheckSector(errShape, tc.nodes, tc.shape)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%d nodes, %v: %v", tc.nodes, tc.shape, err)
			}
			continue
		}
		if !errors.Is(err, errShape) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%d nodes, %v: err = %v, want errShape mentioning %q", tc.nodes, tc.shape, err, tc.want)
		}
	}
}

func TestCheckPath(t *testing.T) {
	arities := []int{8, 8, 2}
	good := BlankPath(arities)
	tests := []struct {
		name string
		path []gmerkle.PathElement
		want string // "" for valid
	}{
		{"blank", good, ""},
		{"last index", append(slices.Clone(good[:2]), gmerkle.PathElement{Index: 1, Siblings: good[2].Siblings}), ""},
		{"short", good[:2], "2 levels, want 3"},
		{"siblings", append(slices.Clone(good[:2]), gmerkle.PathElement{Siblings: good[0].Siblings}), "level 2 has 7 siblings, want 1"},
		{"index", append(slices.Clone(good[:2]), gmerkle.PathElement{Index: 2, Siblings: good[2].Siblings}), "level 2 index 2 of arity 2"},
		{"negative index", append([]gmerkle.PathElement{{Index: -1, Siblings: good[0].Siblings}}, good[1:]...), "level 0 index -1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkErr(t, CheckPath(errShape, tc.path, arities), tc.want)
			sib := make([][]fr.Element, len(tc.path))
			for l, e := range tc.path {
				sib[l] = e.Siblings
			}
			if !strings.Contains(tc.want, "index") {
				checkErr(t, CheckSiblings(errShape, sib, arities), tc.want)
			}
		})
	}
}

func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	if !errors.Is(err, errShape) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want errShape mentioning %q", err, want)
	}
}

// TestBlankShared: a blank path's levels of one arity share their zero
// siblings (blank circuits are cheap because of it).
func TestBlankShared(t *testing.T) {
	sib := BlankSiblings([]int{8, 8, 2})
	if len(sib[0]) != 7 || len(sib[2]) != 1 || &sib[0][0] != &sib[1][0] {
		t.Fatalf("siblings %d/%d/%d, shared %v", len(sib[0]), len(sib[1]), len(sib[2]), &sib[0][0] == &sib[1][0])
	}
}
