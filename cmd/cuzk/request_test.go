package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/server"
)

func FuzzDecodeSeal(f *testing.F) {
	f.Add([]byte(`{"SealProof":5,"Miner":1000,"Number":1,"DealIDs":null,"Randomness":"AAAA","InteractiveRandomness":null,"Proof":null,` +
		`"SealedCID":{"/":"bagboea4b5abcaam4vouj7wnvtzicuowdjspcpq6maqaqrq2w25zu6ui7lnho3jk4"},"UnsealedCID":{"/":"baga6ea4seaqpy7usqklokfx2vxuynmupslkeutzexe2uqurdg5vhtebhxqmpqmy"}}`))
	f.Add([]byte(`{"SealProof":99}`))
	f.Add([]byte(`{"request_id":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := decodeSeal(b)
		if err != nil {
			return
		}
		js, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		again, err := decodeSeal(js)
		if err != nil {
			t.Fatalf("re-encoded seal does not decode: %v\n%s", err, js)
		}
		if js2, _ := json.Marshal(again); !bytes.Equal(js, js2) {
			t.Fatalf("round trip changed the seal:\n%s\n%s", js, js2)
		}
		if _, err := v.SealProof.Info(); err != nil {
			t.Fatalf("accepted an unknown proof %d", v.SealProof)
		}
	})
}

func FuzzDecodeRequest(f *testing.F) {
	f.Add([]byte(`{"request_id":"porep-1000-1","proof_kind":"POREP_SEAL_COMMIT","sector_size":"2048","registered_proof":"5","vanilla_proof":"e30="}`))
	f.Add([]byte(`{"proofKind":1,"minerId":"7"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeRequest(b)
		if err != nil {
			return
		}
		req, err := server.RequestFromProto(r)
		if err != nil {
			return
		}
		if req.SectorSize != r.SectorSize || len(req.VanillaProof) != len(r.VanillaProof) {
			t.Fatal("engineRequest changed the request")
		}
		if _, err := protojson.Marshal(r); err != nil {
			t.Fatal(err)
		}
	})
}

func TestDecodeSeal(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"SealProof":5} {}`, "trailing data"},
		{`{"SealProof":77}`, "SealProof 77"},
		{`{"SealProof":5,"Ticket":"AAAA"}`, "unknown field"},
		{`[]`, "not a SealVerifyInfo"},
	} {
		if _, err := decodeSeal([]byte(tc.in)); err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
			t.Errorf("%s: %v, want an error containing %q", tc.in, err, tc.want)
		}
	}
	v, err := decodeSeal([]byte(`{"SealProof":5,"Miner":9}`))
	if err != nil || v.SealProof != filecoin.StackedDrg2KiBV1_1 || v.Miner != 9 {
		t.Fatalf("%+v %v", v, err)
	}
}
