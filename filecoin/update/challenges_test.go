package update

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/hash"
)

// xorShift is rand_xorshift 0.3's XorShiftRng, to replay rust-fil-proofs'
// test randomness.
type xorShift struct{ x, y, z, w uint32 }

func newXorShift(seed [16]byte) *xorShift {
	return &xorShift{binary.LittleEndian.Uint32(seed[0:]), binary.LittleEndian.Uint32(seed[4:]),
		binary.LittleEndian.Uint32(seed[8:]), binary.LittleEndian.Uint32(seed[12:])}
}

func (r *xorShift) u32() uint32 {
	t := r.x ^ r.x<<11
	r.x, r.y, r.z = r.y, r.z, r.w
	r.w = r.w ^ r.w>>19 ^ (t ^ t>>8)
	return r.w
}

// u64 is rand_core's next_u64_via_u32: the first word low.
func (r *xorShift) u64() uint64 {
	lo := uint64(r.u32())
	return uint64(r.u32())<<32 | lo
}

// domain is blstrs 0.7 Scalar::random as a domain: four limbs, little-endian,
// the top bit cleared, redrawn until canonical.
func (r *xorShift) domain() hash.Domain {
	for {
		var d hash.Domain
		for i := range 4 {
			binary.LittleEndian.PutUint64(d[8*i:], r.u64())
		}
		d[31] &= 0x7f
		if _, err := d.Element(); err == nil {
			return d
		}
	}
}

// testSeed is storage-proofs-core's TEST_SEED.
var testSeed = [16]byte{0x59, 0x62, 0xbe, 0x5d, 0x76, 0x3d, 0x31, 0x8d, 0x17, 0xdb, 0x37, 0x32, 0x54, 0x06, 0xbc, 0xe5}

// TestChallengesKnownAnswer replays challenges.rs
// test_challenges_against_hardcoded for the registered sizes.
func TestChallengesKnownAnswer(t *testing.T) {
	commRNew := newXorShift(testSeed).domain()
	for _, tc := range []struct {
		p    Proof
		k    int
		want [5]uint64
	}{
		{StackedDrg2KiBV1, 0, [5]uint64{53, 51, 56, 3, 0}},
		{StackedDrg8MiBV1, 0, [5]uint64{36085, 32783, 44060, 10950, 3731}},
		{StackedDrg8MiBV1, 1, [5]uint64{78878, 130797, 112892, 93994, 78379}},
		{StackedDrg512MiBV1, 0, [5]uint64{1019125, 116736, 706220, 59698, 799498}},
		{StackedDrg512MiBV1, 1, [5]uint64{2092548, 1213276, 1185483, 1164598, 1095197}},
		{StackedDrg512MiBV1, 14, [5]uint64{15212432, 15665918, 15015423, 15012912, 15495223}},
		{StackedDrg512MiBV1, 15, [5]uint64{16388544, 15794686, 16637142, 16319148, 16328348}},
		{StackedDrg32GiBV1, 0, [5]uint64{1019125, 27985696, 15282860, 11586600, 44651330}},
		{StackedDrg32GiBV1, 1, [5]uint64{109168525, 127316247, 80331041, 97065716, 72310052}},
		{StackedDrg32GiBV1, 14, [5]uint64{990420169, 955146989, 968005601, 976863263, 944650706}},
		{StackedDrg32GiBV1, 15, [5]uint64{1038629497, 1053983614, 1030421316, 1027373887, 1068685433}},
		{StackedDrg64GiBV1, 0, [5]uint64{1019125, 13992848, 3820715, 18225541, 57316660}},
		{StackedDrg64GiBV1, 1, [5]uint64{243386253, 197875851, 204632136, 171516766, 247789010}},
		{StackedDrg64GiBV1, 14, [5]uint64{1997053129, 1920414070, 2003609080, 1900492803, 1963254685}},
		{StackedDrg64GiBV1, 15, [5]uint64{2045262457, 2036941247, 2136653521, 2091356007, 2147167623}},
	} {
		info, _ := tc.p.Info()
		got, err := Challenges(info, commRNew, tc.k)
		if err != nil {
			t.Fatal(err)
		}
		if [5]uint64(got[:5]) != tc.want {
			t.Errorf("%v partition %d: %v, want %v", tc.p, tc.k, got[:5], tc.want)
		}
	}
}

// TestChallengeBucketing: partition k's challenges lie in the k-th chunk,
// as many as Info says (challenges.rs test_challenge_bucketing).
func TestChallengeBucketing(t *testing.T) {
	r := newXorShift(testSeed)
	for _, p := range Proofs() {
		info, _ := p.Info()
		commRNew := r.domain()
		chunk := info.Nodes / uint64(info.Partitions)
		for k := range info.Partitions {
			cs, err := Challenges(info, commRNew, k)
			if err != nil {
				t.Fatal(err)
			}
			if len(cs) != info.Challenges {
				t.Fatalf("%v partition %d: %d challenges", p, k, len(cs))
			}
			for _, c := range cs {
				if c/chunk != uint64(k) {
					t.Fatalf("%v partition %d: challenge %d outside [%d, %d)", p, k, c, uint64(k)*chunk, uint64(k+1)*chunk)
				}
			}
			// Partitions draw from different digests.
			if k > 0 {
				prev, _ := Challenges(info, commRNew, k-1)
				if slices.Equal(cs, prev) {
					t.Fatalf("%v: partitions %d and %d agree", p, k-1, k)
				}
			}
		}
	}
}

func TestChallengesErrors(t *testing.T) {
	info, _ := StackedDrg8MiBV1.Info()
	for _, k := range []int{-1, 4} {
		if _, err := Challenges(info, hash.Domain{1}, k); !errors.Is(err, ErrBadVanillaProof) {
			t.Errorf("k %d: %v", k, err)
		}
	}
	var big hash.Domain
	for i := range big {
		big[i] = 0xff
	}
	if _, err := Challenges(info, big, 0); !errors.Is(err, ErrBadVanillaProof) {
		t.Errorf("non-canonical comm_r_new: %v", err)
	}
}

// TestPhiKnownAnswer: curio lib/ffi/cunative decode_snap_test.go TestPhi.
func TestPhiKnownAnswer(t *testing.T) {
	d := mustDomain(t, "b0c133e15929f16f9491f9c82a128786d006a3b7286642cc78644c974f55c42f")
	r := mustDomain(t, "58b65c3e1a1d52c078cb69b4ac995e515c54be9cbecd8ed28ee8009722d3c969")
	phi, err := Phi(d, r)
	if err != nil {
		t.Fatal(err)
	}
	if got := hash.DomainOf(&phi).String(); got != "436c953f3ae69bf47385748daf306871e6839a91d5229a55dda0e02653ce2f27" {
		t.Errorf("phi = %s", got)
	}
	// The arguments are ordered: comm_d_new first.
	if swapped, _ := Phi(r, d); swapped == phi {
		t.Error("phi is symmetric")
	}
	var big hash.Domain
	for i := range big {
		big[i] = 0xff
	}
	if _, err := Phi(big, r); err == nil {
		t.Error("non-canonical comm_d_new accepted")
	}
	if _, err := Phi(d, big); err == nil {
		t.Error("non-canonical comm_r_old accepted")
	}
}

// TestRhoAndEncode: rho is the same hash of (phi, high) — the challenge
// digests' hash of (comm_r_new, index), which the challenge vectors pin —
// and the encoding inverts with rho⁻¹ as decoding does.
func TestRhoAndEncode(t *testing.T) {
	var phi fr.Element
	phi.SetUint64(12345)
	r0, r1 := Rho(phi, 0), Rho(phi, 1)
	if r0 == r1 {
		t.Fatal("rho does not depend on high")
	}
	var hi fr.Element
	hi.SetUint64(1)
	if hash2(phi, hi) != r1 {
		t.Fatal("rho is not hash2(phi, high)")
	}
	var old, data fr.Element
	old.SetUint64(7)
	data.SetUint64(9)
	enc := Encode(old, data, r1)
	var back, inv fr.Element
	back.Sub(&enc, &old)
	inv.Inverse(&r1)
	back.Mul(&back, &inv)
	if back != data {
		t.Fatal("(new − old)·rho⁻¹ ≠ data")
	}
	info, _ := StackedDrg32GiBV1.Info()
	if info.High(info.Nodes-1) != 1023 || info.High(1<<20-1) != 0 || info.High(1<<20) != 1 {
		t.Errorf("High: %d %d %d", info.High(info.Nodes-1), info.High(1<<20-1), info.High(1<<20))
	}
}

func mustDomain(t *testing.T, s string) hash.Domain {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		t.Fatalf("bad hex %q", s)
	}
	return hash.Domain(b)
}
