package sha256_test

import "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

func one() fr.Element { var e fr.Element; e.SetOne(); return e }
