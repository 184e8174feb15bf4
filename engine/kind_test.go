package engine

import (
	"strings"
	"testing"

	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// TestKindTable: every proof kind of the wire protocol has one row whose
// value and proto name are the protocol's, and every spelling of a row
// (name, proto name, aliases, in any case) parses to its kind and to no
// other.
func TestKindTable(t *testing.T) {
	if got, want := len(Kinds()), len(cuzkv1.ProofKind_name)-1; got != want {
		t.Fatalf("%d kinds in the table, the protocol has %d", got, want)
	}
	seen := map[string]ProofKind{}
	for _, k := range Kinds() {
		if name := cuzkv1.ProofKind(k.Kind).String(); name != k.Proto {
			t.Errorf("%s: proto name %q, the protocol's value %d is %q", k.Name, k.Proto, k.Kind, name)
		}
		if k.Kind.String() != k.Name || !k.Kind.Valid() {
			t.Errorf("%d: String %q Valid %v, want %q", k.Kind, k.Kind.String(), k.Kind.Valid(), k.Name)
		}
		for _, s := range append([]string{k.Name, k.Proto}, k.Aliases...) {
			if o, dup := seen[s]; dup {
				t.Errorf("%q spells %s and %s", s, o, k.Kind)
			}
			seen[s] = k.Kind
			for _, v := range []string{s, " " + s + " "} {
				if got, ok := ParseKind(v); !ok || got != k.Kind {
					t.Errorf("ParseKind(%q) = %v %v, want %s", v, got, ok, k.Name)
				}
			}
		}
	}
	for _, bad := range []string{"", "unspecified", "PROOF_KIND_UNSPECIFIED", "porep-c1", "post"} {
		if k, ok := ParseKind(bad); ok {
			t.Errorf("ParseKind(%q) = %s, want no kind", bad, k)
		}
	}
	for _, k := range []ProofKind{KindUnspecified, 5, -1} {
		if k.Valid() || k.String() != "unspecified" {
			t.Errorf("%d: Valid %v String %q", k, k.Valid(), k.String())
		}
	}
}

// TestKindsByPriority: the status lists the queues CRITICAL first.
func TestKindsByPriority(t *testing.T) {
	got := KindsByPriority()
	want := []ProofKind{KindWinningPoSt, KindWindowPoStPartition, KindPoRepSealCommit, KindSnapDealsUpdate}
	if len(got) != len(want) {
		t.Fatalf("%v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%v, want %v", got, want)
		}
	}
}

// TestLookupKind: a known spelling gives its kind, anything else an error
// that quotes the input and lists every kind's name.
func TestLookupKind(t *testing.T) {
	for _, k := range Kinds() {
		if got, err := LookupKind(k.Proto); err != nil || got != k.Kind {
			t.Errorf("LookupKind(%q) = %v, %v", k.Proto, got, err)
		}
	}
	_, err := LookupKind("junk")
	if err == nil {
		t.Fatal("LookupKind(junk): no error")
	}
	for _, want := range []string{`"junk"`, "porep-c2", "snap-update", "window-post", "winning-post"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %s", err, want)
		}
	}
}
