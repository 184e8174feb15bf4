package registry

import (
	"fmt"
	"slices"
	"testing"
)

type proof int64

func (p proof) String() string { return fmt.Sprintf("p%d", int64(p)) }

func TestIDs(t *testing.T) {
	if got := IDs(proof(3)); !slices.Equal(got, []proof{0, 1, 2}) {
		t.Errorf("IDs(3) = %v", got)
	}
	if got := IDs(proof(0)); len(got) != 0 {
		t.Errorf("IDs(0) = %v", got)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		want proof
		ok   bool
	}{
		{"p0", 0, true},
		{"p2", 2, true},
		{"p3", 0, false}, // not below n
		{"", 0, false},
	}
	for _, tc := range tests {
		if got, ok := Parse(tc.name, proof(3)); got != tc.want || ok != tc.ok {
			t.Errorf("Parse(%q) = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
