package circuits

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/engine"
)

// MaxPartitions bounds a synthetic job (PoRep has 10, SnapDeals 16).
const MaxPartitions = 256

// MaxSyntheticConstraints bounds a synthetic partition: 2^24 rows, about a
// 32 GiB PoRep partition's domain (2^27) / 8, so that a request cannot
// start a development setup that runs for hours.
const MaxSyntheticConstraints = 1 << 24

// MaxSyntheticInputs bounds a synthetic circuit's public inputs (PoRep has
// 328 per partition): Plan computes them inside Submit, outside the memory
// budget, and the verifier's IC grows with them.
const MaxSyntheticInputs = 1 << 12

// checkLimits rejects a synthetic circuit larger than a request may ask
// for.
func checkLimits(c synthetic.Config) error {
	if c.Constraints > MaxSyntheticConstraints {
		return fmt.Errorf("constraints = %d exceeds %d", c.Constraints, MaxSyntheticConstraints)
	}
	if c.Inputs > MaxSyntheticInputs {
		return fmt.Errorf("inputs = %d exceeds %d", c.Inputs, MaxSyntheticInputs)
	}
	return nil
}

// SyntheticJob is the descriptor a request carries in its vanilla proof.
// Zero fractions and inputs take synthetic.Default's PoRep-like values.
type SyntheticJob struct {
	Constraints  int      `json:"constraints"`
	Partitions   int      `json:"partitions,omitempty"`
	Seed         uint64   `json:"seed,omitempty"`
	Inputs       *int     `json:"inputs,omitempty"`
	BoolFraction *float64 `json:"bool_fraction,omitempty"`
	ADensity     *float64 `json:"a_density,omitempty"`
	BDensity     *float64 `json:"b_density,omitempty"`
}

type descriptor struct {
	Synthetic *SyntheticJob `json:"synthetic"`
}

// Config is the synthetic circuit the job describes.
func (j SyntheticJob) Config() synthetic.Config {
	c := synthetic.Default(j.Constraints)
	c.Seed = j.Seed
	if j.Inputs != nil {
		c.Inputs = *j.Inputs
	}
	if j.BoolFraction != nil {
		c.BoolFraction = *j.BoolFraction
	}
	if j.ADensity != nil {
		c.ADensity = *j.ADensity
	}
	if j.BDensity != nil {
		c.BDensity = *j.BDensity
	}
	return c
}

// Descriptor encodes the job as a vanilla proof.
func (j SyntheticJob) Descriptor() []byte {
	b, _ := json.Marshal(descriptor{Synthetic: &j})
	return b
}

// SyntheticDescriptor builds the vanilla proof for n partitions of cfg.
func SyntheticDescriptor(cfg synthetic.Config, partitions int) []byte {
	in, bf, ad, bd := cfg.Inputs, cfg.BoolFraction, cfg.ADensity, cfg.BDensity
	return SyntheticJob{
		Constraints: cfg.Constraints, Partitions: partitions, Seed: cfg.Seed,
		Inputs: &in, BoolFraction: &bf, ADensity: &ad, BDensity: &bd,
	}.Descriptor()
}

// parseSynthetic recognises a synthetic descriptor. ok is false when b is
// not one (not a JSON object with a "synthetic" member); err describes a
// descriptor that is one but is malformed.
func parseSynthetic(b []byte) (job SyntheticJob, ok bool, err error) {
	t := bytes.TrimSpace(b)
	if len(t) == 0 || t[0] != '{' || !bytes.Contains(t, []byte(`"synthetic"`)) {
		return job, false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	dec.DisallowUnknownFields()
	var d descriptor
	if err := dec.Decode(&d); err != nil {
		return job, true, fmt.Errorf("%w: synthetic job descriptor: %w", engine.ErrInvalidRequest, err)
	}
	if dec.More() {
		return job, true, fmt.Errorf("%w: synthetic job descriptor: trailing data", engine.ErrInvalidRequest)
	}
	if d.Synthetic == nil {
		return job, true, fmt.Errorf("%w: synthetic job descriptor: \"synthetic\" is null", engine.ErrInvalidRequest)
	}
	job = *d.Synthetic
	if job.Partitions == 0 {
		job.Partitions = 1
	}
	if job.Partitions < 0 || job.Partitions > MaxPartitions {
		return job, true, fmt.Errorf("%w: synthetic job descriptor: partitions = %d, want 1..%d",
			engine.ErrInvalidRequest, job.Partitions, MaxPartitions)
	}
	if err := job.Config().Validate(); err != nil {
		return job, true, fmt.Errorf("%w: synthetic job descriptor: %w", engine.ErrInvalidRequest, err)
	}
	if err := checkLimits(job.Config()); err != nil {
		return job, true, fmt.Errorf("%w: synthetic job descriptor: %w", engine.ErrInvalidRequest, err)
	}
	return job, true, nil
}

const syntheticPrefix = "synthetic-"

// SyntheticID is the circuit id of cfg: every field that changes the
// constraint system (and so the parameters) is in it, e.g.
// "synthetic-c16384-i7-bf0.75-ad0.997-bd0.25-s1".
func SyntheticID(cfg synthetic.Config) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return fmt.Sprintf("%sc%d-i%d-bf%s-ad%s-bd%s-s%d", syntheticPrefix,
		cfg.Constraints, cfg.Inputs, f(cfg.BoolFraction), f(cfg.ADensity), f(cfg.BDensity), cfg.Seed)
}

// ParseSyntheticID inverts SyntheticID. An id of another family returns
// an error wrapping engine.ErrUnknownCircuit.
func ParseSyntheticID(id string) (synthetic.Config, error) {
	var c synthetic.Config
	rest, ok := strings.CutPrefix(id, syntheticPrefix)
	if !ok {
		return c, fmt.Errorf("%w: %q", engine.ErrUnknownCircuit, id)
	}
	parts := strings.Split(rest, "-")
	bad := func(why string) error {
		return fmt.Errorf("%w: %q: %s", engine.ErrUnknownCircuit, id, why)
	}
	if len(parts) != 6 {
		return c, bad("want 6 fields c, i, bf, ad, bd, s")
	}
	fields := []struct {
		prefix string
		set    func(string) error
	}{
		{"c", func(s string) (err error) { c.Constraints, err = strconv.Atoi(s); return }},
		{"i", func(s string) (err error) { c.Inputs, err = strconv.Atoi(s); return }},
		{"bf", func(s string) (err error) { c.BoolFraction, err = strconv.ParseFloat(s, 64); return }},
		{"ad", func(s string) (err error) { c.ADensity, err = strconv.ParseFloat(s, 64); return }},
		{"bd", func(s string) (err error) { c.BDensity, err = strconv.ParseFloat(s, 64); return }},
		{"s", func(s string) (err error) { c.Seed, err = strconv.ParseUint(s, 10, 64); return }},
	}
	for i, f := range fields {
		v, ok := strings.CutPrefix(parts[i], f.prefix)
		if !ok {
			return c, bad(fmt.Sprintf("field %d should start with %q", i+1, f.prefix))
		}
		if err := f.set(v); err != nil {
			return c, bad(fmt.Sprintf("field %q: %v", f.prefix, err))
		}
	}
	if err := c.Validate(); err != nil {
		return c, bad(err.Error())
	}
	if SyntheticID(c) != id {
		return c, bad("not in canonical form")
	}
	return c, nil
}
