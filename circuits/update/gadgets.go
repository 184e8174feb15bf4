package update

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/boolean"
	gmerkle "github.com/cuzk-project/cuzk/gadgets/merkle"
	"github.com/cuzk-project/cuzk/gadgets/num"
	"github.com/cuzk-project/cuzk/gadgets/poseidon"
	"github.com/cuzk-project/cuzk/gadgets/sha256"
	"github.com/cuzk-project/cuzk/r1cs"
)

var one = fr.One()

// decompose allocates the low p + h bits of n, least significant first, and
// enforces (Σ 2^i·bit_i) · ONE = n: n has no other bits. It returns the
// first p bits and the next h.
func decompose(cs r1cs.ConstraintSystem, n num.AllocatedNum, p, h int) (low, high []boolean.AllocatedBit) {
	limbs := n.Value.Bits()
	bits := make([]boolean.AllocatedBit, p+h)
	for i := range bits {
		bits[i] = boolean.Alloc(cs, limbs[i/64]>>(uint(i)%64)&1 == 1)
	}
	cs.Enforce(packLC(bits), r1cs.LC(r1cs.Term{Var: r1cs.One, Coeff: one}), n.LC())
	return bits[:p], bits[p:]
}

// packLC is Σ 2^i·bits[i].
func packLC(bits []boolean.AllocatedBit) r1cs.LinearCombination {
	lc := make(r1cs.LinearCombination, 0, len(bits))
	coeff := one
	for _, b := range bits {
		lc.AddTerm(b.Var, &coeff)
		coeff.Double(&coeff)
	}
	return lc
}

// toBits is gadgets.rs allocated_num_to_allocated_bits: the 255 bits of n,
// least significant first, and (Σ 2^i·bit_i) · ONE = n.
func toBits(cs r1cs.ConstraintSystem, n num.AllocatedNum) []boolean.AllocatedBit {
	bits := boolean.FieldIntoAllocatedBitsLE(cs, n.Value)
	cs.Enforce(packLC(bits), r1cs.LC(r1cs.Term{Var: r1cs.One, Coeff: one}), n.LC())
	return bits
}

// apexPoR is gadgets.rs apex_por: the apex tree over leaves (SHA-254 node
// hashes, row by row, left to right), then the path of its root along the
// partition bits to commD.
func apexPoR(cs r1cs.ConstraintSystem, leaves []num.AllocatedNum, partitionBits []boolean.AllocatedBit,
	path [][]num.AllocatedNum, commD num.AllocatedNum) error {
	row := leaves
	for len(row) > 1 {
		next := make([]num.AllocatedNum, len(row)/2)
		for i := range next {
			next[i] = sha256.HashMultiLeaf(cs, row[2*i:2*i+2])
		}
		row = next
	}
	return gmerkle.NoChallengeInput(cs, gmerkle.Sha254{}, partitionBits, row[0], path, commD)
}

// challengeBits is gadgets.rs gen_challenge_bits: the random bits of each
// of the partition's challenges. Digest j of partition k is the custom
// Poseidon of (comm_r_new, k·d + j), d digests per partition; its 255 bits,
// cut into runs of perChallenge from the least significant, give
// ⌊254 / perChallenge⌋ challenges (the last digest only what is left).
func challengeBits(cs r1cs.ConstraintSystem, commRNew, k num.AllocatedNum, challenges, perChallenge int) ([][]boolean.AllocatedBit, error) {
	perDigest := 254 / perChallenge
	digests := (challenges + perDigest - 1) / perDigest
	var d fr.Element
	d.SetUint64(uint64(digests))
	out := make([][]boolean.AllocatedBit, 0, challenges)
	for j := range digests {
		var jj, v fr.Element
		jj.SetUint64(uint64(j))
		v.Mul(&k.Value, &d)
		v.Add(&v, &jj)
		index := num.Alloc(cs, v)
		var a r1cs.LinearCombination
		a.AddCoeff(d, k.Var)
		a.AddCoeff(jj, r1cs.One)
		cs.Enforce(a, r1cs.LC(r1cs.Term{Var: r1cs.One, Coeff: one}), index.LC())

		digest, err := poseidon.Hash(cs, []num.AllocatedNum{commRNew, index}, randomness)
		if err != nil {
			return nil, fmt.Errorf("digest %d: %w", j, err)
		}
		bits := toBits(cs, digest)
		take := min(perDigest, challenges-len(out))
		for i := range take {
			out = append(out, bits[i*perChallenge:(i+1)*perChallenge])
		}
	}
	return out, nil
}

// highBits is gadgets.rs get_challenge_high_bits: for each allowed h the
// challenge's top h bits packed and multiplied by its h_select bit, and
// their sum, which is the selected h's high bits when exactly one h_select
// bit is set.
func highBits(cs r1cs.ConstraintSystem, bits, hSelect []boolean.AllocatedBit, hs []int) num.AllocatedNum {
	var sumLC r1cs.LinearCombination
	var sum fr.Element
	for i, h := range hs {
		high := num.PackBits(cs, booleans(bits[len(bits)-h:]))
		var v fr.Element
		if hSelect[i].Value {
			v = high.Value
		}
		orZero := num.Alloc(cs, v)
		cs.Enforce(high.LC(), r1cs.LC(r1cs.Term{Var: hSelect[i].Var, Coeff: one}), orZero.LC())
		sumLC.Add(orZero.Var)
		sum.Add(&sum, &v)
	}
	selected := num.Alloc(cs, sum)
	cs.Enforce(sumLC, r1cs.LC(r1cs.Term{Var: r1cs.One, Coeff: one}), selected.LC())
	return selected
}

// encode is gadgets.rs label_r_new: leaf_d_new · rho (one product row),
// then leaf_r_new = leaf_r_old + leaf_d_new·rho.
func encode(cs r1cs.ConstraintSystem, old, data, rho num.AllocatedNum) num.AllocatedNum {
	dRho := data.Mul(cs, rho)
	var v fr.Element
	v.Add(&old.Value, &dRho.Value)
	n := num.Alloc(cs, v)
	var a r1cs.LinearCombination
	a.Add(old.Var)
	a.Add(dRho.Var)
	cs.Enforce(a, r1cs.LC(r1cs.Term{Var: r1cs.One, Coeff: one}), n.LC())
	return n
}
