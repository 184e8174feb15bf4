package groth16

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// fuzzSeeds returns a tiny valid .params image and mutations of it.
func fuzzParamsSeeds(f *testing.F) []byte {
	c := randCircuit{Seed: 1, Inputs: 1, Rows: 4}
	p, err := Setup(&c, []byte("fuzz"))
	if err != nil {
		f.Fatal(err)
	}
	b, err := p.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	return b
}

func addMutations(f *testing.F, good []byte) {
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add(append(bytes.Clone(good), 0))
	f.Add(good[:vkFixedSize])
	f.Add([]byte{})
	for _, at := range []int{0, 96, 192, vkFixedSize, vkFixedSize + 4, len(good) / 2, len(good) - 1} {
		if at < len(good) {
			for _, x := range []byte{0x80, 0x40, 0x20, 0x01, 0xff} {
				b := bytes.Clone(good)
				b[at] ^= x
				f.Add(b)
			}
		}
	}
	if len(good) > vkFixedSize+4 {
		b := bytes.Clone(good)
		binary.BigEndian.PutUint32(b[vkFixedSize:], 0xffffffff)
		f.Add(b)
	}
}

func FuzzDecodeParams(f *testing.F) {
	good := fuzzParamsSeeds(f)
	addMutations(f, good)
	f.Fuzz(func(t *testing.T, b []byte) {
		// Checked decoding rejects a superset of what unchecked decoding
		// rejects, so it runs (it is slow: subgroup checks) only on
		// inputs that pass unchecked.
		for _, checked := range []bool{false, true} {
			p, err := DecodeParams(b, ReadOptions{Checked: checked, Workers: 2})
			if err != nil {
				return
			}
			// A decoded file re-encodes to itself: encodings are unique.
			again, err := p.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, b) {
				t.Fatalf("checked=%v: decode/encode changed the bytes", checked)
			}
		}
	})
}

func FuzzDecodeVerifyingKey(f *testing.F) {
	good := fuzzParamsSeeds(f)
	p, err := DecodeParams(good, ReadOptions{})
	if err != nil {
		f.Fatal(err)
	}
	addMutations(f, good[:VerifyingKeySize(len(p.VK.IC))])
	f.Fuzz(func(t *testing.T, b []byte) {
		vk, err := DecodeVerifyingKey(b)
		if err != nil {
			return
		}
		again, err := vk.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, b) {
			t.Fatal("decode/encode changed the bytes")
		}
	})
}

func FuzzDecodeProof(f *testing.F) {
	c := randCircuit{Seed: 2, Inputs: 2, Rows: 8}
	p, err := Setup(&c, []byte("fuzz proof"))
	if err != nil {
		f.Fatal(err)
	}
	var proofs []byte
	for w := uint64(0); w < 2; w++ {
		c.Witness = w
		proof, _, err := Prove(f.Context(), refDevice{}, p, &c, newDetReader(w))
		if err != nil {
			f.Fatal(err)
		}
		b := proof.Bytes()
		proofs = append(proofs, b[:]...)
	}
	f.Add(proofs[:ProofSize])
	f.Add(proofs)
	for _, at := range []int{0, 47, 48, 143, 144, 191} {
		for _, x := range []byte{0x80, 0x40, 0x20, 0x01} {
			b := bytes.Clone(proofs[:ProofSize])
			b[at] ^= x
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if q, err := DecodeProof(b); err == nil {
			if qb := q.Bytes(); !bytes.Equal(qb[:], b) {
				t.Fatal("DecodeProof/Bytes changed the bytes")
			}
		}
		if qs, err := DecodeProofs(b); err == nil {
			if !bytes.Equal(EncodeProofs(qs), b) {
				t.Fatal("DecodeProofs/EncodeProofs changed the bytes")
			}
		}
	})
}
