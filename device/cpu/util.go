package cpu

import "math/big"

func bigUint(v uint64) *big.Int { return new(big.Int).SetUint64(v) }
