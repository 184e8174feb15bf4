package r1cs

import (
	"context"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// A witness-only synthesis of a large partition fills an aux vector of
// gigabytes (4.2 GB for a 32 GiB PoRep partition), and a vector made anew
// where the process used that memory before is cleared first, on one core.
// A caller that proves partition after partition hands the last one's dead
// vector to the next synthesis in its context; a synthesizer that writes
// every value of the vectors it fills (one that Resets a WitnessAssignment
// it is given and appends, as the circuits' WitnessInto do) starts from it.

type auxKey struct{}

// WithAux returns ctx carrying v, an aux vector nothing else reads or
// writes any more, for a synthesis to fill instead of making its own.
func WithAux(ctx context.Context, v []fr.Element) context.Context {
	return context.WithValue(ctx, auxKey{}, v)
}

// AuxOf is the vector ctx carries, emptied, or nil.
func AuxOf(ctx context.Context) []fr.Element {
	v, _ := ctx.Value(auxKey{}).([]fr.Element)
	return v[:0]
}

// FilledIn is Filled, into the vector ctx carries where it carries one.
func FilledIn(ctx context.Context, into func(*WitnessAssignment) error) (*WitnessAssignment, error) {
	return filled(&WitnessAssignment{Aux: AuxOf(ctx)}, into)
}
