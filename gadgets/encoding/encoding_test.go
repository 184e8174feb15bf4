package encoding_test

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/encoding"
	"github.com/cuzk-project/cuzk/gadgets/internal/gadgettest"
	"github.com/cuzk-project/cuzk/gadgets/num"
)

func TestEncodeDecode(t *testing.T) {
	var key, data fr.Element
	key.SetRandom()
	data.SetRandom()
	r := gadgettest.NewRecorder()
	k, d := num.Alloc(r, key), num.Alloc(r, data)
	replica := encoding.Encode(r, k, d)
	want := encoding.EncodeNative(key, data)
	if !replica.Value.Equal(&want) {
		t.Fatal("encode differs from native")
	}
	back := encoding.Decode(r, k, replica)
	if !back.Value.Equal(&data) {
		t.Fatal("decode does not invert encode")
	}
	if got := encoding.DecodeNative(key, want); !got.Equal(&data) {
		t.Fatal("native decode does not invert encode")
	}
	if len(r.Constraints) != 2 || r.Unsatisfied() != -1 {
		t.Fatal("shape or satisfaction")
	}
	// encode: (key + data) · ONE = replica.
	c := r.Constraints[0]
	if len(c.A) != 2 || c.A[0].Var != k.Var || c.A[1].Var != d.Var || c.C[0].Var != replica.Var {
		t.Fatal("encode row is not (key + data) · ONE = replica")
	}
	r.Flip(replica.Var)
	if r.Unsatisfied() == -1 {
		t.Fatal("wrong replica satisfies")
	}
}
