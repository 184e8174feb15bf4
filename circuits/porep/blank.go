package porep

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/internal/tree"
)

// BlankConfig is the partition of shape c with every value zero and every
// path index 0 (bellperson's blank circuit: its constraints do not hold, but
// its rows and variables are the real circuit's). An invalid c gives a
// partition whose Synthesize returns the configuration's error.
//
// Zero rows and siblings are shared between paths and columns: a blank
// partition is cheap and must not be modified.
func BlankConfig(c Config) *Partition {
	p := &Partition{Config: c}
	if c.Validate() != nil {
		return p
	}
	rows := make([]fr.Element, c.Layers)
	d := tree.BlankPath(tree.Binary(c.TreeDLevels))
	r := tree.BlankPath(tree.Arities(c.TreeR, c.Nodes))
	p.Challenges = make([]Challenge, c.Challenges)
	for i := range p.Challenges {
		ch := &p.Challenges[i]
		ch.CommDPath = d
		for j := range ch.DRG {
			ch.DRG[j] = Column{Rows: rows, Path: r}
		}
		for j := range ch.Exp {
			ch.Exp[j] = Column{Rows: rows, Path: r}
		}
		ch.CommRLastPath = r
		ch.CommCPath = r
	}
	return p
}
