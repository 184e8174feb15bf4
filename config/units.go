package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Size is a byte count written as an integer or with a unit: B, KB, MB,
// GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024); units
// are case-insensitive, a space before the unit and a fraction
// ("1.5GiB") are allowed.
type Size uint64

var sizeUnits = map[string]uint64{
	"": 1, "b": 1,
	"k": 1 << 10, "kb": 1e3, "kib": 1 << 10,
	"m": 1 << 20, "mb": 1e6, "mib": 1 << 20,
	"g": 1 << 30, "gb": 1e9, "gib": 1 << 30,
	"t": 1 << 40, "tb": 1e12, "tib": 1 << 40,
}

// ParseSize parses a Size. Bare K, M, G, T are binary (as in "ulimit").
func ParseSize(s string) (Size, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return 0, errors.New("empty size")
	}
	i := 0
	for i < len(in) && (in[i] >= '0' && in[i] <= '9' || in[i] == '.') {
		i++
	}
	num, unit := in[:i], strings.ToLower(strings.TrimSpace(in[i:]))
	mult, ok := sizeUnits[unit]
	if !ok {
		return 0, fmt.Errorf("size %q: unknown unit %q (want B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)", s, in[i:])
	}
	if num == "" {
		return 0, fmt.Errorf("size %q: no number", s)
	}
	if !strings.Contains(num, ".") {
		n, err := strconv.ParseUint(num, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("size %q: %w", s, err)
		}
		if n > math.MaxUint64/mult {
			return 0, fmt.Errorf("size %q overflows 64 bits", s)
		}
		return Size(n * mult), nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q: %w", s, err)
	}
	v := f * float64(mult)
	if v >= math.MaxUint64 {
		return 0, fmt.Errorf("size %q overflows 64 bits", s)
	}
	return Size(math.Round(v)), nil
}

// String writes the size with the largest binary unit that divides it.
func (s Size) String() string {
	for _, u := range []struct {
		name string
		v    uint64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if s != 0 && uint64(s)%u.v == 0 {
			return strconv.FormatUint(uint64(s)/u.v, 10) + u.name
		}
	}
	return strconv.FormatUint(uint64(s), 10) + "B"
}

// Human writes the size rounded to two decimals in binary units, for
// display ("44.50 GiB").
func (s Size) Human() string {
	v := float64(s)
	for _, u := range []string{"B", "KiB", "MiB", "GiB", "TiB"} {
		if v < 1024 || u == "TiB" {
			if u == "B" {
				return fmt.Sprintf("%d B", uint64(s))
			}
			return fmt.Sprintf("%.2f %s", v, u)
		}
		v /= 1024
	}
	return ""
}

func (s Size) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

func (s *Size) UnmarshalText(b []byte) error {
	v, err := ParseSize(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// UnmarshalTOML accepts a TOML integer (bytes) or a string.
func (s *Size) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case int64:
		if x < 0 {
			return fmt.Errorf("size %d is negative", x)
		}
		*s = Size(x)
		return nil
	case string:
		return s.UnmarshalText([]byte(x))
	}
	return fmt.Errorf("size: want an integer or a string like \"64GiB\", got %T", v)
}

// Duration is a time span written as a Go duration ("5m", "1h30m",
// "250ms") or a bare number of seconds ("300", or a TOML integer).
type Duration time.Duration

// ParseDuration parses a Duration. Negative spans are rejected.
func ParseDuration(s string) (Duration, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return 0, errors.New("empty duration")
	}
	if n, err := strconv.ParseUint(in, 10, 64); err == nil {
		if n > uint64(math.MaxInt64/int64(time.Second)) {
			return 0, fmt.Errorf("duration %q overflows", s)
		}
		return Duration(time.Duration(n) * time.Second), nil
	}
	d, err := time.ParseDuration(in)
	if err != nil {
		return 0, fmt.Errorf("duration %q: want e.g. \"30s\", \"5m\", \"1h\" or seconds", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("duration %q is negative", s)
	}
	return Duration(d), nil
}

// D is the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) String() string { return time.Duration(d).String() }

func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

func (d *Duration) UnmarshalText(b []byte) error {
	v, err := ParseDuration(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// UnmarshalTOML accepts a TOML integer (seconds) or a string.
func (d *Duration) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case int64:
		if x < 0 {
			return fmt.Errorf("duration %d is negative", x)
		}
		return d.UnmarshalText([]byte(strconv.FormatInt(x, 10)))
	case string:
		return d.UnmarshalText([]byte(x))
	}
	return fmt.Errorf("duration: want a string like \"5m\" or seconds, got %T", v)
}

// Budget is the memory budget: "auto" (MemTotal less Shmem and the safety margin)
// or an explicit Size.
type Budget struct {
	Auto  bool
	Bytes Size
}

// ParseBudget parses "auto" or a size.
func ParseBudget(s string) (Budget, error) {
	if strings.EqualFold(strings.TrimSpace(s), "auto") {
		return Budget{Auto: true}, nil
	}
	v, err := ParseSize(s)
	if err != nil {
		return Budget{}, fmt.Errorf("want \"auto\" or a size: %w", err)
	}
	return Budget{Bytes: v}, nil
}

func (b Budget) String() string {
	if b.Auto {
		return "auto"
	}
	return b.Bytes.String()
}

func (b Budget) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

func (b *Budget) UnmarshalText(t []byte) error {
	v, err := ParseBudget(string(t))
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// UnmarshalTOML accepts "auto", a size string or a TOML integer (bytes).
func (b *Budget) UnmarshalTOML(v any) error {
	if n, ok := v.(int64); ok {
		var s Size
		if err := s.UnmarshalTOML(n); err != nil {
			return err
		}
		*b = Budget{Bytes: s}
		return nil
	}
	if s, ok := v.(string); ok {
		return b.UnmarshalText([]byte(s))
	}
	return fmt.Errorf("total_budget: want \"auto\" or a size, got %T", v)
}
