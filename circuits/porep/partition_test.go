package porep

import (
	"context"
	"errors"
	"testing"

	hmerkle "github.com/cuzk-project/cuzk/hash/merkle"
	"github.com/cuzk-project/cuzk/r1cs"
)

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := BlankConfig(config32GiB)
	p.Ctx = ctx
	var c r1cs.Counter
	err := r1cs.Synthesize(&c, p)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// Only the partition's own rows (571) were written before the check.
	if c.Constraints != 571 {
		t.Errorf("%d rows before the first challenge, want 571", c.Constraints)
	}
}

// TestBadShape checks that a partition of the wrong shape is rejected before
// anything is allocated.
func TestBadShape(t *testing.T) {
	bad := func(f func(c *Config)) Config { c := config2KiB; f(&c); return c }
	blank := func(f func(p *Partition)) *Partition { p := BlankConfig(config2KiB); f(p); return p }
	tests := []struct {
		name string
		p    *Partition
	}{
		{"nodes not a power of two", BlankConfig(bad(func(c *Config) { c.Nodes = 65 }))},
		{"tree D levels", BlankConfig(bad(func(c *Config) { c.TreeDLevels = 5 }))},
		{"tree R does not fit", BlankConfig(bad(func(c *Config) { c.TreeR = hmerkle.Shape{Base: 8, Sub: 16} }))},
		{"no column hash for 3 layers", BlankConfig(bad(func(c *Config) { c.Layers = 3 }))},
		{"no challenges", BlankConfig(bad(func(c *Config) { c.Challenges = 0 }))},
		{"missing challenge", blank(func(p *Partition) { p.Challenges = p.Challenges[:1] })},
		{"node out of range", blank(func(p *Partition) { p.Challenges[1].Node = 64 })},
		{"column rows", blank(func(p *Partition) { p.Challenges[0].Exp[5].Rows = nil })},
		{"comm_c path levels", blank(func(p *Partition) { p.Challenges[1].CommCPath = p.Challenges[1].CommCPath[1:] })},
		{"comm_r_last arity", blank(func(p *Partition) {
			p.Challenges[0].CommRLastPath = p.Challenges[0].CommDPath[:2]
		})},
		{"index out of range", blank(func(p *Partition) {
			path := append(p.Challenges[0].CommDPath[:0:0], p.Challenges[0].CommDPath...)
			path[3].Index = 2
			p.Challenges[0].CommDPath = path
		})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c r1cs.Counter
			err := r1cs.Synthesize(&c, tc.p)
			if !errors.Is(err, ErrShape) {
				t.Fatalf("err = %v, want ErrShape", err)
			}
			if c.Aux != 0 || c.Inputs != 1 || c.Constraints != 0 {
				t.Errorf("%d aux, %d inputs, %d rows allocated before the error", c.Aux, c.Inputs, c.Constraints)
			}
		})
	}
}
