package poseidon

import (
	"errors"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Matrix is a dense square matrix, row major: m[i][j] is row i, column j.
type Matrix [][]fr.Element

var errSingular = errors.New("poseidon: singular matrix")

func newMatrix(n int) Matrix {
	m := make(Matrix, n)
	for i := range m {
		m[i] = make([]fr.Element, n)
	}
	return m
}

func identity(n int) Matrix {
	m := newMatrix(n)
	for i := range m {
		m[i][i].SetOne()
	}
	return m
}

func (m Matrix) clone() Matrix {
	out := newMatrix(len(m))
	for i := range m {
		copy(out[i], m[i])
	}
	return out
}

func (m Matrix) transpose() Matrix {
	out := newMatrix(len(m))
	for i := range m {
		for j := range m {
			out[j][i] = m[i][j]
		}
	}
	return out
}

// mul returns m·o.
func (m Matrix) mul(o Matrix) Matrix {
	n := len(m)
	out := newMatrix(n)
	var t fr.Element
	for i := range n {
		for j := range n {
			var s fr.Element
			for k := range n {
				t.Mul(&m[i][k], &o[k][j])
				s.Add(&s, &t)
			}
			out[i][j] = s
		}
	}
	return out
}

// apply returns m·v (v a column vector).
func (m Matrix) apply(v []fr.Element) []fr.Element {
	out := make([]fr.Element, len(v))
	var t fr.Element
	for i := range m {
		for j := range v {
			t.Mul(&m[i][j], &v[j])
			out[i].Add(&out[i], &t)
		}
	}
	return out
}

// minor drops row r and column c.
func (m Matrix) minor(r, c int) Matrix {
	n := len(m) - 1
	out := newMatrix(n)
	for i, ii := 0, 0; i < len(m); i++ {
		if i == r {
			continue
		}
		for j, jj := 0, 0; j < len(m); j++ {
			if j == c {
				continue
			}
			out[ii][jj] = m[i][j]
			jj++
		}
		ii++
	}
	return out
}

func (m Matrix) isIdentity() bool {
	for i := range m {
		for j := range m[i] {
			if (i == j && !m[i][j].IsOne()) || (i != j && !m[i][j].IsZero()) {
				return false
			}
		}
	}
	return true
}

// inverse by Gauss–Jordan elimination.
func (m Matrix) inverse() (Matrix, error) {
	n := len(m)
	a := m.clone()
	inv := identity(n)
	var t, f fr.Element
	for col := range n {
		p := col
		for p < n && a[p][col].IsZero() {
			p++
		}
		if p == n {
			return nil, errSingular
		}
		a[col], a[p] = a[p], a[col]
		inv[col], inv[p] = inv[p], inv[col]
		var pivInv fr.Element
		pivInv.Inverse(&a[col][col])
		for j := range n {
			a[col][j].Mul(&a[col][j], &pivInv)
			inv[col][j].Mul(&inv[col][j], &pivInv)
		}
		for r := range n {
			if r == col || a[r][col].IsZero() {
				continue
			}
			f = a[r][col]
			for j := range n {
				t.Mul(&f, &a[col][j])
				a[r][j].Sub(&a[r][j], &t)
				t.Mul(&f, &inv[col][j])
				inv[r][j].Sub(&inv[r][j], &t)
			}
		}
	}
	return inv, nil
}
