package sdr

import (
	"testing"

	"github.com/cuzk-project/cuzk/filecoin"
)

// Parents of scattered nodes of the 32 GiB graph, as callers ask for them
// (no cache); reported in parent sets (14 parents each) per second.
func BenchmarkParents32GiB(b *testing.B) {
	g := mustGraph(b, filecoin.StackedDrg32GiBV1_1)
	var out [Degree]uint32
	g.Parents(1, &out) // builds the expander table outside the timing
	b.ResetTimer()
	v := uint32(12345)
	for i := 0; i < b.N; i++ {
		g.Parents(v, &out)
		v = (v*2654435761 + 1) & (1<<30 - 1)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "parents/s")
}

func BenchmarkDRGParents32GiB(b *testing.B) {
	g := mustGraph(b, filecoin.StackedDrg32GiBV1_1)
	var out [DRGDegree]uint32
	v := uint32(12345)
	for i := 0; i < b.N; i++ {
		g.DRGParents(v, &out)
		v = (v*2654435761 + 1) & (1<<30 - 1)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "nodes/s")
}

func BenchmarkExpanderParents32GiB(b *testing.B) {
	g := mustGraph(b, filecoin.StackedDrg32GiBV1_1)
	var out [ExpDegree]uint32
	g.ExpanderParents(1, &out)
	b.ResetTimer()
	v := uint32(12345)
	for i := 0; i < b.N; i++ {
		g.ExpanderParents(v, &out)
		v = (v*2654435761 + 1) & (1<<30 - 1)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "nodes/s")
}

// The one-time cost of the expander's round-function table (3·2^17 Blake2b).
func BenchmarkExpanderTable32GiB(b *testing.B) {
	info, _ := filecoin.StackedDrg32GiBV1_1.Info()
	for i := 0; i < b.N; i++ {
		g, _ := NewGraph(filecoin.PoRepID(info.Proof), info.Nodes, info.API)
		g.exp.buildTable()
	}
}

func BenchmarkLabel(b *testing.B) {
	var parents [TotalParents][32]byte
	var rid [32]byte
	for i := 0; i < b.N; i++ {
		Label(rid, 2, 1000, &parents)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "labels/s")
}
