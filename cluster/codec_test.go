package cluster

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/cuzk-project/cuzk/engine"
)

func TestPayloadRoundTrip(t *testing.T) {
	for _, r := range []engine.Request{
		{},
		{Kind: engine.KindPoRepSealCommit, SectorSize: 32 << 30, RegisteredProof: 8, VanillaProof: []byte(`{"c1":1}`), SectorNumber: 7, MinerID: 1000},
		{Kind: engine.KindWindowPoStPartition, VanillaProofs: [][]byte{[]byte("a"), nil, []byte("ccc")}, Randomness: bytes.Repeat([]byte{9}, 32), PartitionIndex: 3},
		{Kind: engine.KindSnapDealsUpdate, CommROld: []byte{1}, CommRNew: []byte{2}, CommDNew: []byte{3}, VanillaProofs: [][]byte{[]byte("p")}},
	} {
		b := encodeRequest(&r)
		got, err := decodeRequest(b)
		if err != nil {
			t.Fatalf("%+v: %v", r, err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, r)
		}
		// Every truncation and an extra byte are errors, never panics.
		for n := range b {
			if _, err := decodeRequest(b[:n]); !errors.Is(err, ErrBadPayload) {
				t.Fatalf("%d of %d bytes: %v, want ErrBadPayload", n, len(b), err)
			}
		}
		if _, err := decodeRequest(append(b, 0)); !errors.Is(err, ErrBadPayload) {
			t.Errorf("trailing byte: %v", err)
		}
	}
}

// The id and the priority are not content: a payload's hash compares two
// requests under one id.
func TestPayloadExcludesIDAndPriority(t *testing.T) {
	a := engine.Request{RequestID: "a", Priority: engine.PriorityLow, Kind: engine.KindWinningPoSt, VanillaProofs: [][]byte{[]byte("x")}}
	b := a
	b.RequestID, b.Priority = "b", engine.PriorityCritical
	if !bytes.Equal(encodeRequest(&a), encodeRequest(&b)) {
		t.Error("id or priority changed the payload")
	}
	b.VanillaProofs = [][]byte{[]byte("y")}
	if bytes.Equal(encodeRequest(&a), encodeRequest(&b)) {
		t.Error("different vanilla proofs, same payload")
	}
}

func FuzzDecodeRequest(f *testing.F) {
	f.Add(encodeRequest(&engine.Request{Kind: engine.KindWindowPoStPartition, VanillaProofs: [][]byte{[]byte("a")}}))
	f.Add([]byte(payloadMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeRequest(b)
		if err != nil {
			return
		}
		if again := encodeRequest(&r); !bytes.Equal(again, b) {
			t.Fatalf("decoded payload encodes differently")
		}
	})
}

func TestPriorityMapping(t *testing.T) {
	for _, c := range []struct {
		p    engine.Priority
		want int
	}{{engine.PriorityCritical, 1}, {engine.PriorityHigh, 2}, {engine.PriorityNormal, 3}, {engine.PriorityLow, 4}} {
		if got := riverPriority(c.p); got != c.want {
			t.Errorf("%v → %d, want %d", c.p, got, c.want)
		}
		if back := enginePriority(c.want); back != c.p {
			t.Errorf("%d → %v, want %v", c.want, back, c.p)
		}
	}
}
