package c1

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/cuzk-project/cuzk/filecoin"
)

// goEnvelope is Curio's c1OutputWrapper (lib/ffi/cuzk_funcs.go).
type goEnvelope struct {
	SectorNum  int64  `json:"SectorNum"`
	Phase1Out  []byte `json:"Phase1Out"`
	SectorSize uint64 `json:"SectorSize"`
}

func TestEnvelope(t *testing.T) {
	o := randomOutput(t, filecoin.StackedDrg2KiBV1_1, 11)
	c1 := mustMarshal(t, o)
	e := &Envelope{SectorNum: 234, Phase1Out: c1, SectorSize: 2048}
	enc := e.Encode()
	want, err := json.Marshal(goEnvelope{e.SectorNum, e.Phase1Out, e.SectorSize})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(enc, want) {
		t.Fatalf("Encode differs from encoding/json:\n got %.200s\nwant %.200s", enc, want)
	}
	got, err := DecodeEnvelope(enc)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, e) {
		t.Fatal("DecodeEnvelope(Encode(e)) != e")
	}
	out, err := got.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, o) {
		t.Fatal("Output differs")
	}
	e2, out2, err := DecodeEnvelopeOutput(enc)
	if err != nil {
		t.Fatal(err)
	}
	if e2.SectorNum != 234 || e2.SectorSize != 2048 || e2.Phase1Out != nil || !reflect.DeepEqual(out2, o) {
		t.Fatal("DecodeEnvelopeOutput differs")
	}
	// Negative sector numbers and other key orders pass through, as in Go.
	neg := []byte(`{"SectorSize":2048, "Phase1Out":"` + string(enc[bytes.Index(enc, []byte(`"Phase1Out":"`))+13:bytes.LastIndex(enc, []byte(`","SectorSize"`))]) + `", "SectorNum":-5}`)
	e3, out3, err := DecodeEnvelopeOutput(neg)
	if err != nil || e3.SectorNum != -5 || !reflect.DeepEqual(out3, o) {
		t.Fatalf("reordered envelope: %v", err)
	}
	// An escaped '/' in the base64 (legal JSON) still decodes.
	esc := bytes.ReplaceAll(enc, []byte("/"), []byte(`\/`))
	if e4, err := DecodeEnvelope(esc); err != nil || !bytes.Equal(e4.Phase1Out, c1) {
		t.Fatalf("escaped envelope: %v", err)
	}
}

func TestEnvelopeRejects(t *testing.T) {
	c1 := mustMarshal(t, randomOutput(t, filecoin.StackedDrg2KiBV1_1, 12))
	good := (&Envelope{SectorNum: 1, Phase1Out: c1, SectorSize: 2048}).Encode()
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "expected '{'"},
		{"bad base64", bytes.Replace(good, []byte(`"Phase1Out":"`), []byte(`"Phase1Out":"*`), 1), "Phase1Out"},
		{"sector size", (&Envelope{SectorNum: 1, Phase1Out: c1, SectorSize: 4096}).Encode(), "SectorSize: 4096, but the C1 output is a StackedDrg2KiBV1_1 (2048 bytes)"},
		{"bad c1", (&Envelope{SectorNum: 1, Phase1Out: c1[:100], SectorSize: 2048}).Encode(), "partition 0 challenge 0: comm_d_proofs: offset 100: unterminated string"},
		{"null", []byte(`{"SectorNum":1,"Phase1Out":null,"SectorSize":2048}`), "end of input"},
		{"missing", []byte(`{"SectorNum":1,"SectorSize":2048}`), `missing field "Phase1Out"`},
		{"sector size negative", []byte(`{"SectorNum":1,"Phase1Out":"","SectorSize":-1}`), "negative"},
		{"sector num overflow", []byte(`{"SectorNum":9223372036854775808,"Phase1Out":"","SectorSize":1}`), "out of range"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := DecodeEnvelopeOutput(c.in)
			if err == nil {
				e, derr := DecodeEnvelope(c.in)
				if derr == nil {
					_, err = e.Output()
				} else {
					err = derr
				}
			}
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, ErrBadVanillaProof) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q: want ErrBadVanillaProof containing %q", err, c.want)
			}
		})
	}
}

// TestBase64Reader: every read size, including reads shorter than one
// decoded quantum, yields the decoded bytes.
func TestBase64Reader(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 4, 5, 100, 70000} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i * 7)
		}
		enc := base64.StdEncoding.EncodeToString(data)
		if err := iotest.TestReader(&base64Reader{src: []byte(enc)}, data); err != nil {
			t.Errorf("%d bytes: %v", n, err)
		}
	}
	if _, err := io.ReadAll(&base64Reader{src: []byte("AAA")}); err == nil {
		t.Error("unpadded base64 accepted")
	}
}
