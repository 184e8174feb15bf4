package timeline

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// The CSV form of a timeline has one event per row:
//
//	at_ms,event,job,partition,worker,device
//	1234.567890,KERNEL_START,job-7,3,1,0
//
// at_ms is the offset from the recorder's start in milliseconds with six
// decimals (nanosecond precision, exact: no float rounding); event is a
// Kind name; an unset partition, worker or device is empty. Fields are
// quoted by RFC 4180 when they need it. (The one thing that does not
// survive a round trip: encoding/csv reads "\r\n" inside a quoted job id
// back as "\n".)
//
// The log-line form (AppendLine, Recorder.Tee) is the same row prefixed by
// a "TIMELINE" field, so `grep '^TIMELINE,' daemon.log` is itself a file
// ReadCSV accepts.

// CSVHeader is the first row WriteCSV writes.
const CSVHeader = "at_ms,event,job,partition,worker,device"

// LinePrefix starts every log line written by AppendLine.
const LinePrefix = "TIMELINE"

// ErrMalformed is wrapped by every error ReadCSV returns for bad input.
var ErrMalformed = errors.New("timeline: malformed CSV")

// ParseKind returns the Kind named s (as Kind.String spells it).
func ParseKind(s string) (Kind, bool) {
	for k, name := range kindNames {
		if name != "" && name == s {
			return Kind(k), true
		}
	}
	return 0, false
}

// AppendRow appends e as one CSV row, without a line end.
func AppendRow(dst []byte, e Event) []byte {
	dst = appendMillis(dst, e.At)
	dst = append(dst, ',')
	dst = append(dst, e.Kind.String()...)
	dst = append(dst, ',')
	dst = appendField(dst, e.Job)
	for _, v := range [...]int{e.Partition, e.Worker, e.Device} {
		dst = append(dst, ',')
		if v >= 0 {
			dst = strconv.AppendInt(dst, int64(v), 10)
		}
	}
	return dst
}

// AppendLine appends e as one log line: "TIMELINE," then the CSV row and
// a newline.
func AppendLine(dst []byte, e Event) []byte {
	dst = append(dst, LinePrefix...)
	dst = append(dst, ',')
	dst = AppendRow(dst, e)
	return append(dst, '\n')
}

// String is e's CSV row.
func (e Event) String() string { return string(AppendRow(nil, e)) }

// WriteCSV writes the header and one row per event, in the given order.
func WriteCSV(w io.Writer, events []Event) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(CSVHeader + "\n")
	var row []byte
	for _, e := range events {
		row = AppendRow(row[:0], e)
		row = append(row, '\n')
		if _, err := bw.Write(row); err != nil {
			return fmt.Errorf("timeline: write csv: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("timeline: write csv: %w", err)
	}
	return nil
}

// ReadCSV reads events written by WriteCSV or by AppendLine (with or
// without the header, with or without the TIMELINE field; blank lines and
// lines starting with '#' are skipped). Any other content is an error that
// wraps ErrMalformed and names the line and the field. Callers reading from
// the network should bound r (io.LimitReader).
func ReadCSV(r io.Reader) ([]Event, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	cr.Comment = '#'
	var out []Event
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrMalformed, err) // a csv.ParseError names the line
		}
		line, _ := cr.FieldPos(0)
		if len(rec) > 0 && rec[0] == LinePrefix {
			rec = rec[1:]
		}
		if len(rec) > 0 && rec[0] == "at_ms" {
			if strings.Join(rec, ",") != CSVHeader {
				return nil, fmt.Errorf("%w: line %d: header %q, want %q", ErrMalformed, line, strings.Join(rec, ","), CSVHeader)
			}
			continue
		}
		e, err := parseRow(rec)
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %w", ErrMalformed, line, err)
		}
		out = append(out, e)
	}
}

func parseRow(rec []string) (Event, error) {
	if len(rec) != 6 {
		return Event{}, fmt.Errorf("%d fields, want 6 (%s)", len(rec), CSVHeader)
	}
	at, err := parseMillis(rec[0])
	if err != nil {
		return Event{}, fmt.Errorf("field at_ms: %w", err)
	}
	k, ok := ParseKind(rec[1])
	if !ok {
		return Event{}, fmt.Errorf("field event: unknown event %q", rec[1])
	}
	e := Event{At: at, Kind: k, Job: strings.Clone(rec[2])}
	for i, dst := range [...]*int{&e.Partition, &e.Worker, &e.Device} {
		name := [...]string{"partition", "worker", "device"}[i]
		if *dst, err = parseIndex(rec[3+i]); err != nil {
			return Event{}, fmt.Errorf("field %s: %w", name, err)
		}
	}
	return e, nil
}

// parseIndex reads a partition, worker or device: empty or -1 is unset.
func parseIndex(s string) (int, error) {
	if s == "" || s == "-1" {
		return -1, nil
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a non-negative integer", s)
	}
	return int(v), nil
}

const maxMillis = int64(1<<63-1) / int64(time.Millisecond)

// appendMillis writes d in milliseconds with exactly six decimals.
func appendMillis(dst []byte, d time.Duration) []byte {
	n := int64(d)
	if n < 0 {
		dst = append(dst, '-')
		if n == -1<<63 {
			n++ // lose one nanosecond rather than overflow
		}
		n = -n
	}
	dst = strconv.AppendInt(dst, n/int64(time.Millisecond), 10)
	dst = append(dst, '.')
	frac := n % int64(time.Millisecond)
	for div := int64(100000); div > 0; div /= 10 {
		dst = append(dst, byte('0'+frac/div%10))
	}
	return dst
}

// parseMillis reads a decimal number of milliseconds exactly; digits past
// the sixth decimal (below a nanosecond) are dropped.
func parseMillis(s string) (time.Duration, error) {
	orig := s
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	ip, fp, _ := strings.Cut(s, ".")
	if ip == "" && fp == "" {
		return 0, fmt.Errorf("%q is not a number of milliseconds", orig)
	}
	var ms int64
	for _, c := range []byte(ip) {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not a number of milliseconds", orig)
		}
		if ms > (maxMillis-int64(c-'0'))/10 {
			return 0, fmt.Errorf("%q ms is out of range", orig)
		}
		ms = ms*10 + int64(c-'0')
	}
	var ns int64
	for i, c := range []byte(fp) {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not a number of milliseconds", orig)
		}
		if i < 6 {
			ns = ns*10 + int64(c-'0')
		}
	}
	for i := len(fp); i < 6; i++ {
		ns *= 10
	}
	v := ms*int64(time.Millisecond) + ns
	if v < 0 {
		return 0, fmt.Errorf("%q ms is out of range", orig)
	}
	if neg {
		v = -v
	}
	return time.Duration(v), nil
}

// appendField writes s as one CSV field, quoted only when it has to be.
func appendField(dst []byte, s string) []byte {
	if !strings.ContainsAny(s, ",\"\r\n") && (s == "" || (s[0] != ' ' && s[0] != '\t' && s[0] != '#')) {
		return append(dst, s...)
	}
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			dst = append(dst, '"')
		}
		dst = append(dst, s[i])
	}
	return append(dst, '"')
}
