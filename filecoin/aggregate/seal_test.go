package aggregate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/groth16"
	snarkpack "github.com/cuzk-project/cuzk/groth16/aggregate"
)

func TestTargetLen(t *testing.T) {
	for _, c := range []struct{ n, want int }{{1, 2}, {2, 2}, {3, 4}, {4, 4}, {5, 8}, {10, 16}, {2560, 4096}} {
		if got := TargetLen(c.n); got != c.want {
			t.Errorf("TargetLen(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

// TestRoundTrip aggregates and verifies batches whose partition proofs
// fill a power of two, need padding, and span several partitions each.
func TestRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name    string
		proof   filecoin.SealProof
		sectors int
		n       int // padded proofs
	}{
		{"4 sectors of 2KiB", filecoin.StackedDrg2KiBV1_1, 4, 4},
		{"5 sectors of 2KiB padded", filecoin.StackedDrg2KiBV1_1, 5, 8},
		{"1 sector of 2KiB padded", filecoin.StackedDrg2KiBV1_1, 1, 2},
		{"1 sector of 32GiB, 10 partitions", filecoin.StackedDrg32GiBV1_1, 1, 16},
	} {
		t.Run(c.name, func(t *testing.T) {
			sim, seals, proofs := testBatch(t, c.proof, c.sectors)
			srs := devSRS(t, c.n)
			agg, err := AggregateSeals(context.Background(), srs, seals, proofs)
			if err != nil {
				t.Fatal(err)
			}
			if len(agg) != snarkpack.Size(c.n) {
				t.Errorf("aggregate has %d bytes, want %d for %d proofs", len(agg), snarkpack.Size(c.n), c.n)
			}
			if err := VerifySeals(srs, &sim.vk, seals, agg, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestTamper: an aggregate is valid only for its own batch, bytes and
// order.
func TestTamper(t *testing.T) {
	sim, seals, proofs := testBatch(t, filecoin.StackedDrg2KiBV1_1, 5)
	srs := devSRS(t, 8)
	agg, err := AggregateSeals(context.Background(), srs, seals, proofs)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifySeals(srs, &sim.vk, seals, agg, nil); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		mutate func(seals []filecoin.SealVerifyInfo, agg []byte) ([]filecoin.SealVerifyInfo, []byte)
	}{
		{"flipped byte in the last KZG opening", func(s []filecoin.SealVerifyInfo, a []byte) ([]filecoin.SealVerifyInfo, []byte) {
			a[len(a)-10] ^= 1
			return s, a
		}},
		{"flipped byte in the first GT commitment", func(s []filecoin.SealVerifyInfo, a []byte) ([]filecoin.SealVerifyInfo, []byte) {
			a[40] ^= 0x80
			return s, a
		}},
		{"sectors 0 and 1 swapped", func(s []filecoin.SealVerifyInfo, a []byte) ([]filecoin.SealVerifyInfo, []byte) {
			s[0], s[1] = s[1], s[0]
			return s, a
		}},
		{"last two sectors swapped", func(s []filecoin.SealVerifyInfo, a []byte) ([]filecoin.SealVerifyInfo, []byte) {
			s[3], s[4] = s[4], s[3]
			return s, a
		}},
		{"seed of sector 2 changed", func(s []filecoin.SealVerifyInfo, a []byte) ([]filecoin.SealVerifyInfo, []byte) {
			s[2].InteractiveRandomness = slices.Clone(s[2].InteractiveRandomness)
			s[2].InteractiveRandomness[0] ^= 1
			return s, a
		}},
		{"comm_r of sector 4 changed", func(s []filecoin.SealVerifyInfo, a []byte) ([]filecoin.SealVerifyInfo, []byte) {
			r, _ := s[4].SealedCID.CommR()
			r[0] ^= 1
			s[4].SealedCID = filecoin.SealedCID(r)
			return s, a
		}},
		{"ticket of sector 0 changed", func(s []filecoin.SealVerifyInfo, a []byte) ([]filecoin.SealVerifyInfo, []byte) {
			s[0].Randomness = slices.Clone(s[0].Randomness)
			s[0].Randomness[5] ^= 1
			return s, a
		}},
		{"a sector left out", func(s []filecoin.SealVerifyInfo, a []byte) ([]filecoin.SealVerifyInfo, []byte) {
			return s[:4], a // 4 proofs: another size of aggregate
		}},
		{"truncated", func(s []filecoin.SealVerifyInfo, a []byte) ([]filecoin.SealVerifyInfo, []byte) {
			return s, a[:len(a)-1]
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, a := c.mutate(slices.Clone(seals), slices.Clone(agg))
			err := VerifySeals(srs, &sim.vk, s, a, nil)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
		})
	}
}

// TestAggregateBindsOrder: the aggregate of the same sectors in another
// order is another aggregate, and each verifies only in its own order.
func TestAggregateBindsOrder(t *testing.T) {
	sim, seals, proofs := testBatch(t, filecoin.StackedDrg2KiBV1_1, 4)
	srs := devSRS(t, 4)
	agg, err := AggregateSeals(context.Background(), srs, seals, proofs)
	if err != nil {
		t.Fatal(err)
	}
	rs := slices.Clone(seals)
	rp := slices.Clone(proofs)
	slices.Reverse(rs)
	slices.Reverse(rp)
	ragg, err := AggregateSeals(context.Background(), srs, rs, rp)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(agg, ragg) {
		t.Fatal("the reversed batch aggregates to the same bytes")
	}
	if err := VerifySeals(srs, &sim.vk, rs, ragg, nil); err != nil {
		t.Fatal(err)
	}
	if err := VerifySeals(srs, &sim.vk, seals, ragg, nil); !errors.Is(err, ErrInvalid) {
		t.Fatalf("reversed aggregate against the batch order: err = %v, want ErrInvalid", err)
	}
}

// TestTranscriptBytes: SHA-256 over each sector's seed then comm_r, in
// batch order.
func TestTranscriptBytes(t *testing.T) {
	_, seals, _ := testBatch(t, filecoin.StackedDrg2KiBV1_1, 3)
	var cat []byte
	for _, v := range seals {
		r, err := v.SealedCID.CommR()
		if err != nil {
			t.Fatal(err)
		}
		cat = append(append(cat, v.InteractiveRandomness...), r[:]...)
	}
	want := sha256.Sum256(cat)
	b, err := newBatch(seals)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.include, want[:]) {
		t.Fatalf("transcript bytes %x, want %x", b.include, want)
	}
}

// TestBadBatch: input no aggregate can be made or checked for is refused
// with an error naming it.
func TestBadBatch(t *testing.T) {
	sim, seals, proofs := testBatch(t, filecoin.StackedDrg2KiBV1_1, 5)
	srs := devSRS(t, 8)
	agg, err := AggregateSeals(context.Background(), srs, seals, proofs)
	if err != nil {
		t.Fatal(err)
	}
	mixed := slices.Clone(seals)
	mixed[3].SealProof = filecoin.StackedDrg8MiBV1_1
	miners := slices.Clone(seals)
	miners[2].Miner++
	badSeed := slices.Clone(seals)
	badSeed[1].InteractiveRandomness = badSeed[1].InteractiveRandomness[:31]
	ni := []filecoin.SealVerifyInfo{testSeal(filecoin.StackedDrg2KiBV1_2_Feat_NonInteractivePoRep, 1, "ni")}
	short := slices.Clone(proofs)
	short[2] = short[2][:groth16.ProofSize-1]
	long := slices.Clone(proofs)
	long[2] = append(slices.Clone(long[2]), long[2]...)
	zero := slices.Clone(proofs)
	zero[1] = make([]byte, groth16.ProofSize)

	for _, c := range []struct {
		name   string
		seals  []filecoin.SealVerifyInfo
		proofs [][]byte
		srs    *snarkpack.SRS
		want   error
	}{
		{"no sectors", nil, nil, srs, ErrBadBatch},
		{"fewer proofs than sectors", seals, proofs[:4], srs, ErrBadBatch},
		{"two seal proofs", mixed, proofs, srs, ErrBadBatch},
		{"two miners", miners, proofs, srs, ErrBadBatch},
		{"a 31-byte seed", badSeed, proofs, srs, ErrBadBatch},
		{"non-interactive PoRep", ni, [][]byte{make([]byte, 0)}, srs, ErrBadBatch},
		{"a proof a byte short", seals, short, srs, ErrBadBatch},
		{"a proof of two partitions", seals, long, srs, ErrBadBatch},
		{"a proof of zeros", seals, zero, srs, ErrBadBatch},
		{"an SRS for 4 proofs, 8 needed", seals, proofs, devSRS(t, 4), snarkpack.ErrBadSRS},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := AggregateSeals(context.Background(), c.srs, c.seals, c.proofs)
			if !errors.Is(err, c.want) {
				t.Fatalf("AggregateSeals: err = %v, want %v", err, c.want)
			}
			t.Log(err)
		})
	}
	for _, c := range []struct {
		name  string
		seals []filecoin.SealVerifyInfo
		srs   *snarkpack.SRS
		want  error
	}{
		{"no sectors", nil, srs, ErrBadBatch},
		{"two seal proofs", mixed, srs, ErrBadBatch},
		{"two miners", miners, srs, ErrBadBatch},
		{"a 31-byte seed", badSeed, srs, ErrBadBatch},
		{"an SRS for 4 proofs, 8 needed", seals, devSRS(t, 4), snarkpack.ErrBadSRS},
	} {
		t.Run("verify "+c.name, func(t *testing.T) {
			err := VerifySeals(c.srs, &sim.vk, c.seals, agg, nil)
			if !errors.Is(err, c.want) {
				t.Fatalf("VerifySeals: err = %v, want %v", err, c.want)
			}
			t.Log(err)
		})
	}
	t.Run("verify with a key of another input count", func(t *testing.T) {
		other := newSimulator(3, "other")
		if err := VerifySeals(srs, &other.vk, seals, agg, nil); !errors.Is(err, groth16.ErrInputCount) {
			t.Fatalf("VerifySeals: err = %v, want ErrInputCount", err)
		}
	})
}

// TestWriteDevSRS: the development SRS is written under the real name,
// read back by ReadSRS, serves the size asked for, and never replaces an
// existing file.
func TestWriteDevSRS(t *testing.T) {
	dir := t.TempDir()
	path, err := WriteDevSRS(dir, 5)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, SRSFile) {
		t.Fatalf("path %s, want %s", path, filepath.Join(dir, SRSFile))
	}
	srs, err := ReadSRS(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := srs.Specialize(8); err != nil {
		t.Fatalf("a dev SRS for 5 proofs does not serve 8 padded: %v", err)
	}
	if _, _, err := srs.Specialize(16); !errors.Is(err, snarkpack.ErrBadSRS) {
		t.Fatalf("Specialize(16): err = %v, want ErrBadSRS", err)
	}
	before, _ := os.ReadFile(path)
	if _, err := WriteDevSRS(dir, 64); !errors.Is(err, os.ErrExist) {
		t.Fatalf("second WriteDevSRS: err = %v, want ErrExist", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatal("the existing SRS file was changed")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("%d files left in the directory, want 1", len(entries))
	}
}
