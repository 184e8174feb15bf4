package groth16

import (
	"fmt"
	"io"
)

// Bytes encodes the proof as bellperson's Proof::write does: compressed
// A (48 B) ‖ B (96 B, x.c1 first) ‖ C (48 B).
func (p Proof) Bytes() [ProofSize]byte {
	var out [ProofSize]byte
	a := p.A.Bytes()
	b := p.B.Bytes()
	c := p.C.Bytes()
	copy(out[0:48], a[:])
	copy(out[48:144], b[:])
	copy(out[144:192], c[:])
	return out
}

// MarshalBinary returns the 192-byte encoding.
func (p Proof) MarshalBinary() ([]byte, error) {
	b := p.Bytes()
	return b[:], nil
}

// UnmarshalBinary decodes a 192-byte encoding (see DecodeProof).
func (p *Proof) UnmarshalBinary(b []byte) error {
	q, err := DecodeProof(b)
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// WriteTo writes the 192-byte encoding.
func (p *Proof) WriteTo(w io.Writer) (int64, error) {
	b := p.Bytes()
	n, err := w.Write(b[:])
	return int64(n), err
}

// DecodeProof decodes exactly one 192-byte proof. Points must be canonical,
// on the curve and in the subgroup; identities are rejected (bellperson's
// read_many).
func DecodeProof(b []byte) (Proof, error) {
	var p Proof
	if len(b) != ProofSize {
		return p, fmt.Errorf("proof: %w: %d bytes, want %d", ErrMalformed, len(b), ProofSize)
	}
	if err := decodeProofAt(&p, b, -1); err != nil {
		return p, err
	}
	return p, nil
}

// DecodeProofs decodes concatenated partition proofs (Filecoin's
// multi-proofs: 192 bytes per partition, in partition order).
func DecodeProofs(b []byte) ([]Proof, error) {
	if len(b) == 0 || len(b)%ProofSize != 0 {
		return nil, fmt.Errorf("proof: %w: %d bytes is not a positive multiple of %d", ErrMalformed, len(b), ProofSize)
	}
	out := make([]Proof, len(b)/ProofSize)
	for i := range out {
		if err := decodeProofAt(&out[i], b[i*ProofSize:(i+1)*ProofSize], i); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// EncodeProofs concatenates the encodings of ps.
func EncodeProofs(ps []Proof) []byte {
	out := make([]byte, 0, len(ps)*ProofSize)
	for i := range ps {
		b := ps[i].Bytes()
		out = append(out, b[:]...)
	}
	return out
}

func decodeProofAt(p *Proof, b []byte, index int) error {
	name := func(s string) string {
		if index < 0 {
			return s
		}
		return fmt.Sprintf("%s (partition %d)", s, index)
	}
	if err := decodeCompressedG1(&p.A, b[0:48]); err != nil {
		return &PointError{File: "proof", Vector: name("a"), Index: -1, Err: err}
	}
	if err := decodeCompressedG2(&p.B, b[48:144]); err != nil {
		return &PointError{File: "proof", Vector: name("b"), Index: -1, Err: err}
	}
	if err := decodeCompressedG1(&p.C, b[144:192]); err != nil {
		return &PointError{File: "proof", Vector: name("c"), Index: -1, Err: err}
	}
	return nil
}
