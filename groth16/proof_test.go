package groth16

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// batchFixture is one setup and ten proofs of the same circuit with
// different witnesses.
type batchFixture struct {
	params *Params
	pvk    *PreparedVerifyingKey
	proofs []Proof
	inputs [][]fr.Element
}

var batchFix = sync.OnceValues(func() (*batchFixture, error) {
	base := randCircuit{Seed: 99, Inputs: 6, Rows: 200}
	p, err := Setup(&base, []byte("batch"))
	if err != nil {
		return nil, err
	}
	pvk, err := PrepareVerifyingKey(&p.VK)
	if err != nil {
		return nil, err
	}
	f := &batchFixture{params: p, pvk: pvk}
	for w := uint64(0); w < 10; w++ {
		c := base
		c.Witness = w
		proof, in, err := Prove(context.Background(), refDevice{}, p, &c, newDetReader(100+w))
		if err != nil {
			return nil, err
		}
		f.proofs = append(f.proofs, proof)
		f.inputs = append(f.inputs, in)
	}
	return f, nil
})

func mustBatch(t testing.TB) *batchFixture {
	t.Helper()
	f, err := batchFix()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestProofRoundTrip(t *testing.T) {
	f := mustBatch(t)
	for i, p := range f.proofs {
		b := p.Bytes()
		q, err := DecodeProof(b[:])
		if err != nil {
			t.Fatalf("proof %d: %v", i, err)
		}
		if qb := q.Bytes(); qb != b {
			t.Fatalf("proof %d: round trip differs", i)
		}
		m, _ := p.MarshalBinary()
		var r Proof
		if err := r.UnmarshalBinary(m); err != nil || r.Bytes() != b {
			t.Fatalf("proof %d: MarshalBinary/UnmarshalBinary: %v", i, err)
		}
	}
	multi := EncodeProofs(f.proofs)
	if len(multi) != 10*ProofSize {
		t.Fatalf("multi-proof is %d bytes", len(multi))
	}
	ps, err := DecodeProofs(multi)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(EncodeProofs(ps), multi) {
		t.Fatal("multi-proof round trip differs")
	}
}

func TestDecodeProofRejects(t *testing.T) {
	f := mustBatch(t)
	good := f.proofs[0].Bytes()
	g1ns := nonSubgroupG1()
	g2ns := nonSubgroupG2()
	nsA := g1ns.Bytes()
	nsB := g2ns.Bytes()
	set := func(off int, v []byte) []byte {
		b := good
		copy(b[off:], v)
		return b[:]
	}
	infG1 := append([]byte{0xc0}, make([]byte, 47)...)
	infG2 := append([]byte{0xc0}, make([]byte, 95)...)
	modulus := fpModulusBytes()
	modulus[0] |= flagCompressed
	cases := []struct {
		name  string
		b     []byte
		want  error
		where string
	}{
		{"short", good[:191], ErrMalformed, "191 bytes"},
		{"long", append(good[:], 0), ErrMalformed, "193 bytes"},
		{"A infinity", set(0, infG1), ErrPointAtInfinity, "proof: a"},
		{"B infinity", set(48, infG2), ErrPointAtInfinity, "proof: b"},
		{"C infinity", set(144, infG1), ErrPointAtInfinity, "proof: c"},
		{"A not in subgroup", set(0, nsA[:]), ErrNotInSubgroup, "proof: a"},
		{"B not in subgroup", set(48, nsB[:]), ErrNotInSubgroup, "proof: b"},
		{"C non-canonical", set(144, modulus), ErrNonCanonical, "proof: c"},
		{"A uncompressed flag", func() []byte { b := good; b[0] &^= flagCompressed; return b[:] }(), ErrBadPointEncoding, "proof: a"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeProof(tc.b)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.where) {
				t.Fatalf("DecodeProof = %v, want %v mentioning %q", err, tc.want, tc.where)
			}
		})
	}
	// Off the curve: an x with no y. Search one.
	var x bls12381.G1Affine
	for v := uint64(1); ; v++ {
		x.X.SetUint64(v)
		var rhs, four = x.X, x.X
		four.SetUint64(4)
		rhs.Square(&x.X).Mul(&rhs, &x.X).Add(&rhs, &four)
		if rhs.Legendre() == -1 {
			break
		}
	}
	xb := x.X.Bytes()
	xb[0] |= flagCompressed
	if _, err := DecodeProof(set(144, xb[:])); !errors.Is(err, ErrNotOnCurve) {
		t.Fatalf("x off the curve: %v", err)
	}
	// Multi-proofs: errors name the partition.
	multi := EncodeProofs(f.proofs[:3])
	copy(multi[2*ProofSize+48:], infG2)
	if _, err := DecodeProofs(multi); !errors.Is(err, ErrPointAtInfinity) || !strings.Contains(err.Error(), "partition 2") {
		t.Fatalf("DecodeProofs = %v", err)
	}
	for _, n := range []int{0, 191, 385} {
		if _, err := DecodeProofs(make([]byte, n)); !errors.Is(err, ErrMalformed) {
			t.Fatalf("DecodeProofs(%d bytes) = %v", n, err)
		}
	}
}

func TestVerifyRejectsTampering(t *testing.T) {
	f := mustBatch(t)
	proof, inputs := f.proofs[0], f.inputs[0]
	if err := Verify(f.pvk, &proof, inputs); err != nil {
		t.Fatal(err)
	}
	// Every public input, changed.
	var one fr.Element
	one.SetOne()
	for i := range inputs {
		bad := append([]fr.Element(nil), inputs...)
		bad[i].Add(&bad[i], &one)
		if err := Verify(f.pvk, &proof, bad); !errors.Is(err, ErrInvalidProof) {
			t.Fatalf("input %d changed: %v", i, err)
		}
	}
	// Wrong input counts.
	if err := Verify(f.pvk, &proof, inputs[1:]); !errors.Is(err, ErrInputCount) {
		t.Fatalf("too few inputs: %v", err)
	}
	if err := Verify(f.pvk, &proof, append(inputs, one)); !errors.Is(err, ErrInputCount) {
		t.Fatalf("too many inputs: %v", err)
	}
	// Every proof byte, flipped: either the decoder or the verifier says no.
	good := proof.Bytes()
	// 0x20 at bytes 0, 48 and 144 is the sign flag: it negates y and
	// yields a valid point, which the pairing check must refuse.
	bits := []byte{0x01, 0x20, 0x80}
	verified := 0
	for i := 0; i < ProofSize; i++ {
		for _, bit := range bits {
			b := good
			b[i] ^= bit
			q, err := DecodeProof(b[:])
			if err != nil {
				continue
			}
			verified++
			if err := Verify(f.pvk, &q, inputs); !errors.Is(err, ErrInvalidProof) {
				t.Fatalf("byte %d ^ %#x: Verify = %v, want ErrInvalidProof", i, bit, err)
			}
		}
	}
	if verified < 3 {
		t.Fatalf("only %d flipped proofs decoded; the sign flips should", verified)
	}
	// A proof of another witness does not verify this one's inputs.
	if err := Verify(f.pvk, &f.proofs[1], inputs); !errors.Is(err, ErrInvalidProof) {
		t.Fatalf("proof 1 with inputs 0: %v", err)
	}
	// In-memory proofs with bad points are refused.
	q := proof
	q.A.X.SetZero()
	q.A.Y.SetZero()
	if err := Verify(f.pvk, &q, inputs); !errors.Is(err, ErrInvalidProof) {
		t.Fatalf("identity A: %v", err)
	}
	q = proof
	q.C = nonSubgroupG1()
	if err := Verify(f.pvk, &q, inputs); !errors.Is(err, ErrInvalidProof) {
		t.Fatalf("non-subgroup C: %v", err)
	}
}

func TestBatchVerify(t *testing.T) {
	f := mustBatch(t)
	rnd := newDetReader(5)
	if err := BatchVerify(f.pvk, f.proofs, f.inputs, rnd); err != nil {
		t.Fatalf("10 valid proofs: %v", err)
	}
	if err := BatchVerify(f.pvk, f.proofs[:1], f.inputs[:1], nil); err != nil {
		t.Fatalf("1 valid proof: %v", err)
	}
	for j := range f.proofs {
		// Each proof alone verifies too.
		if err := Verify(f.pvk, &f.proofs[j], f.inputs[j]); err != nil {
			t.Fatalf("proof %d: %v", j, err)
		}
	}
	var one fr.Element
	one.SetOne()
	cases := []struct {
		name string
		mod  func(ps []Proof, in [][]fr.Element)
	}{
		{"input changed", func(ps []Proof, in [][]fr.Element) { in[3][0].Add(&in[3][0], &one) }},
		{"inputs swapped", func(ps []Proof, in [][]fr.Element) { in[1], in[2] = in[2], in[1] }},
		{"C from another proof", func(ps []Proof, in [][]fr.Element) { ps[9].C = ps[8].C }},
		{"A negated", func(ps []Proof, in [][]fr.Element) { ps[0].A.Neg(&ps[0].A) }},
		{"B from another proof", func(ps []Proof, in [][]fr.Element) { ps[5].B = ps[4].B }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ps := append([]Proof(nil), f.proofs...)
			in := make([][]fr.Element, len(f.inputs))
			for j := range in {
				in[j] = append([]fr.Element(nil), f.inputs[j]...)
			}
			tc.mod(ps, in)
			if err := BatchVerify(f.pvk, ps, in, nil); !errors.Is(err, ErrInvalidProof) {
				t.Fatalf("BatchVerify = %v, want ErrInvalidProof", err)
			}
		})
	}
	if err := BatchVerify(f.pvk, nil, nil, nil); err == nil {
		t.Fatal("empty batch accepted")
	}
	if err := BatchVerify(f.pvk, f.proofs[:2], f.inputs[:1], nil); !errors.Is(err, ErrInputCount) {
		t.Fatalf("mismatched lengths: %v", err)
	}
	short := [][]fr.Element{f.inputs[0], f.inputs[1][1:]}
	if err := BatchVerify(f.pvk, f.proofs[:2], short, nil); !errors.Is(err, ErrInputCount) {
		t.Fatalf("short input vector: %v", err)
	}
}

func TestProveRejectsMismatchedParams(t *testing.T) {
	f := mustBatch(t)
	other := randCircuit{Seed: 5, Inputs: 6, Rows: 200}
	_, _, err := Prove(context.Background(), refDevice{}, f.params, &other, nil)
	if !errors.Is(err, ErrParamsMismatch) {
		t.Fatalf("Prove with another circuit's params: %v", err)
	}
}
