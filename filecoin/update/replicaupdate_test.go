package update

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/hash"
)

// TestReplicaUpdateInfoJSON: the JSON is what encoding/json makes of
// go-state-types proof.ReplicaUpdateInfo (no tags; abi.RegisteredUpdateProof
// an int64; cid.Cid as {"/": …}; []byte base64).
func TestReplicaUpdateInfoJSON(t *testing.T) {
	rOld, rNew, dNew := hash.Domain{1}, hash.Domain{2}, hash.Domain{3}
	r := NewReplicaUpdateInfo(StackedDrg32GiBV1, rOld, rNew, dNew)
	r.Proof = []byte{0xde, 0xad}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"UpdateProofType":3,"OldSealedSectorCID":{"/":"` + filecoin.CommRCID(rOld) + `"},"NewSealedSectorCID":{"/":"` +
		filecoin.CommRCID(rNew) + `"},"NewUnsealedSectorCID":{"/":"` + filecoin.CommDCID(dNew) + `"},"Proof":"3q0="}`
	if string(b) != want {
		t.Fatalf("JSON\n%s\nwant\n%s", b, want)
	}
	var back ReplicaUpdateInfo
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	gotOld, gotNew, gotD, err := back.Comms()
	if err != nil || gotOld != rOld || gotNew != rNew || gotD != dNew || back.UpdateProofType != StackedDrg32GiBV1 || string(back.Proof) != string(r.Proof) {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	empty, _ := json.Marshal(ReplicaUpdateInfo{})
	if string(empty) != `{"UpdateProofType":0,"OldSealedSectorCID":null,"NewSealedSectorCID":null,"NewUnsealedSectorCID":null,"Proof":null}` {
		t.Errorf("zero value: %s", empty)
	}
}

func TestReplicaUpdateInfoComms(t *testing.T) {
	good := NewReplicaUpdateInfo(StackedDrg2KiBV1, hash.Domain{1}, hash.Domain{2}, hash.Domain{3})
	for _, tc := range []struct {
		name  string
		edit  func(*ReplicaUpdateInfo)
		field string
	}{
		{"missing old", func(r *ReplicaUpdateInfo) { r.OldSealedSectorCID = filecoin.CID{} }, "OldSealedSectorCID"},
		{"comm_d as new sealed", func(r *ReplicaUpdateInfo) { r.NewSealedSectorCID = filecoin.UnsealedCID(hash.Domain{2}) }, "NewSealedSectorCID"},
		{"comm_r as unsealed", func(r *ReplicaUpdateInfo) { r.NewUnsealedSectorCID = filecoin.SealedCID(hash.Domain{3}) }, "NewUnsealedSectorCID"},
		{"non-canonical", func(r *ReplicaUpdateInfo) {
			var big [32]byte
			for i := range big {
				big[i] = 0xff
			}
			r.OldSealedSectorCID = filecoin.SealedCID(big)
		}, "OldSealedSectorCID"},
	} {
		r := good
		tc.edit(&r)
		_, _, _, err := r.Comms()
		if !errors.Is(err, filecoin.ErrBadCID) || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
