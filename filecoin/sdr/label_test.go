package sdr

import (
	"encoding/binary"
	"testing"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/hash"
)

func TestExpandParents(t *testing.T) {
	var drg [DRGDegree][32]byte
	var exp [ExpDegree][32]byte
	for i := range drg {
		drg[i][0] = byte(1 + i)
	}
	for i := range exp {
		exp[i][0] = byte(101 + i)
	}
	id := func(ps [TotalParents][32]byte) []byte {
		b := make([]byte, len(ps))
		for i, p := range ps {
			b[i] = p[0]
		}
		return b
	}
	l1 := id(ExpandParents(1, &drg, nil))
	want1 := []byte{1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1}
	if string(l1) != string(want1) {
		t.Errorf("layer 1: %v", l1)
	}
	l2 := id(ExpandParents(2, &drg, &exp))
	row := []byte{1, 2, 3, 4, 5, 6, 101, 102, 103, 104, 105, 106, 107, 108}
	want2 := append(append(append([]byte{}, row...), row...), row[:9]...)
	if string(l2) != string(want2) {
		t.Errorf("layer 2: %v", l2)
	}
}

func TestLabelNodeZero(t *testing.T) {
	var rid [32]byte
	rid[0] = 7
	var prefix [64]byte
	copy(prefix[:], rid[:])
	binary.BigEndian.PutUint32(prefix[32:], 3)
	if got, want := Label(rid, 3, 0, nil), [32]byte(hash.Sha254(prefix[:])); got != want {
		t.Errorf("node 0: %x, want %x", got, want)
	}
}

// storage-proofs-porep tests/stacked_vanilla.rs test_stacked_porep_generate_labels:
// the last-layer label of node n−1 after 11 layers, replica_id [9; 32], as
// Fr::from_u64s_le limbs (the label's little-endian bytes).
func TestLabelsKnownAnswers(t *testing.T) {
	tests := []struct {
		nodes   uint64
		porepID byte
		api     filecoin.APIVersion
		limbs   [4]uint64
	}{
		{64, 0, filecoin.APIV1_0, [4]uint64{0xd3faa96b9a0fba04, 0xea81a283d106485e, 0xe3d51b9afa5ac2b3, 0x0462f4f4f1a68d37}},
		{128, 0, filecoin.APIV1_0, [4]uint64{0x7e191e52c4a8da86, 0x5ae8a1c9e6fac148, 0xce239f3b88a894b8, 0x234c00d1dc1d53be}},
		{64, 123, filecoin.APIV1_1, [4]uint64{0xabb3f38bb70defcf, 0x777a2e4d7769119f, 0x3448959d495490bc, 0x06021188c7a71cb5}},
		{128, 123, filecoin.APIV1_1, [4]uint64{0x22ab81cf68c4676d, 0x7a77a82fc7c9c189, 0xc6c03d32c1e42d23, 0x0f777c18cc2c55bd}},
		{64, 123, filecoin.APIV1_2, [4]uint64{0xabb3f38bb70defcf, 0x777a2e4d7769119f, 0x3448959d495490bc, 0x06021188c7a71cb5}},
		{128, 123, filecoin.APIV1_2, [4]uint64{0x22ab81cf68c4676d, 0x7a77a82fc7c9c189, 0xc6c03d32c1e42d23, 0x0f777c18cc2c55bd}},
	}
	var rid [32]byte
	for i := range rid {
		rid[i] = 9
	}
	for _, tc := range tests {
		var porepID [32]byte
		for i := range porepID {
			porepID[i] = tc.porepID
		}
		g, err := NewGraph(porepID, tc.nodes, tc.api)
		if err != nil {
			t.Fatal(err)
		}
		labels, err := Labels(g, rid, 11)
		if err != nil {
			t.Fatal(err)
		}
		var want [32]byte
		for i, l := range tc.limbs {
			binary.LittleEndian.PutUint64(want[8*i:], l)
		}
		if got := labels[10][tc.nodes-1]; got != want {
			t.Errorf("nodes %d porep_id [%d;32] API %v: last label %x, want %x", tc.nodes, tc.porepID, tc.api, got, want)
		}
	}
}

func TestLabelsRejects(t *testing.T) {
	g := mustGraph(t, filecoin.StackedDrg32GiBV1_1)
	if _, err := Labels(g, [32]byte{}, 1); err == nil {
		t.Error("32 GiB labels accepted")
	}
	g = mustGraph(t, filecoin.StackedDrg2KiBV1_1)
	if _, err := Labels(g, [32]byte{}, 0); err == nil {
		t.Error("0 layers accepted")
	}
}
