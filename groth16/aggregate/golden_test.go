package aggregate

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/groth16"
)

// selfVectorDir holds an aggregate of 8 proofs made by this package with
// everything it was made from, in the layout a bellperson vector would
// take (see its README.md). It pins this package's output byte for byte;
// it is not a reference.
const selfVectorDir = "testdata/self-v2-n8"

// writeSelfVectorEnv, set to 1, regenerates selfVectorDir.
const writeSelfVectorEnv = "CUZK_AGGREGATE_WRITE_TESTDATA"

type vectorFiles struct {
	srs, vk, proofs, inputs, include, aggregate []byte
}

var vectorNames = []string{"srs.bin", "vk.bin", "proofs.bin", "inputs.bin", "include.bin", "aggregate.bin"}

func (v *vectorFiles) slots() []*[]byte {
	return []*[]byte{&v.srs, &v.vk, &v.proofs, &v.inputs, &v.include, &v.aggregate}
}

func makeSelfVector(t *testing.T) *vectorFiles {
	const n = 8
	c, err := synthetic.New(synthetic.Default(32))
	if err != nil {
		t.Fatal(err)
	}
	params, err := groth16.Setup(c, []byte("aggregate self vector; dev parameters only"))
	if err != nil {
		t.Fatal(err)
	}
	var v vectorFiles
	rnd := rand.NewChaCha8([32]byte{'s', 'e', 'l', 'f'})
	for i := 0; i < n; i++ {
		proof, in, err := groth16.Prove(context.Background(), cpu.New(0), params, c, rnd)
		if err != nil {
			t.Fatal(err)
		}
		b := proof.Bytes()
		v.proofs = append(v.proofs, b[:]...)
		for j := range in {
			var e [fr.Bytes]byte
			fr.LittleEndian.PutElement(&e, in[j])
			v.inputs = append(v.inputs, e[:]...)
		}
	}
	if v.vk, err = params.VK.MarshalBinary(); err != nil {
		t.Fatal(err)
	}
	srs, err := DevSRS([]byte("aggregate self vector; dev SRS only"), n)
	if err != nil {
		t.Fatal(err)
	}
	v.srs = encodeSRS(t, srs)
	v.include = []byte("sha256(seed₁ ‖ comm_r₁ ‖ …) stands here")
	pk, _, err := srs.Specialize(n)
	if err != nil {
		t.Fatal(err)
	}
	proofs, err := groth16.DecodeProofs(v.proofs)
	if err != nil {
		t.Fatal(err)
	}
	agg, err := Aggregate(context.Background(), pk, v.include, proofs)
	if err != nil {
		t.Fatal(err)
	}
	if v.aggregate, err = agg.MarshalBinary(); err != nil {
		t.Fatal(err)
	}
	return &v
}

// TestSelfVector: the stored aggregate verifies, and aggregating the
// stored proofs under the stored SRS reproduces it exactly.
func TestSelfVector(t *testing.T) {
	if os.Getenv(writeSelfVectorEnv) == "1" {
		v := makeSelfVector(t)
		if err := os.MkdirAll(selfVectorDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, s := range v.slots() {
			if err := os.WriteFile(filepath.Join(selfVectorDir, vectorNames[i]), *s, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var v vectorFiles
	for i, s := range v.slots() {
		b, err := os.ReadFile(filepath.Join(selfVectorDir, vectorNames[i]))
		if err != nil {
			t.Fatal(err)
		}
		*s = b
	}
	vk, err := groth16.DecodeVerifyingKey(v.vk)
	if err != nil {
		t.Fatal(err)
	}
	proofs, err := groth16.DecodeProofs(v.proofs)
	if err != nil {
		t.Fatal(err)
	}
	n, k := len(proofs), len(vk.IC)-1
	if len(v.inputs) != n*k*fr.Bytes {
		t.Fatalf("inputs.bin: %d bytes for %d proofs of %d inputs", len(v.inputs), n, k)
	}
	inputs := make([][]fr.Element, n)
	for i := range inputs {
		inputs[i] = make([]fr.Element, k)
		for j := range inputs[i] {
			off := (i*k + j) * fr.Bytes
			if inputs[i][j], err = fr.LittleEndian.Element((*[fr.Bytes]byte)(v.inputs[off:])); err != nil {
				t.Fatal(err)
			}
		}
	}
	srs, err := DecodeSRS(v.srs, 0)
	if err != nil {
		t.Fatal(err)
	}
	pk, svk, err := srs.Specialize(n)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := DecodeProof(v.aggregate)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(svk, vk, inputs, stored, v.include, nil); err != nil {
		t.Fatalf("the stored aggregate: %v", err)
	}
	agg, err := Aggregate(context.Background(), pk, v.include, proofs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := agg.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, v.aggregate) {
		for i := range got {
			if got[i] != v.aggregate[i] {
				t.Fatalf("the aggregate differs from the stored one from byte %d of %d", i, len(got))
			}
		}
	}
}
