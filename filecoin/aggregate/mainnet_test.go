package aggregate

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/groth16"
)

// mainnetDir holds a commit batch aggregated on mainnet (testdata/README.md):
// the ProveCommitAggregate's aggregate of 7 32 GiB sectors (70 partition
// proofs padded to 128) and each sector's SealVerifyInfo, in ascending
// sector number, as the miner actor lists them for verification.
const mainnetDir = "testdata/mainnet-7x32g"

// mainnetInclude is the batch's transcript bytes, SHA-256 over seed ‖ comm_r
// of each sector in that order. Under them the aggregate passes the GIPA
// half of SnarkPack verification (groth16/aggregate's reference tests).
const mainnetInclude = "67b3668653ade1302c25c7841c3a853246b5c87ef50ed4688bc144b163b6fb09"

// mainnetParamsEnv names a parameter directory with the mainnet SRS and
// the 32 GiB PoRep .vk; when set, the batch is verified whole.
const mainnetParamsEnv = "CUZK_MAINNET_PARAMS"

func mainnetBatch(t *testing.T) ([]filecoin.SealVerifyInfo, []byte) {
	t.Helper()
	var seals []filecoin.SealVerifyInfo
	for i := 0; ; i++ {
		b, err := os.ReadFile(filepath.Join(mainnetDir, fmt.Sprintf("sector-%d.json", i)))
		if errors.Is(err, os.ErrNotExist) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var v filecoin.SealVerifyInfo
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("sector-%d.json: %v", i, err)
		}
		seals = append(seals, v)
	}
	agg, err := os.ReadFile(filepath.Join(mainnetDir, "aggregate.bin"))
	if err != nil {
		t.Fatal(err)
	}
	return seals, agg
}

// The transcript bytes this package derives from the batch's public data
// are those the mainnet aggregate was made under; another order, or a
// changed seed, gives others.
func TestMainnetBatchTranscript(t *testing.T) {
	seals, _ := mainnetBatch(t)
	if len(seals) != 7 {
		t.Fatalf("%d sectors, want 7", len(seals))
	}
	for _, tc := range []struct {
		name  string
		edit  func(s []filecoin.SealVerifyInfo)
		match bool
	}{
		{"as on chain", func([]filecoin.SealVerifyInfo) {}, true},
		{"two sectors swapped", func(s []filecoin.SealVerifyInfo) { s[2], s[3] = s[3], s[2] }, false},
		{"a seed changed", func(s []filecoin.SealVerifyInfo) { s[4].InteractiveRandomness[0] ^= 1 }, false},
		{"a ticket changed (not in the transcript)", func(s []filecoin.SealVerifyInfo) { s[4].Randomness[0] ^= 1 }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := slices.Clone(seals)
			for i := range s {
				s[i].Randomness = slices.Clone(s[i].Randomness)
				s[i].InteractiveRandomness = slices.Clone(s[i].InteractiveRandomness)
			}
			tc.edit(s)
			b, err := newBatch(s)
			if err != nil {
				t.Fatal(err)
			}
			if got := hex.EncodeToString(b.include); (got == mainnetInclude) != tc.match {
				t.Errorf("transcript bytes %s; mainnet's %s; want equal: %v", got, mainnetInclude, tc.match)
			}
		})
	}
	b, err := newBatch(seals)
	if err != nil {
		t.Fatal(err)
	}
	in, err := b.inputs()
	if err != nil || len(in) != 128 {
		t.Fatalf("public inputs: %d vectors, %v; want 70 padded to 128", len(in), err)
	}
}

// With the mainnet SRS and 32 GiB PoRep verifying key (CUZK_MAINNET_PARAMS,
// a parameter directory), the mainnet aggregate verifies from the
// SealVerifyInfos alone and a changed byte does not.
func TestMainnetBatchVerifies(t *testing.T) {
	dir := os.Getenv(mainnetParamsEnv)
	if dir == "" {
		t.Skipf("%s (a directory with %s and the 32 GiB PoRep .vk) is not set", mainnetParamsEnv, SRSFile)
	}
	seals, agg := mainnetBatch(t)
	info, err := seals[0].SealProof.Info()
	if err != nil {
		t.Fatal(err)
	}
	srs, err := ReadSRS(dir)
	if err != nil {
		t.Fatal(err)
	}
	vk, err := groth16.ReadVerifyingKey(filepath.Join(dir, info.VKFile()))
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifySeals(srs, vk, seals, agg, nil); err != nil {
		t.Fatalf("the mainnet aggregate: %v", err)
	}
	bad := slices.Clone(agg)
	bad[len(bad)-1] ^= 1 // in the last KZG opening
	if err := VerifySeals(srs, vk, seals, bad, nil); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a changed byte: %v, want ErrInvalid", err)
	}
}
