package c1

import (
	"bytes"
	"encoding/base64"
	"io"
	"math"
	"strconv"
)

// Envelope is how Curio hands a C1 output to cuzk (curio lib/ffi
// cuzk_funcs.go wrapC1Output, the same as lotus-bench's Commit2In): Go's
// encoding/json of
//
//	{"SectorNum": int64, "Phase1Out": base64 std (padded) of the C1 JSON, "SectorSize": u64}
type Envelope struct {
	SectorNum  int64
	Phase1Out  []byte // the C1 JSON
	SectorSize uint64
}

var envelopeFields = []string{"SectorNum", "Phase1Out", "SectorSize"}

// DecodeEnvelope reads an envelope and decodes Phase1Out from base64; the
// C1 JSON itself is not parsed (Output does that). Errors wrap
// ErrBadVanillaProof.
func DecodeEnvelope(b []byte) (*Envelope, error) {
	e, raw, err := scanEnvelope(b)
	if err != nil {
		return nil, err
	}
	if raw != nil {
		out := make([]byte, base64.StdEncoding.DecodedLen(len(raw)))
		n, err := base64.StdEncoding.Decode(out, raw)
		if err != nil {
			return nil, at(bad("base64: %v", err), "Phase1Out")
		}
		e.Phase1Out = out[:n]
	}
	return e, nil
}

// DecodeEnvelopeOutput reads an envelope and decodes the C1 output inside
// it, streaming the base64 straight into the C1 decoder: the decoded JSON
// is never held. The returned Envelope has no Phase1Out. The output's
// sector size must equal the envelope's.
func DecodeEnvelopeOutput(b []byte) (*Envelope, *Output, error) {
	e, raw, err := scanEnvelope(b)
	if err != nil {
		return nil, nil, err
	}
	o, err := DecodeReader(&base64Reader{src: raw})
	if err != nil {
		return nil, nil, at(err, "Phase1Out")
	}
	if err := e.checkSize(o); err != nil {
		return nil, nil, err
	}
	return e, o, nil
}

// Output decodes the C1 output in Phase1Out and checks that its sector
// size is the envelope's.
func (e *Envelope) Output() (*Output, error) {
	o, err := Decode(e.Phase1Out)
	if err != nil {
		return nil, at(err, "Phase1Out")
	}
	if err := e.checkSize(o); err != nil {
		return nil, err
	}
	return o, nil
}

func (e *Envelope) checkSize(o *Output) error {
	if got := o.Info().SectorSize; got != e.SectorSize {
		return at(bad("%d, but the C1 output is a %s (%d bytes)", e.SectorSize, o.RegisteredProof, got), "SectorSize")
	}
	return nil
}

// Encode writes the envelope as Go's encoding/json does.
func (e *Envelope) Encode() []byte {
	b := make([]byte, 0, 64+base64.StdEncoding.EncodedLen(len(e.Phase1Out)))
	b = append(b, `{"SectorNum":`...)
	b = strconv.AppendInt(b, e.SectorNum, 10)
	b = append(b, `,"Phase1Out":`...)
	if e.Phase1Out == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, e.Phase1Out)
		b = append(b, '"')
	}
	b = append(b, `,"SectorSize":`...)
	b = strconv.AppendUint(b, e.SectorSize, 10)
	return append(b, '}')
}

// WriteTo writes Encode's bytes to w.
func (e *Envelope) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(e.Encode())
	return int64(n), err
}

// scanEnvelope parses the envelope and returns Phase1Out's base64 text
// (nil for null): a sub-slice of b when it has no escapes.
func scanEnvelope(b []byte) (*Envelope, []byte, error) {
	s := newSliceScanner(b)
	d := decoder{s: s}
	e := &Envelope{}
	var raw []byte
	err := d.object(envelopeFields, func(i int) error {
		switch i {
		case 0:
			v, err := s.int()
			e.SectorNum = v
			return err
		case 1:
			if s.peek() == 'n' {
				return s.null()
			}
			r, err := s.rawString()
			raw = r
			return err
		default:
			v, err := s.uint(math.MaxUint64)
			e.SectorSize = v
			return err
		}
	})
	if err == nil {
		err = s.end()
	}
	if err != nil {
		return nil, nil, err
	}
	return e, raw, nil
}

// rawString reads a JSON string of a whole-input scanner without copying
// when it has no escapes (base64 has none); otherwise it decodes them.
func (s *scanner) rawString() ([]byte, error) {
	if err := s.expect('"'); err != nil {
		return nil, err
	}
	start := s.pos
	for i := start; i < len(s.buf); i++ {
		switch c := s.buf[i]; {
		case c == '"':
			s.pos = i + 1
			return s.buf[start:i:i], nil
		case c == '\\':
			s.pos = start - 1
			str, _, err := s.string(math.MaxInt)
			return bytes.Clone(str), err
		case c < 0x20:
			s.pos = i
			return nil, s.errorf("control character %#x in a string", c)
		}
	}
	s.pos = len(s.buf)
	return nil, s.errorf("unterminated string")
}

// base64Reader decodes padded standard base64 held in memory chunk by
// chunk, straight into the reader's buffer. (base64.NewDecoder does the same
// through a newline filter and an extra copy; JSON strings hold no raw
// newlines.)
type base64Reader struct {
	src  []byte
	tail [3]byte // decoded bytes a short Read could not take
	nt   int
	err  error
}

func (r *base64Reader) Read(p []byte) (int, error) {
	n := 0
	if r.nt > 0 {
		n = copy(p, r.tail[:r.nt])
		copy(r.tail[:], r.tail[n:r.nt])
		r.nt -= n
		return n, nil
	}
	if r.err != nil {
		return 0, r.err
	}
	if len(r.src) == 0 {
		r.err = io.EOF
		return 0, io.EOF
	}
	if len(p) < 3 {
		m := min(4, len(r.src))
		k, err := base64.StdEncoding.Decode(r.tail[:], r.src[:m])
		r.src = r.src[m:]
		if err != nil {
			r.err = err
			return 0, err
		}
		r.nt = k
		return r.Read(p)
	}
	m := min(len(p)/3*4, len(r.src))
	if m < len(r.src) {
		m &^= 3
	}
	k, err := base64.StdEncoding.Decode(p, r.src[:m])
	r.src = r.src[m:]
	if err != nil {
		r.err = err
	}
	return k, err
}
