package filecoin

import (
	"encoding/json"
	"testing"
)

// The JSON Go's encoding/json writes for go-state-types proof.SealVerifyInfo:
// fields in declaration order, abi.SectorID's promoted, []abi.DealID as an
// array, abi.SealRandomness / InteractiveSealRandomness / Proof (byte
// slices) in standard base64, cid.Cid as {"/":…} and null when undefined.
func TestSealVerifyInfoJSON(t *testing.T) {
	d, _ := ParseCommDCID(zeroCommDCIDs[3].cid)
	r, _ := ParseCommRCID(goldenCommRCIDs[0])
	tests := []struct {
		name string
		in   SealVerifyInfo
		want string
	}{
		{
			"full",
			SealVerifyInfo{
				SealProof: StackedDrg32GiBV1_1, SectorID: SectorID{Miner: 1000, Number: 7},
				DealIDs: []uint64{1, 2}, Randomness: []byte{1, 2, 3}, InteractiveRandomness: []byte{4, 5, 6, 7},
				Proof: []byte{9, 8, 7, 6, 5}, SealedCID: SealedCID(r), UnsealedCID: UnsealedCID(d),
			},
			`{"SealProof":8,"Miner":1000,"Number":7,"DealIDs":[1,2],"Randomness":"AQID","InteractiveRandomness":"BAUGBw==","Proof":"CQgHBgU=",` +
				`"SealedCID":{"/":"` + goldenCommRCIDs[0] + `"},"UnsealedCID":{"/":"` + zeroCommDCIDs[3].cid + `"}}`,
		},
		{
			"empty deals",
			SealVerifyInfo{SealProof: StackedDrg2KiBV1, DealIDs: []uint64{}},
			`{"SealProof":0,"Miner":0,"Number":0,"DealIDs":[],"Randomness":null,"InteractiveRandomness":null,"Proof":null,"SealedCID":null,"UnsealedCID":null}`,
		},
		{
			"zero",
			SealVerifyInfo{},
			`{"SealProof":0,"Miner":0,"Number":0,"DealIDs":null,"Randomness":null,"InteractiveRandomness":null,"Proof":null,"SealedCID":null,"UnsealedCID":null}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Fatalf("Marshal\n got %s\nwant %s", b, tc.want)
			}
			var back SealVerifyInfo
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			again, _ := json.Marshal(back)
			if string(again) != tc.want {
				t.Errorf("round trip\n got %s\nwant %s", again, tc.want)
			}
		})
	}
}
