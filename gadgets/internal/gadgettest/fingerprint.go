package gadgettest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// Fingerprint is a ConstraintSystem that hashes, in order, every
// allocation (kind and value) and every constraint (the non-zero terms of
// a, b and c, variable and coefficient). Two syntheses with the same
// fingerprint produced the same R1CS row by row and the same witness. It
// stores nothing else, so it can take a whole circuit.
type Fingerprint struct {
	h                        hash.Hash
	Inputs, Aux, Constraints int
	buf                      []byte
}

// NewFingerprint returns a fingerprint with ONE allocated as input 0.
func NewFingerprint() *Fingerprint {
	f := &Fingerprint{h: sha256.New()}
	var one fr.Element
	one.SetOne()
	f.AllocInput(one)
	return f
}

func (f *Fingerprint) value(kind byte, v fr.Element) {
	b := v.Bytes()
	f.buf = append(append(f.buf[:0], kind), b[:]...)
	f.h.Write(f.buf)
}

func (f *Fingerprint) Alloc(v fr.Element) r1cs.Variable {
	f.value('a', v)
	f.Aux++
	return r1cs.AuxVariable(f.Aux - 1)
}

func (f *Fingerprint) AllocInput(v fr.Element) r1cs.Variable {
	f.value('i', v)
	f.Inputs++
	return r1cs.InputVariable(f.Inputs - 1)
}

func (f *Fingerprint) Enforce(a, b, c r1cs.LinearCombination) {
	f.Constraints++
	f.buf = append(f.buf[:0], 'e')
	for _, lc := range []r1cs.LinearCombination{a, b, c} {
		f.buf = append(f.buf, '|')
		for i := range lc {
			if lc[i].Coeff.IsZero() {
				continue
			}
			f.buf = binary.BigEndian.AppendUint32(f.buf, uint32(lc[i].Var))
			cb := lc[i].Coeff.Bytes()
			f.buf = append(f.buf, cb[:]...)
		}
	}
	f.h.Write(f.buf)
}

func (f *Fingerprint) NumInputs() int      { return f.Inputs }
func (f *Fingerprint) NumAux() int         { return f.Aux }
func (f *Fingerprint) NumConstraints() int { return f.Constraints }

// Sum is the hex fingerprint so far.
func (f *Fingerprint) Sum() string { return hex.EncodeToString(f.h.Sum(nil)) }
