package update

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/internal/tree"
)

// BlankConfig is the partition 0 of shape c with h = c.DefaultH() and every
// other value zero (the reference's blank circuit: its constraints do not
// hold, but its rows and variables are the real circuit's). An invalid c
// gives a partition whose Synthesize returns the configuration's error.
//
// Zero siblings are shared between paths: a blank partition is cheap and
// must not be modified.
func BlankConfig(c Config) *Partition {
	p := &Partition{Config: c, H: c.DefaultH()}
	if c.Validate() != nil {
		return p
	}
	p.ApexLeaves = make([]fr.Element, c.ApexLeaves())
	p.PartitionPath = make([]fr.Element, c.partitionBits())
	pathR := tree.BlankSiblings(tree.Arities(c.TreeR, c.Nodes))
	pathD := make([]fr.Element, c.levelsToApex())
	p.Challenges = make([]Challenge, c.Challenges())
	for i := range p.Challenges {
		p.Challenges[i] = Challenge{PathROld: pathR, PathRNew: pathR, PathDNew: pathD}
	}
	return p
}
