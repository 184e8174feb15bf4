package main

import (
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// inputsFile is the JSON written beside a proof: the public inputs (ONE
// excluded) as decimal strings, in AllocInput order.
type inputsFile struct {
	Inputs []string `json:"inputs"`
}

func encodeInputs(in []fr.Element) ([]byte, error) {
	f := inputsFile{Inputs: make([]string, len(in))}
	for i := range in {
		f.Inputs[i] = in[i].String()
	}
	return json.MarshalIndent(f, "", "  ")
}

// decodeInputs parses an inputs file, rejecting values that are not
// canonical field elements.
func decodeInputs(b []byte) ([]fr.Element, error) {
	var f inputsFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("inputs: %w", err)
	}
	if f.Inputs == nil {
		return nil, fmt.Errorf(`inputs: no "inputs" array`)
	}
	out := make([]fr.Element, len(f.Inputs))
	for i, s := range f.Inputs {
		v, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return nil, fmt.Errorf("inputs[%d]: %q is not a decimal integer", i, s)
		}
		if v.Sign() < 0 || v.Cmp(fr.Modulus()) >= 0 {
			return nil, fmt.Errorf("inputs[%d]: %s is not a canonical field element", i, s)
		}
		out[i].SetBigInt(v)
	}
	return out, nil
}
