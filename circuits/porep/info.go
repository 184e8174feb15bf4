package porep

import "github.com/cuzk-project/cuzk/filecoin"

// ConfigFor is the partition shape of a registered seal proof. Interactive,
// synthetic and non-interactive proofs of one size share it (and so their
// parameters).
func ConfigFor(info filecoin.SealInfo) Config {
	return Config{
		Nodes:       info.Nodes,
		Layers:      info.Layers,
		TreeDLevels: info.TreeDLevels,
		TreeR:       info.TreeR,
		Challenges:  info.Challenges,
	}
}

// Blank is the partition of info's shape with zero values (see BlankConfig):
// what counting and parameter setup synthesize.
func Blank(info filecoin.SealInfo) *Partition { return BlankConfig(ConfigFor(info)) }
