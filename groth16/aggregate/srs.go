package aggregate

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	bls12381 "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// MaxSRSSize is the longest vector an SRS file may declare (2²⁰ + 1, the
// length of each vector of v28-fil-inner-product-v1.srs).
const MaxSRSSize = 2<<19 + 1

// MaxProofs is the most proofs one SRS file can aggregate: the prover needs
// 2n powers of g.
const MaxProofs = (MaxSRSSize - 1) / 2

// ErrBadSRS reports an SRS file or value that cannot be used: truncated,
// a declared length over MaxSRSSize, a bad point, vectors too short for the
// requested n, or generators that differ between the α and β vectors.
var ErrBadSRS = errors.New("aggregate: bad SRS")

// SRS holds the leading powers of the two structured reference strings
// (bellperson's GenericSRS): GAlpha[i] = g^(αⁱ), GBeta[i] = g^(βⁱ),
// HAlpha[i] = h^(αⁱ), HBeta[i] = h^(βⁱ).
type SRS struct {
	GAlpha, GBeta []bls12381.G1Affine
	HAlpha, HBeta []bls12381.G2Affine
}

// ReadSRSFile reads the first maxLen points of each vector of an SRS file
// (all of them if maxLen is 0 or larger), seeking past the rest.
func ReadSRSFile(path string, maxLen int) (*SRS, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := ReadSRS(f, maxLen)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// ReadSRS reads the SRS file layout from r: four vectors, g^α, g^β, h^α,
// h^β, each a u32 big-endian length and that many compressed points. Only
// the first maxLen points of each vector are decoded (all if maxLen ≤ 0);
// the rest are skipped (by seeking when r is an io.Seeker). Trailing bytes
// after the fourth vector are not read.
func ReadSRS(r io.Reader, maxLen int) (*SRS, error) {
	rd := srsReader{r: r}
	if _, ok := r.(io.Seeker); !ok {
		rd.r = bufio.NewReaderSize(r, 1<<16)
	}
	var s SRS
	var err error
	if s.GAlpha, err = readVector(&rd, "g_alpha", maxLen, G1Size, decodeG1); err != nil {
		return nil, err
	}
	if s.GBeta, err = readVector(&rd, "g_beta", maxLen, G1Size, decodeG1); err != nil {
		return nil, err
	}
	if s.HAlpha, err = readVector(&rd, "h_alpha", maxLen, G2Size, decodeG2); err != nil {
		return nil, err
	}
	if s.HBeta, err = readVector(&rd, "h_beta", maxLen, G2Size, decodeG2); err != nil {
		return nil, err
	}
	return &s, nil
}

// DecodeSRS is ReadSRS over a byte slice.
func DecodeSRS(b []byte, maxLen int) (*SRS, error) {
	return ReadSRS(bytes.NewReader(b), maxLen)
}

type srsReader struct{ r io.Reader }

func (rd *srsReader) full(what string, b []byte) error {
	if _, err := io.ReadFull(rd.r, b); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%w: %s: truncated", ErrBadSRS, what)
		}
		return fmt.Errorf("%w: %s: %w", ErrBadSRS, what, err)
	}
	return nil
}

func (rd *srsReader) skip(what string, n int64) error {
	if sk, ok := rd.r.(io.Seeker); ok {
		cur, err := sk.Seek(0, io.SeekCurrent)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrBadSRS, what, err)
		}
		end, err := sk.Seek(0, io.SeekEnd)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrBadSRS, what, err)
		}
		if end-cur < n {
			return fmt.Errorf("%w: %s: truncated", ErrBadSRS, what)
		}
		_, err = sk.Seek(cur+n, io.SeekStart)
		return err
	}
	if m, err := io.CopyN(io.Discard, rd.r, n); m != n {
		return fmt.Errorf("%w: %s: truncated (%v)", ErrBadSRS, what, err)
	}
	return nil
}

func readVector[P any](rd *srsReader, name string, maxLen, size int, dec func(*P, []byte) error) ([]P, error) {
	var lb [4]byte
	if err := rd.full(name+" length", lb[:]); err != nil {
		return nil, err
	}
	n := int(binary.BigEndian.Uint32(lb[:]))
	if n > MaxSRSSize {
		return nil, fmt.Errorf("%w: %s: length %d over %d", ErrBadSRS, name, n, MaxSRSSize)
	}
	keep := n
	if maxLen > 0 && maxLen < n {
		keep = maxLen
	}
	// Read in chunks so that a length the input cannot back costs no more
	// than one chunk of memory.
	const chunk = 1 << 14
	out := make([]P, 0, min(keep, chunk))
	buf := make([]byte, min(keep, chunk)*size)
	for len(out) < keep {
		m := min(keep-len(out), chunk)
		if err := rd.full(name, buf[:m*size]); err != nil {
			return nil, err
		}
		base := len(out)
		out = append(out, make([]P, m)...)
		if err := parallel(m, func(lo, hi int) error {
			for i := lo; i < hi; i++ {
				if err := dec(&out[base+i], buf[i*size:]); err != nil {
					return fmt.Errorf("%w: %s[%d]: %w", ErrBadSRS, name, base+i, err)
				}
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	if err := rd.skip(name, int64(n-keep)*int64(size)); err != nil {
		return nil, err
	}
	return out, nil
}

// WriteTo writes s in the SRS file layout.
func (s *SRS) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	var total int64
	put := func(b []byte) {
		n, _ := bw.Write(b)
		total += int64(n)
	}
	for _, v := range [][]bls12381.G1Affine{s.GAlpha, s.GBeta} {
		put(binary.BigEndian.AppendUint32(nil, uint32(len(v))))
		var b [G1Size]byte
		for i := range v {
			putG1(b[:], &v[i])
			put(b[:])
		}
	}
	for _, v := range [][]bls12381.G2Affine{s.HAlpha, s.HBeta} {
		put(binary.BigEndian.AppendUint32(nil, uint32(len(v))))
		var b [G2Size]byte
		for i := range v {
			putG2(b[:], &v[i])
			put(b[:])
		}
	}
	return total, bw.Flush()
}

// DevSRS derives an SRS of 2·n powers in each vector from seed, FOR
// DEVELOPMENT AND TESTS ONLY: α and β follow from the seed, and anyone who
// knows them can forge aggregates. Mainnet uses the ceremony file.
func DevSRS(seed []byte, n int) (*SRS, error) {
	if n < 1 || 2*n > MaxSRSSize {
		return nil, fmt.Errorf("%w: dev SRS size %d out of range", ErrBadSRS, n)
	}
	alpha := seedScalar(seed, "alpha")
	beta := seedScalar(seed, "beta")
	_, _, g, h := bls12381.Generators()
	pa := powers(&alpha, 2*n)
	pb := powers(&beta, 2*n)
	return &SRS{
		GAlpha: bls12381.BatchScalarMultiplicationG1(&g, pa),
		GBeta:  bls12381.BatchScalarMultiplicationG1(&g, pb),
		HAlpha: bls12381.BatchScalarMultiplicationG2(&h, pa),
		HBeta:  bls12381.BatchScalarMultiplicationG2(&h, pb),
	}, nil
}

func seedScalar(seed []byte, label string) fr.Element {
	h := sha256.New()
	h.Write([]byte("cuzk-dev-snarkpack-srs/"))
	h.Write([]byte(label))
	h.Write(seed)
	var x fr.Element
	x.SetBytes(h.Sum(nil))
	if x.IsZero() || x.IsOne() {
		x.SetUint64(7)
	}
	return x
}

// powers returns 1, x, x², …, x^(n−1).
func powers(x *fr.Element, n int) []fr.Element {
	out := make([]fr.Element, n)
	out[0].SetOne()
	for i := 1; i < n; i++ {
		out[i].Mul(&out[i-1], x)
	}
	return out
}

// ProverKey is the SRS specialized for aggregating exactly N proofs
// (bellperson's ProverSRS): the 2N powers of g and N powers of h that the
// KZG openings need, and the commitment keys v = (h^(αⁱ), h^(βⁱ)), i < N,
// and w = (g^(α^(N+i)), g^(β^(N+i))), i < N.
type ProverKey struct {
	N             int
	GAlpha, GBeta []bls12381.G1Affine // 2N
	HAlpha, HBeta []bls12381.G2Affine // N
	// vKey and wKey alias the slices above. Aggregate only reads a
	// ProverKey, so one key serves concurrent aggregations.
	vKey commitKeyG2
	wKey commitKeyG1
}

// VerifierKey is what verification of an aggregate of N proofs needs
// (bellperson's VerifierSRS, without h_alpha_d, which only the
// instance-aggregation variant uses).
type VerifierKey struct {
	N                int
	G, GAlpha, GBeta bls12381.G1Affine
	H, HAlpha, HBeta bls12381.G2Affine
}

// Specialize returns the prover and verifier keys for n proofs; n must be
// a power of two, at least 2, and s must hold 2n powers of g and n of h.
func (s *SRS) Specialize(n int) (*ProverKey, *VerifierKey, error) {
	if n < 2 || n&(n-1) != 0 {
		return nil, nil, fmt.Errorf("%w: %d proofs is not a power of two ≥ 2", ErrProofCount, n)
	}
	switch {
	case len(s.GAlpha) < 2*n || len(s.GBeta) < 2*n:
		return nil, nil, fmt.Errorf("%w: %d proofs need %d powers of g, have %d and %d",
			ErrBadSRS, n, 2*n, len(s.GAlpha), len(s.GBeta))
	case len(s.HAlpha) < n || len(s.HBeta) < n:
		return nil, nil, fmt.Errorf("%w: %d proofs need %d powers of h, have %d and %d",
			ErrBadSRS, n, n, len(s.HAlpha), len(s.HBeta))
	case !s.GAlpha[0].Equal(&s.GBeta[0]) || !s.HAlpha[0].Equal(&s.HBeta[0]):
		return nil, nil, fmt.Errorf("%w: the α and β vectors start at different generators", ErrBadSRS)
	}
	pk := &ProverKey{
		N:      n,
		GAlpha: s.GAlpha[: 2*n : 2*n], GBeta: s.GBeta[: 2*n : 2*n],
		HAlpha: s.HAlpha[:n:n], HBeta: s.HBeta[:n:n],
	}
	pk.vKey = commitKeyG2{A: pk.HAlpha, B: pk.HBeta}
	pk.wKey = commitKeyG1{A: pk.GAlpha[n:], B: pk.GBeta[n:]}
	vk := &VerifierKey{
		N: n,
		G: s.GAlpha[0], GAlpha: s.GAlpha[1], GBeta: s.GBeta[1],
		H: s.HAlpha[0], HAlpha: s.HAlpha[1], HBeta: s.HBeta[1],
	}
	return pk, vk, nil
}
