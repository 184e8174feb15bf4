package encoding

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/gadgets/num"
	"github.com/cuzk-project/cuzk/r1cs"
)

// Encode returns key + value (constraint::add).
func Encode(cs r1cs.ConstraintSystem, key, value num.AllocatedNum) num.AllocatedNum {
	return key.Add(cs, value)
}

// Decode returns value − key (constraint::sub).
func Decode(cs r1cs.ConstraintSystem, key, value num.AllocatedNum) num.AllocatedNum {
	return num.Sub(cs, value, key)
}

// EncodeNative is key + value.
func EncodeNative(key, value fr.Element) fr.Element {
	var r fr.Element
	r.Add(&key, &value)
	return r
}

// DecodeNative is value − key.
func DecodeNative(key, value fr.Element) fr.Element {
	var r fr.Element
	r.Sub(&value, &key)
	return r
}
