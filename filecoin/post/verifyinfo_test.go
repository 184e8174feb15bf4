package post_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/post"
)

// TestVerifyInfoJSON checks the go-state-types field names and encodings:
// Randomness base64, PoStProof and SealProof numbers, SealedCID {"/": …},
// Prover a number.
func TestVerifyInfoJSON(t *testing.T) {
	commR := [32]byte{1, 2, 3}
	w := post.WinningPoStVerifyInfo{
		Randomness:        []byte{0xff, 0, 31: 1},
		Proofs:            []post.PoStProof{{PoStProof: post.StackedDrgWinning32GiBV1, ProofBytes: []byte{1, 2, 3}}},
		ChallengedSectors: []post.SectorInfo{{SealProof: filecoin.StackedDrg32GiBV1_1, SectorNumber: 9, SealedCID: filecoin.SealedCID(commR)}},
		Prover:            1000,
	}
	js, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"Randomness":"/wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAE=","Proofs":[{"PoStProof":3,"ProofBytes":"AQID"}],` +
		`"ChallengedSectors":[{"SealProof":8,"SectorNumber":9,"SealedCID":{"/":"` + filecoin.CommRCID(commR) + `"}}],"Prover":1000}`
	if string(js) != want {
		t.Fatalf("got  %s\nwant %s", js, want)
	}
	var back post.WinningPoStVerifyInfo
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if again, _ := json.Marshal(back); string(again) != want {
		t.Fatalf("round trip %s", again)
	}
}

// TestVerifyInfoBad refuses public data that cannot be verified, naming
// the field.
func TestVerifyInfoBad(t *testing.T) {
	_, _, golden := golden(t)
	sealed := golden.ChallengedSectors[0]
	window := func(edit func(v *post.WindowPoStVerifyInfo)) error {
		v := golden
		v.Proofs = append([]post.PoStProof(nil), golden.Proofs...)
		v.ChallengedSectors = append([]post.SectorInfo(nil), golden.ChallengedSectors...)
		edit(&v)
		_, _, err := v.PublicInputs()
		return err
	}
	winning := func(edit func(v *post.WinningPoStVerifyInfo)) error {
		v := post.WinningPoStVerifyInfo{Randomness: make([]byte, 32), Prover: 1000,
			Proofs:            []post.PoStProof{{PoStProof: post.StackedDrgWinning32GiBV1}},
			ChallengedSectors: []post.SectorInfo{sealed}}
		edit(&v)
		_, _, err := v.PublicInputs()
		return err
	}
	if err := winning(func(*post.WinningPoStVerifyInfo) {}); err != nil {
		t.Fatalf("winning: %v", err)
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"no proof", window(func(v *post.WindowPoStVerifyInfo) { v.Proofs = nil }), "Proofs: 0, want 1"},
		{"two proofs", window(func(v *post.WindowPoStVerifyInfo) { v.Proofs = append(v.Proofs, v.Proofs[0]) }), "Proofs: 2, want 1"},
		{"winning proof", window(func(v *post.WindowPoStVerifyInfo) { v.Proofs[0].PoStProof = post.StackedDrgWinning32GiBV1 }),
			"Proofs[0].PoStProof: StackedDrgWinning32GiBV1 is not a WindowPoSt proof"},
		{"unknown proof", window(func(v *post.WindowPoStVerifyInfo) { v.Proofs[0].PoStProof = 99 }), "Proofs[0].PoStProof"},
		{"short randomness", window(func(v *post.WindowPoStVerifyInfo) { v.Randomness = v.Randomness[:31] }), "Randomness: 31 bytes, want 32"},
		{"no sectors", window(func(v *post.WindowPoStVerifyInfo) { v.ChallengedSectors = nil }), "ChallengedSectors: none"},
		{"other size", window(func(v *post.WindowPoStVerifyInfo) { v.ChallengedSectors[0].SealProof = filecoin.StackedDrg64GiBV1_1 }),
			"ChallengedSectors[0]: seal proof StackedDrg64GiBV1_1 does not fit StackedDrgWindow32GiBV1"},
		{"comm_d CID", window(func(v *post.WindowPoStVerifyInfo) {
			v.ChallengedSectors[0].SealedCID = filecoin.UnsealedCID([32]byte{})
		}),
			"ChallengedSectors[0].SealedCID"},
		{"non-canonical comm_r", window(func(v *post.WindowPoStVerifyInfo) {
			v.ChallengedSectors[0].SealedCID = filecoin.SealedCID([32]byte{31: 0xff})
		}), "ChallengedSectors[0].SealedCID: comm_r"},
		{"twice", window(func(v *post.WindowPoStVerifyInfo) { v.ChallengedSectors = append(v.ChallengedSectors, sealed) }),
			"sector number 1 twice"},
		{"window proof", winning(func(v *post.WinningPoStVerifyInfo) { v.Proofs[0].PoStProof = post.StackedDrgWindow32GiBV1 }),
			"is not a WinningPoSt proof"},
		{"two winning sectors", winning(func(v *post.WinningPoStVerifyInfo) {
			s := sealed
			s.SectorNumber = 2
			v.ChallengedSectors = append(v.ChallengedSectors, s)
		}), "ChallengedSectors: 2, a WinningPoSt proves exactly 1"},
	} {
		isBad := errors.Is(tc.err, post.ErrBadVanillaProof) || errors.Is(tc.err, post.ErrUnknownProof)
		if !isBad || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: got %v\nwant %q", tc.name, tc.err, tc.want)
		}
	}
}

// TestVerifyInfoPartitions cuts the challenged sectors as the verifier
// does: in sector-number order, SectorCount per partition, the last
// padded.
func TestVerifyInfoPartitions(t *testing.T) {
	info, _ := post.StackedDrgWindow2KiBV1.Info()
	rand := [32]byte{5}
	var sectors []post.SectorInfo
	var pub []post.PublicSector
	for _, n := range []uint64{30, 10, 20} {
		r := [32]byte{byte(n)}
		sectors = append(sectors, post.SectorInfo{SealProof: filecoin.StackedDrg2KiBV1_1, SectorNumber: n, SealedCID: filecoin.SealedCID(r)})
	}
	for _, n := range []uint64{10, 20, 30} {
		pub = append(pub, post.PublicSector{ID: n, CommR: [32]byte{byte(n)}})
	}
	v := post.WindowPoStVerifyInfo{Randomness: rand[:], Proofs: []post.PoStProof{{PoStProof: info.Proof}}, ChallengedSectors: sectors}
	_, inputs, err := v.PublicInputs()
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) != 2 {
		t.Fatalf("%d partitions", len(inputs))
	}
	p0, _ := post.WindowInputs(info, rand, pub[:2], 0)
	p1, _ := post.WindowInputs(info, rand, pub[2:], 1)
	sameInputs(t, "partition 0", inputs[0], p0)
	sameInputs(t, "partition 1", inputs[1], p1)
	// Partition 1's one sector is repeated: [comm_r, 10 leaves] twice, and
	// its leaves use sector index 2 (ApiVersion 1.0).
	for i := range 11 {
		if !inputs[1][i].Equal(&inputs[1][11+i]) {
			t.Fatalf("padding input %d differs", i)
		}
	}
	for n := range 10 {
		want := post.LeafChallenge(rand, 30, post.ChallengeIndex(info.API, 2, 10, n), info.Nodes)
		if got := inputs[1][1+n]; !got.IsUint64() || got.Uint64() != want {
			t.Fatalf("leaf %d: %v, want %d", n, got, want)
		}
	}
	// Chain randomness is used with byte 31 masked, as Lotus does.
	v.Randomness = append([]byte(nil), rand[:]...)
	v.Randomness[31] = 0xc0
	_, masked, err := v.PublicInputs()
	if err != nil {
		t.Fatal(err)
	}
	sameInputs(t, "masked", masked[1], inputs[1])
}
