// Package paramstest checks parameter file names against rust-fil-proofs'
// parameter manifest (parameters.json: file name → cid, digest, sector
// size), for the tests of the registries that name files (filecoin,
// filecoin/post, filecoin/update). Only tests import it.
package paramstest

import (
	"encoding/json"
	"os"
	"testing"
)

// Manifest reads the parameters.json at path: every file's sector size by
// file name.
func Manifest(t testing.TB, path string) map[string]uint64 {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var entries map[string]struct {
		SectorSize uint64 `json:"sector_size"`
	}
	if err := json.Unmarshal(raw, &entries); err != nil {
		t.Fatal(err)
	}
	m := make(map[string]uint64, len(entries))
	for name, e := range entries {
		m[name] = e.SectorSize
	}
	return m
}

// CheckFiles checks that every one of files is in the manifest for
// sectorSize-byte sectors; proof names the proof in failures.
func CheckFiles(t testing.TB, manifest map[string]uint64, proof string, sectorSize uint64, files ...string) {
	t.Helper()
	for _, name := range files {
		size, ok := manifest[name]
		if !ok {
			t.Errorf("%s: %s not in parameters.json", proof, name)
			continue
		}
		if size != sectorSize {
			t.Errorf("%s: %s is for %d-byte sectors, want %d", proof, name, size, sectorSize)
		}
	}
}
