package cpu

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/device/internal/split"
)

// sorted is one query's scalars split by value (device/internal/split), in
// buffers from the device's pools: zeros are dropped, ones are a bitmap
// over the query's bases, the rest keep base index and scalar.
type sorted struct {
	ones    []uint32     // bit b of word b/32: scalar b is one
	tail    []uint32     // base indices of the other non-zero scalars, rising
	scalars []fr.Element // their scalars
}

// sort splits the scalars of spans into s, in buffers sized by the count
// (exactly: on a bit-heavy witness, room for every scalar would nearly
// double Prepare's memory).
func (d *Device) sort(s *sorted, spans []split.Span, tasks int) {
	d.sortEach([]*sorted{s}, [][]split.Span{spans}, tasks)
}

// sortEach is sort for several queries (ss[q] from queries[q]) in one walk
// over the values their spans share (split.CountEach): the L, A and B_G1
// queries all read the aux.
func (d *Device) sortEach(ss []*sorted, queries [][]split.Span, tasks int) {
	plans := split.CountEach(queries, tasks)
	outs := make([]split.Out, len(plans))
	for q, p := range plans {
		s := ss[q]
		s.ones = d.words.get(split.Words(p.Selected)) // Fill sets every word
		s.tail = d.u32.get(p.Tail)
		s.scalars = d.scalars.get(p.Tail)
		outs[q] = split.Out{Ones: s.ones, Scalars: s.scalars, Idx: s.tail}
	}
	split.FillEach(plans, outs, tasks)
}

// unsort gives s's buffers back to the pools.
func (d *Device) unsort(s *sorted) {
	d.words.put(s.ones)
	d.u32.put(s.tail)
	d.scalars.put(s.scalars)
	*s = sorted{}
}
