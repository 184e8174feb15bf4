package server

import (
	"errors"
	"math"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/cuzk-project/cuzk/engine"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

func TestRequestFromProtoCopiesEveryField(t *testing.T) {
	p := &cuzkv1.SubmitProofRequest{
		RequestId: "snap-1-2", ProofKind: cuzkv1.ProofKind_SNAP_DEALS_UPDATE, SectorSize: 64 << 30,
		RegisteredProof: 4, Priority: cuzkv1.Priority_LOW, VanillaProof: []byte{9},
		VanillaProofs: [][]byte{{1}, {2}}, SectorNumber: 2, MinerId: 1, Randomness: make([]byte, 32),
		PartitionIndex: 5, CommROld: make([]byte, 32), CommRNew: make([]byte, 32), CommDNew: make([]byte, 32),
	}
	p.CommROld[0], p.CommRNew[0], p.CommDNew[0], p.Randomness[0] = 1, 2, 3, 4
	r, err := RequestFromProto(p)
	if err != nil {
		t.Fatal(err)
	}
	want := engine.Request{
		RequestID: "snap-1-2", Kind: engine.KindSnapDealsUpdate, SectorSize: 64 << 30, RegisteredProof: 4,
		Priority: engine.PriorityLow, SectorNumber: 2, MinerID: 1, PartitionIndex: 5,
	}
	if r.RequestID != want.RequestID || r.Kind != want.Kind || r.SectorSize != want.SectorSize ||
		r.RegisteredProof != want.RegisteredProof || r.Priority != want.Priority || r.SectorNumber != want.SectorNumber ||
		r.MinerID != want.MinerID || r.PartitionIndex != want.PartitionIndex {
		t.Errorf("scalars: got %+v", r)
	}
	if len(r.VanillaProof) != 1 || len(r.VanillaProofs) != 2 || r.Randomness[0] != 4 ||
		r.CommROld[0] != 1 || r.CommRNew[0] != 2 || r.CommDNew[0] != 3 {
		t.Errorf("bytes fields not carried over: %+v", r)
	}
}

func TestMillis(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want uint64
	}{{-time.Second, 0}, {0, 0}, {999 * time.Microsecond, 0}, {1500 * time.Millisecond, 1500}} {
		if got := millis(tt.d); got != tt.want {
			t.Errorf("millis(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
}

func TestClampU32(t *testing.T) {
	if clampU32(-1) != 0 || clampU32(7) != 7 || clampU32(1<<40) != 1<<32-1 {
		t.Fatal("clampU32")
	}
}

// FuzzSubmitProofRequest feeds arbitrary wire bytes through decoding and
// validation: nothing may panic, and what validation accepts is sane.
func FuzzSubmitProofRequest(f *testing.F) {
	for _, p := range []*cuzkv1.SubmitProofRequest{
		porep("a"),
		{ProofKind: cuzkv1.ProofKind_WINNING_POST, VanillaProofs: [][]byte{{1}}, Randomness: make([]byte, 32)},
		{ProofKind: 77, RequestId: "\x00"},
	} {
		b, _ := proto.Marshal(p)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var p cuzkv1.SubmitProofRequest
		if proto.Unmarshal(b, &p) != nil {
			return
		}
		r, err := RequestFromProto(&p)
		if err != nil {
			if !errors.Is(err, errBadRequest) {
				t.Fatalf("rejection %v is not errBadRequest", err)
			}
			return
		}
		if r.Kind < engine.KindPoRepSealCommit || r.Kind > engine.KindWinningPoSt {
			t.Fatalf("accepted kind %d", r.Kind)
		}
		if r.Kind == engine.KindPoRepSealCommit && len(r.VanillaProof) == 0 {
			t.Fatal("accepted PoRep without a vanilla proof")
		}
	})
}

func TestFromMillis(t *testing.T) {
	for _, tt := range []struct {
		ms   uint64
		want time.Duration
	}{
		{0, 0},
		{80, 80 * time.Millisecond},
		{math.MaxUint64, math.MaxInt64},
		{uint64(math.MaxInt64/int64(time.Millisecond)) + 1, math.MaxInt64},
	} {
		if got := fromMillis(tt.ms); got != tt.want {
			t.Errorf("fromMillis(%d) = %v, want %v", tt.ms, got, tt.want)
		}
	}
}
