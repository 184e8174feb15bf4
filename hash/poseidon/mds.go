package poseidon

import "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

// cauchyMDS is neptune's MDS matrix (mds.rs generate_mds):
// M[i][j] = 1/(x_i + y_j) with x_i = i and y_j = t + j. It is symmetric.
func cauchyMDS(t int) Matrix {
	m := newMatrix(t)
	for i := range t {
		for j := range t {
			var s fr.Element
			s.SetUint64(uint64(i + t + j))
			m[i][j].Inverse(&s)
		}
	}
	return m
}

// SparseMatrix is a matrix M″ whose minor at (0, 0) is the identity: only
// its first column (WHat, t entries) and the rest of its first row (VRest,
// t − 1 entries) are stored. Applied to a row vector s (s·M″):
//
//	out[0] = Σ_i WHat[i]·s[i],   out[j] = s[j] + VRest[j−1]·s[0]  (j ≥ 1).
type SparseMatrix struct {
	WHat  []fr.Element
	VRest []fr.Element
}

// factorSparse splits m as M = M'·M″ (neptune mds.rs make_prime /
// make_double_prime): M' keeps m's minor at (0, 0) and a 1 in the corner,
// M″ is sparse with first row m[0] and first column [m00, M̂⁻¹·w], where w
// is m's first column below the corner and M̂ the minor.
func factorSparse(m Matrix) (prime Matrix, sparse SparseMatrix, err error) {
	t := len(m)
	hatInv, err := m.minor(0, 0).inverse()
	if err != nil {
		return nil, SparseMatrix{}, err
	}
	w := make([]fr.Element, t-1)
	for i := 1; i < t; i++ {
		w[i-1] = m[i][0]
	}
	wHat := hatInv.apply(w)

	prime = newMatrix(t)
	prime[0][0].SetOne()
	for i := 1; i < t; i++ {
		copy(prime[i][1:], m[i][1:])
	}
	sparse.WHat = make([]fr.Element, t)
	sparse.WHat[0] = m[0][0]
	copy(sparse.WHat[1:], wHat)
	sparse.VRest = append([]fr.Element(nil), m[0][1:]...)
	return prime, sparse, nil
}

// sparseFactors factors the partial rounds' matrices (neptune
// factor_to_sparse_matrices applied to Mᵀ): starting from cur = base, RP
// times split cur = M'·M″ and continue with base·M'. The last cur is the
// pre-sparse matrix applied after the last initial full round; the sparse
// matrices are returned in application order (the last factored first).
func sparseFactors(base Matrix, rp int) (Matrix, []SparseMatrix, error) {
	cur := base
	sparse := make([]SparseMatrix, rp)
	for i := range rp {
		prime, s, err := factorSparse(cur)
		if err != nil {
			return nil, nil, err
		}
		sparse[rp-1-i] = s
		cur = base.mul(prime)
	}
	return cur, sparse, nil
}
