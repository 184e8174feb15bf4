package post

import "github.com/cuzk-project/cuzk/circuits/internal/tree"

// BlankConfig is the partition of shape c with every value zero and every
// path index 0 (the reference's blank circuit: its constraints do not hold,
// but its rows and variables are the real circuit's). It has one sector,
// which synthesis repeats Config.Sectors times. An invalid c gives a
// partition whose Synthesize returns the configuration's error.
//
// The zero siblings are shared by every path: a blank partition is cheap
// and must not be modified.
func BlankConfig(c Config) *Partition {
	p := &Partition{Config: c}
	if c.Validate() != nil {
		return p
	}
	path := tree.BlankPath(tree.Arities(c.TreeR, c.Nodes))
	s := Sector{Challenges: make([]Challenge, c.Challenges)}
	for j := range s.Challenges {
		s.Challenges[j].Path = path
	}
	p.Sectors = []Sector{s}
	return p
}
