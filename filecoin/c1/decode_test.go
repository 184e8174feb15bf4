package c1

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/hash"
)

func TestRoundTrip(t *testing.T) {
	proofs := []filecoin.SealProof{filecoin.StackedDrg2KiBV1, filecoin.StackedDrg2KiBV1_1,
		filecoin.StackedDrg8MiBV1_1, filecoin.StackedDrg512MiBV1_1_Feat_SyntheticPoRep,
		filecoin.StackedDrg2KiBV1_2_Feat_NonInteractivePoRep}
	if !testing.Short() {
		proofs = append(proofs, filecoin.StackedDrg32GiBV1_1, filecoin.StackedDrg64GiBV1_1)
	}
	for _, p := range proofs {
		t.Run(p.String(), func(t *testing.T) {
			o := randomOutput(t, p, uint64(p))
			b := mustMarshal(t, o)
			want, err := mirrorJSON(o)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b, want) {
				i := firstDiff(b, want)
				t.Fatalf("MarshalJSON differs from the serde-order mirror at byte %d:\n got %s\nwant %s", i, around(b, i), around(want, i))
			}
			got, err := Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, o) {
				t.Fatal("Decode(MarshalJSON(o)) != o")
			}
			again := mustMarshal(t, got)
			if !bytes.Equal(again, b) {
				t.Fatal("second MarshalJSON differs")
			}
			// The reader path, fed one byte at a time, decodes the same.
			r, err := DecodeReader(iotest.OneByteReader(bytes.NewReader(b)))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(r, o) {
				t.Fatal("DecodeReader differs from Decode")
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func around(b []byte, i int) string {
	return string(b[max(0, i-60):min(len(b), i+60)])
}

// TestDecodeForms: serde accepts keys in any order (Curio re-marshals C1
// with its Go structs in alphabetical order), whitespace, escaped keys and
// unknown keys; so does Decode.
func TestDecodeForms(t *testing.T) {
	o := randomOutput(t, filecoin.StackedDrg2KiBV1_1, 7)
	b := mustMarshal(t, o)
	// Top-level keys alphabetical, as curio lib/proof Commit1OutRaw marshals.
	var alpha bytes.Buffer
	alpha.WriteString(`{"comm_d":`)
	alpha.WriteString(domainJSON(o.CommD))
	alpha.WriteString(`,"comm_r":` + domainJSON(o.CommR))
	alpha.WriteString(`,"registered_proof":"StackedDrg2KiBV1_1","replica_id":` + domainJSON(o.ReplicaID))
	alpha.WriteString(`,"seed":` + domainJSON(o.Seed) + `,"ticket":` + domainJSON(o.Ticket))
	vp := b[bytes.Index(b, []byte(`"vanilla_proofs":`)):bytes.Index(b, []byte(`,"comm_r":`))]
	alpha.WriteString(`,`)
	alpha.Write(vp)
	alpha.WriteString(`}`)

	spaced := bytes.ReplaceAll(b, []byte(","), []byte(" ,\n\t"))
	spaced = bytes.ReplaceAll(spaced, []byte(":"), []byte("\r: "))
	spaced = append(append([]byte("  "), spaced...), "\n"...)

	escaped := bytes.Replace(b, []byte(`"comm_d_proofs"`), []byte(`"comm_\u0064_proofs"`), -1)
	unknown := bytes.Replace(b, []byte(`{"registered_proof"`), []byte(`{"extra":{"a":[1,2.5e3,-0,true,false,null,"x\"\u00e9"]},"registered_proof"`), 1)
	unknown = bytes.Replace(unknown, []byte(`"layer_index"`), []byte(`"_h":null,"layer_index"`), -1)

	for name, in := range map[string][]byte{"alphabetical": alpha.Bytes(), "whitespace": spaced, "escaped key": escaped, "unknown keys": unknown} {
		t.Run(name, func(t *testing.T) {
			got, err := Decode(in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, o) {
				t.Fatal("decoded output differs")
			}
		})
	}
}

func domainJSON(d [32]byte) string {
	e := encoder{}
	dd := d
	e.domain((*hash.Domain)(&dd))
	return string(e.b)
}

// TestDecodeRejects: every malformed input fails with an error wrapping
// ErrBadVanillaProof that names the place.
func TestDecodeRejects(t *testing.T) {
	base := randomOutput(t, filecoin.StackedDrg2KiBV1_1, 3)
	good := mustMarshal(t, base)
	replace := func(old, new string) []byte {
		if !bytes.Contains(good, []byte(old)) {
			t.Fatalf("%q not in the JSON", old)
		}
		return bytes.Replace(good, []byte(old), []byte(new), 1)
	}
	firstDomain := domainJSON(base.CommR) // comm_r's text is unique
	structural := func(f func(o *Output)) []byte {
		o := randomOutput(t, filecoin.StackedDrg2KiBV1_1, 3)
		f(o)
		return mustMarshal(t, o)
	}
	nonCanonical := [32]byte{}
	for i := range nonCanonical {
		nonCanonical[i] = 0xff
	}

	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "offset 0: expected '{', found end of input"},
		{"truncated", good[:len(good)/2], "end of input"},
		{"trailing", append(append([]byte{}, good...), "{}"...), "trailing data"},
		{"not an object", []byte(`[1]`), "expected '{'"},
		{"missing field", replace(`,"ticket":`, `,"ticket_":`), `missing field "ticket"`},
		{"duplicate field", replace(`"comm_r":`, `"comm_d":`+firstDomain+`,"comm_r":`), "comm_d: offset"},
		{"domain short", replace(firstDomain, firstDomain[:strings.LastIndex(firstDomain, ",")]+"]"), "comm_r: offset"},
		{"domain long", replace(firstDomain, firstDomain[:len(firstDomain)-1]+",1]"), "more than 32 bytes"},
		{"byte 256", replace(firstDomain, "[256"+firstDomain[strings.Index(firstDomain, ","):]), "out of range"},
		{"byte 1000", replace(firstDomain, "[1000"+firstDomain[strings.Index(firstDomain, ","):]), "out of range"},
		{"negative", replace(firstDomain, "[-1"+firstDomain[strings.Index(firstDomain, ","):]), "negative"},
		{"fraction", replace(firstDomain, "[1.0"+firstDomain[strings.Index(firstDomain, ","):]), "fraction"},
		{"exponent", replace(firstDomain, "[1e1"+firstDomain[strings.Index(firstDomain, ","):]), "fraction or exponent"},
		{"leading zero", replace(firstDomain, "[01"+firstDomain[strings.Index(firstDomain, ","):]), "leading zero"},
		{"string byte", replace(firstDomain, `["1"`+firstDomain[strings.Index(firstDomain, ","):]), "expected an unsigned integer"},
		{"_h not null", replace(`"_h":null`, `"_h":0`), "partition 0 challenge 0: replica_column_proofs.c_x.column._h: offset"},
		{"_h missing", replace(`,"_h":null`, ``), `missing field "_h"`},
		{"unknown variant", replace(`{"data":{"Single"`, `{"data":{"Double"`), `unknown variant "Double"`},
		{"two variants", replace(`{"data":{"Single":`, `{"data":{"Sub":{},"Single":`), "missing field"},
		{"no variant", replace(`"vanilla_proofs":{"StackedDrg2KiBV1":`, `"vanilla_proofs":{},"x":`), "no variant"},
		{"vanilla key", replace(`"StackedDrg2KiBV1":`, `"StackedDrg8MiBV1":`), `vanilla_proofs: variant "StackedDrg8MiBV1"`},
		{"unknown proof", replace(`"StackedDrg2KiBV1_1"`, `"StackedDrg2KiBV9"`), "registered_proof"},
		{"index too big", replace(`"index":`, `"index":99999999999,"x":`), "out of range"},
		{"nesting", replace(`{"registered_proof"`, `{"x":`+strings.Repeat("[", 100)+strings.Repeat("]", 100)+`,"registered_proof"`), "nested deeper"},
		{"control char", replace(`"registered_proof"`, "\"registered\x01_proof\""), "control character"},
		{"bad escape", replace(`"registered_proof"`, `"registered\q_proof"`), "bad escape"},
		{"bad utf8", replace(`"StackedDrg2KiBV1_1"`, "\"\xff\""), "UTF-8"},

		{"partition flood", replace(`"vanilla_proofs":{"StackedDrg2KiBV1":[`, `"vanilla_proofs":{"StackedDrg2KiBV1":[`+strings.Repeat("[],", 200)), "more than 126 partitions"},
		{"partitions", structural(func(o *Output) { o.Partitions = o.Partitions[:0] }), "vanilla_proofs: 0 partitions, want 1"},
		{"challenges", structural(func(o *Output) { o.Partitions[0] = o.Partitions[0][:1] }), "partition 0: 1 challenges, want 2"},
		{"comm_d levels", structural(func(o *Output) {
			p := &o.Partitions[0][1].CommDProofs
			p.Base = p.Base[:5]
		}), "partition 0 challenge 1: comm_d_proofs.path: 5 levels, want 6"},
		{"column levels", structural(func(o *Output) {
			p := &o.Partitions[0][1].ReplicaColumnProofs.DRGParents[2].Inclusion
			p.Base = p.Base[:1]
		}), "partition 0 challenge 1: replica_column_proofs.drg_parents[2].inclusion_proof.path: 1 levels, want 2"},
		{"kind", structural(func(o *Output) { o.Partitions[0][0].CommRLastProof.Kind = KindSub }), "comm_r_last_proof: Sub proof, want Single"},
		{"siblings", structural(func(o *Output) {
			e := &o.Partitions[0][0].CommRLastProof.Base[1]
			e.Siblings = e.Siblings[:6]
		}), "comm_r_last_proof.path[1].hashes: 6 siblings, want 7"},
		{"path index", structural(func(o *Output) { o.Partitions[0][0].CommDProofs.Base[3].Index = 2 }), "comm_d_proofs.path[3].index: 2, want < 2"},
		{"non-canonical sibling", structural(func(o *Output) {
			o.Partitions[0][1].ReplicaColumnProofs.ExpParents[7].Inclusion.Base[0].Siblings[4] = nonCanonical
		}), "replica_column_proofs.exp_parents[7].inclusion_proof.path[0].hashes[4]: ffff"},
		{"non-canonical row", structural(func(o *Output) { o.Partitions[0][0].ReplicaColumnProofs.CX.Rows[1] = nonCanonical }), "c_x.column.rows[1]"},
		{"non-canonical root", structural(func(o *Output) { o.Partitions[0][0].CommDProofs.Root = nonCanonical }), "comm_d_proofs.root"},
		{"non-canonical comm_r", structural(func(o *Output) { o.CommR = nonCanonical }), "comm_r: ffff"},
		{"non-canonical replica_id", structural(func(o *Output) { o.ReplicaID = nonCanonical }), "replica_id: ffff"},
		{"rows", structural(func(o *Output) {
			c := &o.Partitions[0][0].ReplicaColumnProofs.ExpParents[0]
			c.Rows = c.Rows[:1]
		}), "exp_parents[0].column.rows: 1 rows, want 2"},
		{"drg columns", structural(func(o *Output) {
			r := &o.Partitions[0][0].ReplicaColumnProofs
			r.DRGParents = r.DRGParents[:5]
		}), "replica_column_proofs.drg_parents: 5 columns, want 6"},
		{"labeling proofs", structural(func(o *Output) {
			p := &o.Partitions[0][0]
			p.LabelingProofs = p.LabelingProofs[:1]
		}), "labeling_proofs: 1 labeling proofs, want 2"},
		{"labeling parents", structural(func(o *Output) {
			l := &o.Partitions[0][0].LabelingProofs[1]
			l.Parents = l.Parents[:36]
		}), "labeling_proofs[1].parents: 36 parents, want 37"},
		{"encoding parents", structural(func(o *Output) {
			l := &o.Partitions[0][0].EncodingProof
			l.Parents = append(l.Parents, l.Parents[0])
		}), "encoding_proof.parents: 38 parents, want 37"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(c.in)
			if err == nil {
				t.Fatal("decoded")
			}
			if !errors.Is(err, ErrBadVanillaProof) {
				t.Fatalf("%v does not wrap ErrBadVanillaProof", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
			_, rerr := DecodeReader(iotest.HalfReader(bytes.NewReader(c.in)))
			if rerr == nil || rerr.Error() != err.Error() {
				t.Fatalf("DecodeReader: %v, Decode: %v", rerr, err)
			}
		})
	}
}

// TestDecodeReadError: a failing reader is reported as such.
func TestDecodeReadError(t *testing.T) {
	b := mustMarshal(t, randomOutput(t, filecoin.StackedDrg2KiBV1_1, 1))
	r := iotest.TimeoutReader(bytes.NewReader(b)) // second read fails
	_, err := DecodeReader(r)
	if !errors.Is(err, ErrBadVanillaProof) || !strings.Contains(err.Error(), "read: timeout") {
		t.Fatalf("got %v", err)
	}
}
