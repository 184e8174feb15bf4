package post

import (
	"errors"
	"fmt"
)

// ErrBadVanillaProof reports vanilla proof bytes that do not decode, a
// vanilla proof without the registered proof's shape, one that does not
// verify, or public data (randomness, sectors) they cannot be proven with.
var ErrBadVanillaProof = errors.New("post: bad vanilla proof")

// bad is a rejection: ErrBadVanillaProof followed by where and what.
func bad(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadVanillaProof, fmt.Sprintf(format, args...))
}
