package poseidon

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

type vectorFile struct {
	Counting []struct {
		Source   string `json:"source"`
		Arity    int    `json:"arity"`
		DigestBE string `json:"digest_be"`
	} `json:"counting"`
	Explicit []struct {
		Source   string   `json:"source"`
		Arity    int      `json:"arity"`
		InputsLE []string `json:"inputs_le"`
		DigestBE string   `json:"digest_be"`
		DigestLE string   `json:"digest_le"`
	} `json:"explicit"`
	GrainT3  []string `json:"grain_t3"`
	MDST3_00 string   `json:"mds_t3_00"`
}

func loadVectors(t *testing.T) *vectorFile {
	t.Helper()
	b, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v vectorFile
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return &v
}

func fromBEHex(t *testing.T, s string) fr.Element {
	t.Helper()
	n, ok := new(big.Int).SetString(s, 16)
	if !ok || n.Cmp(fr.Modulus()) >= 0 {
		t.Fatalf("bad big-endian scalar %q", s)
	}
	var e fr.Element
	e.SetBigInt(n)
	return e
}

func fromLEHex(t *testing.T, s string) fr.Element {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		t.Fatalf("bad little-endian scalar %q", s)
	}
	e, err := fr.LittleEndian.Element((*[32]byte)(b))
	if err != nil {
		t.Fatalf("non-canonical scalar %q: %v", s, err)
	}
	return e
}

// hashBoth runs both permutations and fails unless they agree.
func hashBoth(t *testing.T, c *Constants, in []fr.Element) fr.Element {
	t.Helper()
	got, err := c.Hash(in)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := c.HashReference(in)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(&ref) {
		t.Fatalf("arity %d: optimized %s != reference %s", c.Arity, got.Text(16), ref.Text(16))
	}
	return got
}

func TestNeptuneVectors(t *testing.T) {
	for _, v := range loadVectors(t).Counting {
		if testing.Short() && v.Arity > 11 {
			continue
		}
		c, err := MerkleTree(v.Arity)
		if err != nil {
			t.Fatal(err)
		}
		in := make([]fr.Element, v.Arity)
		for i := range in {
			in[i].SetUint64(uint64(i))
		}
		got := hashBoth(t, c, in)
		if want := fromBEHex(t, v.DigestBE); !got.Equal(&want) {
			t.Errorf("%s arity %d: got %s want %s", v.Source, v.Arity, got.Text(16), v.DigestBE)
		}
	}
}

func TestExplicitVectors(t *testing.T) {
	for _, v := range loadVectors(t).Explicit {
		c, err := MerkleTree(v.Arity)
		if err != nil {
			t.Fatal(err)
		}
		in := make([]fr.Element, len(v.InputsLE))
		for i, s := range v.InputsLE {
			in[i] = fromLEHex(t, s)
		}
		got := hashBoth(t, c, in)
		var want fr.Element
		if v.DigestLE != "" {
			want = fromLEHex(t, v.DigestLE)
		} else {
			want = fromBEHex(t, v.DigestBE)
		}
		if !got.Equal(&want) {
			t.Errorf("%s arity %d: got %s", v.Source, v.Arity, got.Text(16))
		}
	}
}

func TestGrainCheckValues(t *testing.T) {
	v := loadVectors(t)
	p, err := ParamsFor(2)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.RoundConstants); n != 189 {
		t.Fatalf("t=3: %d round constants, want 189", n)
	}
	for i, s := range v.GrainT3 {
		if want := fromBEHex(t, s); !p.RoundConstants[i].Equal(&want) {
			t.Errorf("constant %d: got %s want %s", i, p.RoundConstants[i].Text(16), s)
		}
	}
	// The compressed constants start with the raw first-round constants.
	for i := range p.Width {
		if !p.Compressed[i].Equal(&p.RoundConstants[i]) {
			t.Errorf("compressed[%d] differs from the first-round constant", i)
		}
	}
}

func TestMDS(t *testing.T) {
	v := loadVectors(t)
	p, err := ParamsFor(2)
	if err != nil {
		t.Fatal(err)
	}
	if want := fromBEHex(t, v.MDST3_00); !p.MDS[0][0].Equal(&want) {
		t.Fatalf("M[0][0] = %s want %s", p.MDS[0][0].Text(16), v.MDST3_00)
	}
	for _, arity := range []int{2, 4, 8, 11} {
		p, err := ParamsFor(arity)
		if err != nil {
			t.Fatal(err)
		}
		inv, err := p.MDS.inverse()
		if err != nil {
			t.Fatal(err)
		}
		if !p.MDS.mul(inv).isIdentity() {
			t.Errorf("arity %d: M·M⁻¹ is not the identity", arity)
		}
		if !p.MDS.transpose().mul(identity(p.Width)).equal(p.MDS) {
			t.Errorf("arity %d: MDS not symmetric", arity)
		}
	}
}

func (m Matrix) equal(o Matrix) bool {
	for i := range m {
		for j := range m[i] {
			if !m[i][j].Equal(&o[i][j]) {
				return false
			}
		}
	}
	return true
}

func TestShapes(t *testing.T) {
	for _, tc := range []struct{ arity, rp, nConst int }{
		{2, 55, 189}, {4, 56, 320}, {8, 57, 585}, {11, 57, 780},
	} {
		p, err := ParamsFor(tc.arity)
		if err != nil {
			t.Fatal(err)
		}
		if p.PartialRounds != tc.rp || len(p.RoundConstants) != tc.nConst {
			t.Errorf("arity %d: RP %d constants %d", tc.arity, p.PartialRounds, len(p.RoundConstants))
		}
		if want := p.FullRounds*p.Width + p.PartialRounds; len(p.Compressed) != want {
			t.Errorf("arity %d: %d compressed constants, want %d", tc.arity, len(p.Compressed), want)
		}
		if len(p.Sparse) != p.PartialRounds {
			t.Errorf("arity %d: %d sparse matrices", tc.arity, len(p.Sparse))
		}
	}
}

// TestRandomAgreement checks the optimized and reference permutations on
// random preimages, for both tag kinds.
func TestRandomAgreement(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, arity := range []int{2, 4, 8, 11} {
		for _, custom := range []bool{false, true} {
			var c *Constants
			var err error
			if custom {
				c, err = Custom(arity, 1)
			} else {
				c, err = MerkleTree(arity)
			}
			if err != nil {
				t.Fatal(err)
			}
			for range 5 {
				in := make([]fr.Element, arity)
				for i := range in {
					in[i].SetUint64(rng.Uint64())
					in[i].Square(&in[i])
					in[i].Square(&in[i])
				}
				hashBoth(t, c, in)
			}
		}
	}
}

func TestTags(t *testing.T) {
	for arity, want := range map[int]uint64{2: 3, 4: 15, 8: 255, 11: 2047} {
		tag := MerkleTreeTag(arity)
		if w := new(fr.Element).SetUint64(want); !tag.Equal(w) {
			t.Errorf("arity %d tag %s", arity, tag.String())
		}
	}
	tag, err := CustomTag(1)
	if err != nil {
		t.Fatal(err)
	}
	if want := new(fr.Element).SetUint64(1 << 40); !tag.Equal(want) {
		t.Errorf("custom tag %s", tag.String())
	}
	c, _ := MerkleTree(2)
	d, _ := Custom(2, 1)
	in := []fr.Element{{}, {}}
	a, _ := c.Hash(in)
	b, _ := d.Hash(in)
	if a.Equal(&b) {
		t.Error("MerkleTree and Custom tags give the same digest")
	}
}

func TestErrors(t *testing.T) {
	if _, err := MerkleTree(3); !errors.Is(err, ErrArity) {
		t.Errorf("arity 3: %v", err)
	}
	if _, err := CustomTag(0); err == nil {
		t.Error("custom id 0 accepted")
	}
	c := MustMerkleTree(2)
	if _, err := c.Hash(make([]fr.Element, 3)); !errors.Is(err, ErrPreimage) {
		t.Errorf("3 inputs at arity 2: %v", err)
	}
	if _, err := c.HashReference(nil); !errors.Is(err, ErrPreimage) {
		t.Errorf("no inputs: %v", err)
	}
}

func BenchmarkHash(b *testing.B) {
	for _, arity := range []int{2, 8, 11} {
		c := MustMerkleTree(arity)
		in := make([]fr.Element, arity)
		for i := range in {
			in[i].SetUint64(uint64(i + 1))
		}
		b.Run("arity="+strconv.Itoa(arity), func(b *testing.B) {
			for b.Loop() {
				out, _ := c.Hash(in)
				in[0] = out
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "hashes/s")
		})
	}
}
