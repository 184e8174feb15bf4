package main

import (
	"strings"
	"testing"

	"github.com/cuzk-project/cuzk/engine"
)

// spellings is every spelling of k in engine's table.
func spellings(k engine.KindNames) []string {
	return append([]string{k.Name, k.Proto}, k.Aliases...)
}

// kindNamesError says whether err refuses junk as engine.LookupKind does:
// the input quoted, the kinds' names listed.
func kindNamesError(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: junk accepted", what)
		return
	}
	for _, want := range []string{`"junk"`, "porep-c2, snap-update, window-post, winning-post"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q does not say %s", what, err, want)
		}
	}
}

// TestBenchKindSpellings: cuzk bench --kind takes every spelling of every
// kind and refuses junk naming the flag and the kinds.
func TestBenchKindSpellings(t *testing.T) {
	for _, k := range engine.Kinds() {
		for _, s := range spellings(k) {
			if got, err := benchKind(s); err != nil || got != k.Kind {
				t.Errorf("benchKind(%q) = %v, %v; want %s", s, got, err, k.Name)
			}
		}
	}
	_, err := benchKind("junk")
	kindNamesError(t, "--kind junk", err)
	if err != nil && !strings.Contains(err.Error(), "--kind") {
		t.Errorf("error %q does not name --kind", err)
	}
}

// TestFamilySpellings: setup --kind and gen-vanilla's subcommands take
// every spelling of every kind for its family, and refuse junk naming the
// kinds.
func TestFamilySpellings(t *testing.T) {
	proof := map[string]string{ // a registered proof of each family
		kindPoRep:   "StackedDrg2KiBV1_1",
		kindWinning: "StackedDrgWinning2KiBV1",
		kindWindow:  "StackedDrgWindow2KiBV1_2",
		kindSnap:    "StackedDrg2KiBV1",
	}
	genVanilla := newGenVanillaCmd()
	for _, k := range engine.Kinds() {
		family := familyOf[k.Kind]
		if proof[family] == "" {
			t.Fatalf("%s: no family", k.Name)
		}
		for _, s := range spellings(k) {
			if got, err := proofFamily(s); err != nil || got != family {
				t.Errorf("proofFamily(%q) = %q, %v; want %s", s, got, err, family)
			}
			if c, err := circuitOfProof(proof[family], s); err != nil || c.kind != family {
				t.Errorf("setup --proof-type %s --kind %s: %+v, %v; want the %s circuit", proof[family], s, c, err, family)
			}
			if sub, _, err := genVanilla.Find([]string{s}); err != nil || sub.Name() != family {
				t.Errorf("gen-vanilla %s: %v, %v; want gen-vanilla %s", s, sub.Name(), err, family)
			}
		}
	}
	_, err := proofFamily("junk")
	kindNamesError(t, "proofFamily(junk)", err)
	_, err = circuitOfProof(proof[kindPoRep], "junk")
	kindNamesError(t, "setup --kind junk", err)
	out, code := run(t, "gen-vanilla", "junk", "--proof-type", proof[kindPoRep])
	if code == 0 {
		t.Errorf("gen-vanilla junk: exit 0: %s", out)
	}
	for _, want := range []string{"gen-vanilla junk", "porep-c2, snap-update, window-post, winning-post"} {
		if !strings.Contains(out, want) {
			t.Errorf("gen-vanilla junk: %q does not say %s", out, want)
		}
	}
	out, _ = run(t, "gen-vanilla", "WPOST")
	if !strings.Contains(out, "write it window-post") {
		t.Errorf("gen-vanilla WPOST: %q does not say how to write it", out)
	}
}

// TestCheckKindSpellings: check --kind takes every spelling of the PoRep
// kind with --vanilla (the missing file is what fails then), refuses the
// other kinds as not checkable alone and junk naming the kinds.
func TestCheckKindSpellings(t *testing.T) {
	missing := t.TempDir() + "/missing.json"
	for _, k := range engine.Kinds() {
		for _, s := range spellings(k) {
			out, code := run(t, "check", "--kind", s, "--vanilla", missing)
			if code == 0 {
				t.Fatalf("check --kind %s of a missing file: exit 0", s)
			}
			refused := strings.Contains(out, "--kind")
			if want := k.Kind != engine.KindPoRepSealCommit; refused != want {
				t.Errorf("check --kind %s: %q; want --kind refused: %v", s, out, want)
			}
		}
	}
	out, _ := run(t, "check", "--kind", "junk", "--vanilla", missing)
	for _, want := range []string{`"junk"`, "porep-c2, snap-update, window-post, winning-post"} {
		if !strings.Contains(out, want) {
			t.Errorf("check --kind junk: %q does not say %s", out, want)
		}
	}
}
