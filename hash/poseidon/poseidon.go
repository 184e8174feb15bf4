package poseidon

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// maxWidth bounds the stack buffer of a permutation (arity 36).
const maxWidth = 37

// sbox returns x^5.
func sbox(x *fr.Element) {
	var t fr.Element
	t.Square(x)
	t.Square(&t)
	x.Mul(x, &t)
}

func (c *Constants) state(buf *[maxWidth]fr.Element, preimage []fr.Element) ([]fr.Element, error) {
	if len(preimage) != c.Arity {
		return nil, fmt.Errorf("%w: got %d elements, arity %d", ErrPreimage, len(preimage), c.Arity)
	}
	s := buf[:c.Width]
	s[0] = c.Tag
	copy(s[1:], preimage)
	return s, nil
}

// Hash returns the digest of preimage (exactly Arity elements) with the
// optimized permutation (neptune's OptimizedStatic mode).
func (c *Constants) Hash(preimage []fr.Element) (fr.Element, error) {
	var buf [maxWidth]fr.Element
	s, err := c.state(&buf, preimage)
	if err != nil {
		return fr.Element{}, err
	}
	c.permute(s)
	return s[1], nil
}

// permute runs the optimized permutation in place.
func (c *Constants) permute(s []fr.Element) {
	var tmp [maxWidth]fr.Element
	t, half := c.Width, c.FullRounds/2
	k := c.Compressed
	for i := range s {
		s[i].Add(&s[i], &k[i])
	}
	k = k[t:]
	// First half of the full rounds; the last of them mixes with PreSparse.
	for r := range half {
		for i := range s {
			sbox(&s[i])
			s[i].Add(&s[i], &k[i])
		}
		k = k[t:]
		if r == half-1 {
			mulRow(s, c.PreSparse, tmp[:t])
		} else {
			mulCol(s, c.MDS, tmp[:t])
		}
	}
	for r := range c.PartialRounds {
		sbox(&s[0])
		s[0].Add(&s[0], &k[0])
		k = k[1:]
		mulSparse(s, &c.Sparse[r])
	}
	for r := range half {
		for i := range s {
			sbox(&s[i])
		}
		if r < half-1 {
			for i := range s {
				s[i].Add(&s[i], &k[i])
			}
			k = k[t:]
		}
		mulCol(s, c.MDS, tmp[:t])
	}
}

// mulCol sets s = m·s.
func mulCol(s []fr.Element, m Matrix, tmp []fr.Element) {
	var p fr.Element
	for i := range tmp {
		row := m[i]
		tmp[i].Mul(&row[0], &s[0])
		for j := 1; j < len(s); j++ {
			p.Mul(&row[j], &s[j])
			tmp[i].Add(&tmp[i], &p)
		}
	}
	copy(s, tmp)
}

// mulRow sets s = s·m (s a row vector).
func mulRow(s []fr.Element, m Matrix, tmp []fr.Element) {
	var p fr.Element
	for j := range tmp {
		tmp[j].Mul(&m[0][j], &s[0])
		for i := 1; i < len(s); i++ {
			p.Mul(&m[i][j], &s[i])
			tmp[j].Add(&tmp[j], &p)
		}
	}
	copy(s, tmp)
}

// mulSparse sets s = s·M” for a sparse M”.
func mulSparse(s []fr.Element, m *SparseMatrix) {
	var first, p fr.Element
	first.Mul(&m.WHat[0], &s[0])
	for i := 1; i < len(s); i++ {
		p.Mul(&m.WHat[i], &s[i])
		first.Add(&first, &p)
	}
	for j := 1; j < len(s); j++ {
		p.Mul(&m.VRest[j-1], &s[0])
		s[j].Add(&s[j], &p)
	}
	s[0] = first
}

// HashReference returns the digest of preimage with the plain permutation
// (neptune's hash_correct): RF/2 full, RP partial, RF/2 full rounds, each
// adding Width round constants, applying the S-box and multiplying by MDS.
// It exists to check Hash.
func (c *Constants) HashReference(preimage []fr.Element) (fr.Element, error) {
	var buf, tmp [maxWidth]fr.Element
	s, err := c.state(&buf, preimage)
	if err != nil {
		return fr.Element{}, err
	}
	t, half := c.Width, c.FullRounds/2
	rounds := c.FullRounds + c.PartialRounds
	for r := range rounds {
		rc := c.RoundConstants[r*t : (r+1)*t]
		for i := range s {
			s[i].Add(&s[i], &rc[i])
		}
		if r < half || r >= half+c.PartialRounds {
			for i := range s {
				sbox(&s[i])
			}
		} else {
			sbox(&s[0])
		}
		mulCol(s, c.MDS, tmp[:t])
	}
	return s[1], nil
}

// HashMerkleTree hashes preimage with the MerkleTree constants of its
// length (tree nodes, column hashes, comm_r = H(comm_c, comm_r_last)).
func HashMerkleTree(preimage []fr.Element) (fr.Element, error) {
	c, err := MerkleTree(len(preimage))
	if err != nil {
		return fr.Element{}, err
	}
	return c.Hash(preimage)
}
