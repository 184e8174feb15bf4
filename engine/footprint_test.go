package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
)

// countingDevice is a sim device that reports its host workspace and
// counts how often it is asked for it.
type countingDevice struct {
	*sim.Device
	mu    sync.Mutex
	asked int
}

func (d *countingDevice) Profile() groth16.Profile {
	p := d.Device.Profile()
	p.HostWorkspace = func(rows, _ int) uint64 {
		d.mu.Lock()
		d.asked++
		d.mu.Unlock()
		return uint64(rows)
	}
	return p
}

// TestSubmitAdmission: Submit refuses, with what is wrong, a circuit whose
// parameters cannot be had (Config.ParamsAvailable) and a plan a partition
// of which fits in the budget alone but not beside its parameters
// (Config.ParamsBytes); a partition that fits beside them is accepted.
func TestSubmitAdmission(t *testing.T) {
	missing := errors.New("no parameter file")
	params := map[string]uint64{"test": 5 * testReserve, "big": 9*testReserve + 1}
	env := newTestEnv(t, sim.Config{}, func(c *Config) {
		c.ParamsAvailable = func(id string) error {
			if id == "gone" {
				return missing
			}
			return nil
		}
		c.ParamsBytes = func(id string) uint64 { return params[id] }
	})
	for _, tc := range []struct {
		circuit string
		want    error
		says    string
	}{
		{"test", nil, ""},
		{"gone", missing, "no parameter file"},
		{"big", ErrNoMemory, "beside its parameters"},
	} {
		b, _ := json.Marshal(testJob{Tag: 1, Parts: 1, Circuit: tc.circuit})
		_, _, err := env.e.Submit(context.Background(), Request{RequestID: "job-" + tc.circuit, Kind: KindPoRepSealCommit, VanillaProof: b})
		if !errors.Is(err, tc.want) || tc.want != nil && !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want %v saying %q", tc.circuit, err, tc.want, tc.says)
		}
	}
	if r := env.await(t, "job-test"); r.Status != StatusCompleted {
		t.Fatalf("the job that fits: %v %s", r.Status, r.Error)
	}
}

// TestDeviceReservesOnce: Submit asks the devices for a partition's
// workspace once per device (DeviceReserves applied in one place).
func TestDeviceReservesOnce(t *testing.T) {
	dev := &countingDevice{Device: sim.New(sim.Config{})}
	env := newTestEnv(t, sim.Config{}, func(c *Config) {
		c.Devices = []groth16.Device{dev}
		c.ParamsBytes = func(string) uint64 { return 0 }
	})
	p := &Plan{CircuitID: "test", Partitions: []Partition{{Footprint: Footprint{Reserve: 100, ReserveWork: 10, Rows: 4}}}}
	if err := env.e.admissible(p); err != nil {
		t.Fatal(err)
	}
	if dev.asked != 1 || p.Partitions[0].ReserveWork != 4 || p.Partitions[0].Reserve != 94 {
		t.Fatalf("asked %d times; reserve %d work %d, want once, 94 and 4", dev.asked, p.Partitions[0].Reserve, p.Partitions[0].ReserveWork)
	}
}
