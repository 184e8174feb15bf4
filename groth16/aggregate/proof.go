package aggregate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

var (
	// ErrMalformed reports aggregate bytes of the wrong length, a bad
	// proof count or a bad element; the message names the field.
	ErrMalformed = errors.New("aggregate: malformed aggregate proof")
	// ErrProofCount reports a number of proofs that is not a power of two
	// ≥ 2, or that differs from the key's or the inputs' count.
	ErrProofCount = errors.New("aggregate: bad number of proofs")
)

// Proof is a SnarkPack aggregate of N Groth16 proofs (bellperson's
// AggregateProof with its TippMippProof and GipaProof flattened). Round k
// of the GIPA recursion contributes ComsAB[k], ComsC[k], ZAB[k], ZC[k];
// each pair is (left, right).
type Proof struct {
	ComAB, ComC commitment        // commitments to (A, B) and to C
	IPAB        bls12381.GT       // ∏ e(Aᵢ, Bᵢ)^(rⁱ)
	AggC        bls12381.G1Affine // Σ rⁱ·Cᵢ

	N      uint32
	ComsAB [][2]commitment // (T_L, U_L), (T_R, U_R) of the pair commitment
	ComsC  [][2]commitment // the same for the commitment to C
	ZAB    [][2]bls12381.GT
	ZC     [][2]bls12381.G1Affine

	FinalA    bls12381.G1Affine
	FinalB    bls12381.G2Affine
	FinalC    bls12381.G1Affine
	FinalVKey [2]bls12381.G2Affine
	FinalWKey [2]bls12381.G1Affine

	VKeyOpening [2]bls12381.G2Affine // KZG openings of v₁, v₂ at z
	WKeyOpening [2]bls12381.G1Affine // KZG openings of w₁, w₂ at z
}

const (
	fixedSize = 5*GTSize + G1Size + 4 + // com_ab, com_c, ip_ab, agg_c, nproofs
		2*G1Size + G2Size + 2*G2Size + 2*G1Size + // final_a, final_b, final_c, final_vkey, final_wkey
		2*G2Size + 2*G1Size // openings
	roundSize = 8*GTSize + 2*GTSize + 2*G1Size
)

// Size is the encoded length of an aggregate of n proofs (n a power of two):
// 2260 + 2976·log₂ n.
func Size(n int) int { return fixedSize + roundSize*log2(n) }

func log2(n int) int { return bits.Len(uint(n)) - 1 }

// MarshalBinary encodes p as bellperson's AggregateProof::write: com_ab,
// com_c, ip_ab (GT, 288 B each), agg_c (G1, 48 B), nproofs (u32
// little-endian), per round the comms_ab, then the comms_c, z_ab, z_c,
// then final_a, final_b, final_c, final_vkey, final_wkey, vkey_opening and
// wkey_opening, points compressed.
func (p *Proof) MarshalBinary() ([]byte, error) {
	if err := p.checkShape(); err != nil {
		return nil, err
	}
	out := make([]byte, Size(int(p.N)))
	w := writer{b: out}
	w.gt(&p.ComAB[0], &p.ComAB[1], &p.ComC[0], &p.ComC[1], &p.IPAB)
	w.g1(&p.AggC)
	binary.LittleEndian.PutUint32(w.next(4), p.N)
	for _, cs := range [][][2]commitment{p.ComsAB, p.ComsC} {
		for k := range cs {
			w.gt(&cs[k][0][0], &cs[k][0][1], &cs[k][1][0], &cs[k][1][1])
		}
	}
	for k := range p.ZAB {
		w.gt(&p.ZAB[k][0], &p.ZAB[k][1])
	}
	for k := range p.ZC {
		w.g1(&p.ZC[k][0], &p.ZC[k][1])
	}
	w.g1(&p.FinalA)
	w.g2(&p.FinalB)
	w.g1(&p.FinalC)
	w.g2(&p.FinalVKey[0], &p.FinalVKey[1])
	w.g1(&p.FinalWKey[0], &p.FinalWKey[1])
	w.g2(&p.VKeyOpening[0], &p.VKeyOpening[1])
	w.g1(&p.WKeyOpening[0], &p.WKeyOpening[1])
	if w.err != nil {
		return nil, w.err
	}
	return out, nil
}

// checkShape checks N and the lengths of the round vectors.
func (p *Proof) checkShape() error {
	n := int(p.N)
	if n < 2 || n&(n-1) != 0 || n > MaxProofs {
		return fmt.Errorf("%w: nproofs %d", ErrProofCount, n)
	}
	l := log2(n)
	if len(p.ComsAB) != l || len(p.ComsC) != l || len(p.ZAB) != l || len(p.ZC) != l {
		return fmt.Errorf("%w: %d proofs need %d GIPA rounds", ErrMalformed, n, l)
	}
	return nil
}

type writer struct {
	b   []byte
	off int
	err error
}

func (w *writer) next(n int) []byte { b := w.b[w.off : w.off+n]; w.off += n; return b }

func (w *writer) gt(xs ...*bls12381.GT) {
	for _, x := range xs {
		if err := putGT(w.next(GTSize), x); err != nil && w.err == nil {
			w.err = err
		}
	}
}

func (w *writer) g1(ps ...*bls12381.G1Affine) {
	for _, p := range ps {
		putG1(w.next(G1Size), p)
	}
}

func (w *writer) g2(ps ...*bls12381.G2Affine) {
	for _, p := range ps {
		putG2(w.next(G2Size), p)
	}
}

// DecodeProof decodes an aggregate. The length must be exactly Size(n) for
// the nproofs field n (a power of two, 2 ≤ n ≤ MaxProofs); every point must
// be canonical and in its subgroup (infinity allowed, as in blstrs), every
// GT element canonical and in the order-r subgroup. Unlike bellperson's
// reader, trailing bytes are an error.
func DecodeProof(b []byte) (*Proof, error) {
	const nOff = 5*GTSize + G1Size
	if len(b) < nOff+4 {
		return nil, fmt.Errorf("%w: %d bytes, shorter than any aggregate", ErrMalformed, len(b))
	}
	n := binary.LittleEndian.Uint32(b[nOff:])
	if n < 2 || n&(n-1) != 0 || n > MaxProofs {
		return nil, fmt.Errorf("%w: nproofs %d is not a power of two in [2, %d]", ErrMalformed, n, MaxProofs)
	}
	if want := Size(int(n)); len(b) != want {
		return nil, fmt.Errorf("%w: %d bytes, want %d for %d proofs", ErrMalformed, len(b), want, n)
	}
	l := log2(int(n))
	p := &Proof{
		N:      n,
		ComsAB: make([][2]commitment, l),
		ComsC:  make([][2]commitment, l),
		ZAB:    make([][2]bls12381.GT, l),
		ZC:     make([][2]bls12381.G1Affine, l),
	}
	r := reader{b: b}
	r.gt("com_ab", &p.ComAB[0], &p.ComAB[1])
	r.gt("com_c", &p.ComC[0], &p.ComC[1])
	r.gt("ip_ab", &p.IPAB)
	r.g1("agg_c", &p.AggC)
	r.off += 4
	for k := 0; k < l; k++ {
		r.gt(fmt.Sprintf("comms_ab[%d]", k), &p.ComsAB[k][0][0], &p.ComsAB[k][0][1], &p.ComsAB[k][1][0], &p.ComsAB[k][1][1])
	}
	for k := 0; k < l; k++ {
		r.gt(fmt.Sprintf("comms_c[%d]", k), &p.ComsC[k][0][0], &p.ComsC[k][0][1], &p.ComsC[k][1][0], &p.ComsC[k][1][1])
	}
	for k := 0; k < l; k++ {
		r.gt(fmt.Sprintf("z_ab[%d]", k), &p.ZAB[k][0], &p.ZAB[k][1])
	}
	for k := 0; k < l; k++ {
		r.g1(fmt.Sprintf("z_c[%d]", k), &p.ZC[k][0], &p.ZC[k][1])
	}
	r.g1("final_a", &p.FinalA)
	r.g2("final_b", &p.FinalB)
	r.g1("final_c", &p.FinalC)
	r.g2("final_vkey", &p.FinalVKey[0], &p.FinalVKey[1])
	r.g1("final_wkey", &p.FinalWKey[0], &p.FinalWKey[1])
	r.g2("vkey_opening", &p.VKeyOpening[0], &p.VKeyOpening[1])
	r.g1("wkey_opening", &p.WKeyOpening[0], &p.WKeyOpening[1])
	if r.err != nil {
		return nil, r.err
	}
	return p, nil
}

// reader decodes fixed-size fields; the length was checked up front. The
// GT decodings (an inversion and a subgroup check each) are the cost; they
// run in parallel per field group.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) gt(name string, xs ...*bls12381.GT) {
	base := r.off
	r.off += len(xs) * GTSize
	if r.err != nil {
		return
	}
	r.err = parallel(len(xs), func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			if err := decodeGT(xs[i], r.b[base+i*GTSize:]); err != nil {
				return fmt.Errorf("%w: %s: %w", ErrMalformed, name, err)
			}
		}
		return nil
	})
}

func (r *reader) g1(name string, ps ...*bls12381.G1Affine) {
	for _, p := range ps {
		if r.err == nil {
			if err := decodeG1(p, r.b[r.off:]); err != nil {
				r.err = fmt.Errorf("%w: %s: %w", ErrMalformed, name, err)
			}
		}
		r.off += G1Size
	}
}

func (r *reader) g2(name string, ps ...*bls12381.G2Affine) {
	for _, p := range ps {
		if r.err == nil {
			if err := decodeG2(p, r.b[r.off:]); err != nil {
				r.err = fmt.Errorf("%w: %s: %w", ErrMalformed, name, err)
			}
		}
		r.off += G2Size
	}
}
