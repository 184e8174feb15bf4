package poseidon

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// supraSealLayout serializes p as supranational/supra_seal ships its
// optimized Poseidon constants (poseidon/constants/constants_<arity>, read
// by poseidon/cuda/poseidon.cu): raw Montgomery limbs, little-endian, of the
// compressed round constants, the MDS matrix and the pre-sparse matrix (both
// row-major; the kernel computes s·M), then per partial round the sparse
// matrix as WHat (t) ‖ VRest (t − 1).
func supraSealLayout(p *Params) []byte {
	var out []byte
	put := func(e *fr.Element) {
		for _, limb := range e {
			out = binary.LittleEndian.AppendUint64(out, limb)
		}
	}
	for i := range p.Compressed {
		put(&p.Compressed[i])
	}
	for _, m := range []Matrix{p.MDS, p.PreSparse} {
		for i := range m {
			for j := range m[i] {
				put(&m[i][j])
			}
		}
	}
	for _, s := range p.Sparse {
		for i := range s.WHat {
			put(&s.WHat[i])
		}
		for i := range s.VRest {
			put(&s.VRest[i])
		}
	}
	return out
}

// TestSupraSealConstants compares every optimized constant (compressed
// round constants, MDS, pre-sparse and sparse matrices) with the files
// supra_seal generated from neptune, by size and SHA-256 (the files are
// not copied here). Source: supranational/supra_seal@c2ff1acf
// poseidon/constants/constants_{2,4,8,11,16,24,36}.
func TestSupraSealConstants(t *testing.T) {
	for _, tc := range []struct {
		arity int
		size  int
		sha   string
	}{
		{2, 11904, "c41d7cd3b2ba28ae887a38f81bac9351270f005400748d37210c9b566f9da416"},
		{4, 20800, "6509aff40161052b84d6401c4887e7fca124bd92cfd479c2e45e1bc1126b9d92"},
		{8, 40320, "b814f78a11c131128fb62e1b0bd517f8c8d10ecabaf6acdfde5294e867f9f404"},
		{11, 56064, "1826150ebfe44dcc63e146d1379e8bb9b877b0f67bb7fa0377f984429fac3682"},
		{16, 87040, "614f189bf44ff209389c48b5acc525c21df9b35042bdd2ff7718f1d4541a8921"},
		{24, 140800, "63617d9ce27fe7d44cef3cd27ba141eacec20412ac4e50785f778ff71320c420"},
		{36, 239168, "c0fe6022799f978f99e63223d0fc3d8247d0c5858a90ee051e9b6c77702149b8"},
	} {
		if testing.Short() && tc.arity > 11 {
			continue
		}
		p, err := ParamsFor(tc.arity)
		if err != nil {
			t.Fatal(err)
		}
		b := supraSealLayout(p)
		sum := sha256.Sum256(b)
		if len(b) != tc.size || hex.EncodeToString(sum[:]) != tc.sha {
			t.Errorf("arity %d: %d bytes sha256 %x, supra_seal has %d bytes %s", tc.arity, len(b), sum, tc.size, tc.sha)
		}
	}
}
