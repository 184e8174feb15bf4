package c1

import (
	"errors"
	"fmt"
	"strings"
)

// ErrBadVanillaProof reports a C1 output (or its envelope) that does not
// parse, does not have the registered proof's shape, or does not verify.
var ErrBadVanillaProof = errors.New("c1: bad vanilla proof")

// fieldError is a rejection inside the C1 output. The path of field names
// is collected innermost first as the error travels up, so that nothing is
// formatted on the success path.
type fieldError struct {
	path []string // innermost first
	off  int64    // input offset for syntax errors, −1 otherwise
	msg  string
}

func (e *fieldError) Error() string {
	var b strings.Builder
	b.WriteString(ErrBadVanillaProof.Error())
	b.WriteString(": ")
	for i := len(e.path) - 1; i >= 0; i-- {
		seg := e.path[i]
		switch {
		case i == len(e.path)-1, seg[0] == '[':
		case strings.HasPrefix(e.path[i+1], "partition "):
			b.WriteString(": ")
		default:
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	if len(e.path) > 0 {
		b.WriteString(": ")
	}
	if e.off >= 0 {
		fmt.Fprintf(&b, "offset %d: ", e.off)
	}
	b.WriteString(e.msg)
	return b.String()
}

func (e *fieldError) Unwrap() error { return ErrBadVanillaProof }

// bad is a rejection with no input offset.
func bad(format string, args ...any) *fieldError {
	return &fieldError{off: -1, msg: fmt.Sprintf(format, args...)}
}

// at prepends field to err's path; err is nil or a *fieldError.
func at(err error, field string) error {
	if err == nil {
		return nil
	}
	var fe *fieldError
	if errors.As(err, &fe) {
		// A challenge's name is the outermost a reader needs.
		if n := len(fe.path); n == 0 || !strings.HasPrefix(fe.path[n-1], "partition ") {
			fe.path = append(fe.path, field)
		}
		return fe
	}
	return &fieldError{path: []string{field}, off: -1, msg: err.Error()}
}

// atIndex prepends "[i]" to err's path.
func atIndex(err error, i int) error {
	if err == nil {
		return nil
	}
	return at(err, fmt.Sprintf("[%d]", i))
}

// atChallenge names partition k, challenge i.
func atChallenge(err error, k, i int) error {
	if err == nil {
		return nil
	}
	return at(err, fmt.Sprintf("partition %d challenge %d", k, i))
}
