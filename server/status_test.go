package server

import (
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/engine"
)

// TestStatusWhere: /status names where each parameter set's points are.
func TestStatusWhere(t *testing.T) {
	snap := engine.Snapshot{SRS: []engine.SRSStatus{
		{CircuitID: "host"},
		{CircuitID: "devices", OnDevice: true},
		{CircuitID: "streamed", OnDevice: true, FromFile: true},
		{CircuitID: "cached", OnDevice: true, FromFile: true, HostCopy: 16 << 30},
	}}
	doc := statusDocument(snap, time.Unix(0, 0))
	want := map[string]string{"host": "host", "devices": "devices", "streamed": "devices+file", "cached": "devices+file"}
	if len(doc.SRS) != len(want) {
		t.Fatalf("%d sets in the document, want %d", len(doc.SRS), len(want))
	}
	for _, e := range doc.SRS {
		if e.Where != want[e.CircuitID] {
			t.Errorf("%s: where %q, want %q", e.CircuitID, e.Where, want[e.CircuitID])
		}
		if cached := e.CircuitID == "cached"; (e.HostCopy == 16<<30) != cached || (!cached && e.HostCopy != 0) {
			t.Errorf("%s: host copy %d bytes", e.CircuitID, e.HostCopy)
		}
	}
}
