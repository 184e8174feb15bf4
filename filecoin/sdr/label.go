package sdr

import (
	"encoding/binary"
	"fmt"

	"github.com/cuzk-project/cuzk/gadgets/label"
	"github.com/cuzk-project/cuzk/hash"
)

// TotalParents is the number of parent labels hashed into a label.
const TotalParents = label.TotalParents

// ExpandParents lays the parent labels of a node out as the label hash
// reads them (storage-proofs-porep graph.rs copy_parents_data*). Layer 1
// has no expander parents: the 6 DRG labels 6 times, then DRG label 0.
// Layers ≥ 2: the 14 labels (6 DRG of the current layer, 8 expander of the
// previous one) twice, then the first 9. exp is ignored on layer 1 and may
// be nil there.
func ExpandParents(layer int, drg *[DRGDegree][32]byte, exp *[ExpDegree][32]byte) [TotalParents][32]byte {
	var out [TotalParents][32]byte
	if layer <= 1 {
		for i := range out {
			out[i] = drg[i%DRGDegree]
		}
		return out
	}
	var all [Degree][32]byte
	copy(all[:DRGDegree], drg[:])
	copy(all[DRGDegree:], exp[:])
	for i := range out {
		out[i] = all[i%Degree]
	}
	return out
}

// Label is the SDR label of node in layer (1-based): SHA-256(replica_id ‖
// u32_be(layer) ‖ u64_be(node) ‖ 20 zero bytes ‖ the 37 parent labels) with
// the top two bits of byte 31 cleared. Node 0 has no parents: only the
// 64-byte prefix is hashed and parents is ignored (it may be nil); for any
// other node parents must not be nil.
func Label(replicaID [32]byte, layer uint32, node uint64, parents *[TotalParents][32]byte) [32]byte {
	if node == 0 {
		var prefix [64]byte
		copy(prefix[:], replicaID[:])
		binary.BigEndian.PutUint32(prefix[32:], layer)
		return [32]byte(hash.Sha254(prefix[:]))
	}
	l, err := label.Native(replicaID, layer, node, parents[:])
	if err != nil {
		panic(err) // unreachable: the array has exactly TotalParents labels
	}
	return l
}

// maxLabelBytes bounds Labels' memory.
const maxLabelBytes = 1 << 30

// Labels computes every label of every layer of a sector, labels[l−1][v]
// for layer l, as the sealer does. It is meant for small sectors (tests,
// generators): it refuses to hold more than 1 GiB of labels.
func Labels(g *Graph, replicaID [32]byte, layers int) ([][][32]byte, error) {
	if layers < 1 || uint64(layers)*g.nodes*32 > maxLabelBytes {
		return nil, fmt.Errorf("%w: %d layers of %d nodes is too many labels to hold", ErrBadGraph, layers, g.nodes)
	}
	out := make([][][32]byte, layers)
	var p [Degree]uint32
	var drg [DRGDegree][32]byte
	var exp [ExpDegree][32]byte
	for l := range out {
		cur := make([][32]byte, g.nodes)
		cur[0] = Label(replicaID, uint32(l+1), 0, nil)
		for v := uint64(1); v < g.nodes; v++ {
			g.Parents(uint32(v), &p)
			for i := range drg {
				drg[i] = cur[p[i]]
			}
			if l > 0 {
				for i := range exp {
					exp[i] = out[l-1][p[DRGDegree+i]]
				}
			}
			parents := ExpandParents(l+1, &drg, &exp)
			cur[v] = Label(replicaID, uint32(l+1), v, &parents)
		}
		out[l] = cur
	}
	return out, nil
}
