package update

import (
	"errors"
	"fmt"
	"strings"
)

// ErrBadVanillaProof reports a partition proof (or the comms it is checked
// against) that does not parse, does not have the registered proof's shape,
// or does not verify.
var ErrBadVanillaProof = errors.New("update: bad vanilla proof")

// ErrBadComm reports a comm_r_old, comm_r_new or comm_d_new field of a
// request that is not a canonical 32-byte digest (or its CID).
var ErrBadComm = errors.New("update: bad commitment")

// fieldError is a rejection of one field of a partition proof. It reads
// "update: bad vanilla proof: partition 3 challenge 17: proof_d_new.leaf: …";
// the partition and challenge are left out where unknown (−1).
type fieldError struct {
	partition, challenge int
	field                string
	msg                  string
}

func (e *fieldError) Error() string {
	var b strings.Builder
	b.WriteString(ErrBadVanillaProof.Error())
	b.WriteString(": ")
	if e.partition >= 0 {
		fmt.Fprintf(&b, "partition %d", e.partition)
		if e.challenge >= 0 {
			b.WriteByte(' ')
		} else {
			b.WriteString(": ")
		}
	}
	if e.challenge >= 0 {
		fmt.Fprintf(&b, "challenge %d: ", e.challenge)
	}
	if e.field != "" {
		b.WriteString(e.field)
		b.WriteString(": ")
	}
	b.WriteString(e.msg)
	return b.String()
}

func (e *fieldError) Unwrap() error { return ErrBadVanillaProof }

// bad rejects field (a dotted path such as "proof_d_new.leaf").
func bad(field, format string, args ...any) *fieldError {
	return &fieldError{partition: -1, challenge: -1, field: field, msg: fmt.Sprintf(format, args...)}
}

// within prefixes err's field with prefix ("challenge_proofs[3]" …) when err
// is a *fieldError; other errors pass unchanged.
func within(err error, prefix string) error {
	var fe *fieldError
	if errors.As(err, &fe) {
		if fe.field == "" {
			fe.field = prefix
		} else {
			fe.field = prefix + "." + fe.field
		}
	}
	return err
}

// atChallenge names partition k and challenge i in err.
func atChallenge(err error, k, i int) error {
	var fe *fieldError
	if errors.As(err, &fe) {
		fe.partition, fe.challenge = k, i
	}
	return err
}
