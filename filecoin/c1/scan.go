package c1

import (
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds the nesting of values the scanner skips: unknown keys may
// hold any JSON, and outside input must not recurse without end.
const maxDepth = 64

// scanner is a one-pass JSON reader over either a whole input (r == nil) or
// an io.Reader seen through a fixed buffer. It never looks back, so the
// buffer holds only what has not been consumed yet.
type scanner struct {
	buf  []byte
	pos  int
	base int64 // input offset of buf[0]
	r    io.Reader
	rerr error // the reader's sticky error; io.EOF at the end

	str []byte // scratch for strings (keys, names), reused
}

func newSliceScanner(b []byte) *scanner { return &scanner{buf: b} }

func newReaderScanner(r io.Reader) *scanner {
	return &scanner{buf: make([]byte, 0, 64<<10), r: r}
}

func (s *scanner) offset() int64 { return s.base + int64(s.pos) }

// fill reads more input once everything buffered is consumed; false at the
// end of input or on a read error.
func (s *scanner) fill() bool {
	if s.r == nil || s.rerr != nil {
		return false
	}
	s.base += int64(len(s.buf))
	s.buf, s.pos = s.buf[:0], 0
	for len(s.buf) == 0 && s.rerr == nil {
		n, err := s.r.Read(s.buf[:cap(s.buf)])
		s.buf = s.buf[:n]
		s.rerr = err
	}
	return len(s.buf) > 0
}

// errorf is a syntax error at the current offset. A failed read is
// reported instead of what it made look malformed.
func (s *scanner) errorf(format string, args ...any) error {
	if s.rerr != nil && !errors.Is(s.rerr, io.EOF) {
		return &fieldError{off: s.offset(), msg: "read: " + s.rerr.Error()}
	}
	return &fieldError{off: s.offset(), msg: fmt.Sprintf(format, args...)}
}

// cur is the next byte without skipping whitespace, −1 at the end.
func (s *scanner) cur() int {
	if s.pos < len(s.buf) || s.fill() {
		return int(s.buf[s.pos])
	}
	return -1
}

// peek skips whitespace and returns the next byte, −1 at the end.
func (s *scanner) peek() int {
	for {
		for s.pos < len(s.buf) {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t', '\n', '\r':
				s.pos++
			default:
				return int(c)
			}
		}
		if !s.fill() {
			return -1
		}
	}
}

func describe(c int) string {
	if c < 0 {
		return "end of input"
	}
	return fmt.Sprintf("%q", rune(c))
}

// expect consumes c after optional whitespace.
func (s *scanner) expect(c byte) error {
	if got := s.peek(); got != int(c) {
		return s.errorf("expected %q, found %s", c, describe(got))
	}
	s.pos++
	return nil
}

// end checks that only whitespace is left.
func (s *scanner) end() error {
	if c := s.peek(); c >= 0 {
		return s.errorf("trailing data after the value: %s", describe(c))
	}
	if s.rerr != nil && !errors.Is(s.rerr, io.EOF) {
		return s.errorf("")
	}
	return nil
}

// uint reads a JSON integer in [0, max]: no sign, fraction or exponent
// (serde rejects those for unsigned fields), no leading zeros (JSON).
func (s *scanner) uint(max uint64) (uint64, error) {
	c := s.peek()
	if c < '0' || c > '9' {
		if c == '-' {
			return 0, s.errorf("negative number for an unsigned field")
		}
		return 0, s.errorf("expected an unsigned integer, found %s", describe(c))
	}
	var v uint64
	if c == '0' {
		s.pos++
	} else {
		for {
			c = s.cur()
			if c < '0' || c > '9' {
				break
			}
			d := uint64(c - '0')
			if v > (max-d)/10 {
				return 0, s.errorf("integer out of range (max %d)", max)
			}
			v = v*10 + d
			s.pos++
		}
	}
	switch c = s.cur(); c {
	case '.', 'e', 'E':
		return 0, s.errorf("expected an integer, found a fraction or exponent")
	}
	if c >= '0' && c <= '9' {
		return 0, s.errorf("leading zero in a number")
	}
	return v, nil
}

// int reads a JSON integer that fits an int64.
func (s *scanner) int() (int64, error) {
	if s.peek() == '-' {
		s.pos++
		if c := s.cur(); c < '0' || c > '9' {
			return 0, s.errorf("expected a digit after '-', found %s", describe(c))
		}
		v, err := s.uint(1 << 63)
		return -int64(v), err
	}
	v, err := s.uint(1<<63 - 1)
	return int64(v), err
}

// byteValue reads one element of a domain: an integer 0..255. It is the
// hot loop of decoding (32 per domain), so it reads the buffer directly
// when three digits and a delimiter are there.
func (s *scanner) byteValue() (byte, error) {
	if s.pos+4 <= len(s.buf) {
		b := s.buf[s.pos:]
		d0 := b[0] - '0'
		if d0 <= 9 {
			d1 := b[1] - '0'
			if d1 > 9 {
				if !isDigitOrNumberPart(b[1]) {
					s.pos++
					return d0, nil
				}
			} else if d0 != 0 {
				d2 := b[2] - '0'
				if d2 > 9 {
					if !isDigitOrNumberPart(b[2]) {
						s.pos += 2
						return d0*10 + d1, nil
					}
				} else if v := uint(d0)*100 + uint(d1)*10 + uint(d2); v <= 255 && !isDigitOrNumberPart(b[3]) {
					s.pos += 3
					return byte(v), nil
				}
			}
		}
	}
	v, err := s.uint(255)
	return byte(v), err
}

func isDigitOrNumberPart(c byte) bool {
	return c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E'
}

// domainFastMin is the most text a compact domain takes: 32 three-digit
// numbers, 31 commas and the brackets.
const domainFastMin = 32*3 + 31 + 2

// domainFast parses a domain in serde_json's compact form straight from
// the buffer; it reports false, consuming nothing, on anything else
// (whitespace, a short buffer, a malformed number), and domain then takes
// the general path, which also produces the error.
func (s *scanner) domainFast(d *[32]byte) bool {
	b := s.buf[s.pos:]
	if len(b) < domainFastMin || b[0] != '[' {
		return false
	}
	j := 1
	for i := range d {
		c0 := b[j] - '0'
		if c0 > 9 {
			return false
		}
		v := uint(c0)
		j++
		if c1 := b[j] - '0'; c1 <= 9 {
			if c0 == 0 {
				return false
			}
			v = v*10 + uint(c1)
			j++
			if c2 := b[j] - '0'; c2 <= 9 {
				v = v*10 + uint(c2)
				j++
				if v > 255 {
					return false
				}
			}
		}
		want := byte(',')
		if i == 31 {
			want = ']'
		}
		if b[j] != want {
			return false
		}
		j++
		d[i] = byte(v)
	}
	s.pos += j
	return true
}

// domain reads a JSON array of exactly 32 bytes, as serde writes [u8; 32].
func (s *scanner) domain(d *[32]byte) error {
	if s.peek() == '[' && s.domainFast(d) {
		return nil
	}
	if err := s.expect('['); err != nil {
		return err
	}
	for i := range d {
		if i > 0 {
			// Fast path for the compact form serde_json writes.
			if s.pos < len(s.buf) && s.buf[s.pos] == ',' {
				s.pos++
			} else if c := s.peek(); c == ']' {
				return s.errorf("domain has %d bytes, want 32", i)
			} else if err := s.expect(','); err != nil {
				return err
			}
		} else if s.peek() == ']' {
			return s.errorf("domain has 0 bytes, want 32")
		}
		v, err := s.byteValue()
		if err != nil {
			return err
		}
		d[i] = v
	}
	if c := s.peek(); c == ',' {
		return s.errorf("domain has more than 32 bytes")
	}
	return s.expect(']')
}

// null reads the literal null.
func (s *scanner) null() error {
	if s.peek() != 'n' {
		return s.errorf("expected null, found %s", describe(s.peek()))
	}
	return s.literal("null")
}

func (s *scanner) literal(lit string) error {
	for i := 0; i < len(lit); i++ {
		if s.cur() != int(lit[i]) {
			return s.errorf("bad literal, expected %q", lit)
		}
		s.pos++
	}
	return nil
}

// string reads a JSON string into s.str (valid until the next call),
// decoding escapes. Strings longer than limit are consumed but truncated,
// and reported as long; callers treat them as unknown.
func (s *scanner) string(limit int) (str []byte, long bool, err error) {
	if err := s.expect('"'); err != nil {
		return nil, false, err
	}
	s.str = s.str[:0]
	add := func(b ...byte) {
		if len(s.str)+len(b) > limit {
			long = true
			return
		}
		s.str = append(s.str, b...)
	}
	for {
		c := s.cur()
		switch {
		case c < 0:
			return nil, false, s.errorf("unterminated string")
		case c == '"':
			s.pos++
			if !utf8.Valid(s.str) {
				return nil, false, s.errorf("string is not valid UTF-8")
			}
			return s.str, long, nil
		case c < 0x20:
			return nil, false, s.errorf("control character %#x in a string", c)
		case c == '\\':
			s.pos++
			r, err := s.escape()
			if err != nil {
				return nil, false, err
			}
			var enc [utf8.UTFMax]byte
			add(enc[:utf8.EncodeRune(enc[:], r)]...)
		default:
			s.pos++
			add(byte(c))
		}
	}
}

// escape decodes the escape after a backslash.
func (s *scanner) escape() (rune, error) {
	c := s.cur()
	s.pos++
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		r, err := s.hex4()
		if err != nil {
			return 0, err
		}
		if utf16.IsSurrogate(r) {
			if s.cur() != '\\' {
				return 0, s.errorf("lone surrogate in a \\u escape")
			}
			s.pos++
			if s.cur() != 'u' {
				return 0, s.errorf("lone surrogate in a \\u escape")
			}
			s.pos++
			r2, err := s.hex4()
			if err != nil {
				return 0, err
			}
			if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
				return 0, s.errorf("bad surrogate pair in a \\u escape")
			}
		}
		return r, nil
	}
	s.pos--
	return 0, s.errorf("bad escape %s", describe(c))
}

func (s *scanner) hex4() (rune, error) {
	var r rune
	for range 4 {
		c := s.cur()
		var d int
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, s.errorf("bad hex digit %s in a \\u escape", describe(c))
		}
		r = r<<4 | rune(d)
		s.pos++
	}
	return r, nil
}

// keyLimit is longer than every key the schema knows.
const keyLimit = 32

// object reads a JSON object, calling field for every key with the scanner
// before the value; field must consume the value (skip for unknown keys).
func (s *scanner) object(field func(key []byte) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.peek() == '}' {
		s.pos++
		return nil
	}
	for {
		key, long, err := s.string(keyLimit)
		if err != nil {
			return err
		}
		if long {
			key = nil // matches no known key
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := field(key); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return nil
		default:
			return s.errorf("expected ',' or '}' in an object, found %s", describe(s.peek()))
		}
	}
}

// array reads a JSON array, calling elem with each element's index.
func (s *scanner) array(elem func(i int) error) error {
	if err := s.expect('['); err != nil {
		return err
	}
	if s.peek() == ']' {
		s.pos++
		return nil
	}
	for i := 0; ; i++ {
		if err := elem(i); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return nil
		default:
			return s.errorf("expected ',' or ']' in an array, found %s", describe(s.peek()))
		}
	}
}

// skip consumes any JSON value (an unknown key's), checking its syntax.
func (s *scanner) skip(depth int) error {
	if depth > maxDepth {
		return s.errorf("values nested deeper than %d", maxDepth)
	}
	switch c := s.peek(); {
	case c == '{':
		return s.object(func([]byte) error { return s.skip(depth + 1) })
	case c == '[':
		return s.array(func(int) error { return s.skip(depth + 1) })
	case c == '"':
		_, _, err := s.string(0)
		return err
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	default:
		return s.errorf("expected a value, found %s", describe(c))
	}
}

// number consumes a JSON number of any form.
func (s *scanner) number() error {
	if s.cur() == '-' {
		s.pos++
	}
	digits := func() int {
		n := 0
		for c := s.cur(); c >= '0' && c <= '9'; c = s.cur() {
			s.pos++
			n++
		}
		return n
	}
	if s.cur() == '0' {
		s.pos++
	} else if digits() == 0 {
		return s.errorf("expected a digit, found %s", describe(s.cur()))
	}
	if s.cur() == '.' {
		s.pos++
		if digits() == 0 {
			return s.errorf("expected a digit after '.', found %s", describe(s.cur()))
		}
	}
	if c := s.cur(); c == 'e' || c == 'E' {
		s.pos++
		if c := s.cur(); c == '+' || c == '-' {
			s.pos++
		}
		if digits() == 0 {
			return s.errorf("expected an exponent digit, found %s", describe(s.cur()))
		}
	}
	return nil
}
