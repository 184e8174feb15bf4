package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/cuzk-project/cuzk/device/sim"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
)

// claimingDevice is a keepingDevice whose kept stagings may be claimed
// (groth16.Profile.ClaimKept) as the CUDA device's pool does: a claimed
// staging has no share (its claimer's reservation counts it), the next
// Prepare takes a claimed one first, and a claim's end lets go of a
// claimed staging no open claim is left for.
type claimingDevice struct {
	*keepingDevice
	claimed, claims int // stagings claimed and not taken; claims not ended
	made, back      int // claims handed; claims whose share came back
	letGo           int // claimed stagings let go
}

func newClaimingDevice(c sim.Config) *claimingDevice {
	return &claimingDevice{keepingDevice: &keepingDevice{Device: sim.New(c)}}
}

func (d *claimingDevice) Profile() groth16.Profile {
	p := d.keepingDevice.Profile()
	p.ClaimKept = d.claimKept
	return p
}

func (d *claimingDevice) claimKept(rows, vars int) *groth16.Claim {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := len(d.kept)
	if n == 0 {
		return nil
	}
	share := d.kept[n-1]
	d.kept = d.kept[:n-1]
	d.claimed++
	d.claims++
	d.made++
	done := false
	return &groth16.Claim{Share: share, Done: func(back bool) {
		d.mu.Lock()
		defer d.mu.Unlock()
		if done {
			panic("a claim ended twice")
		}
		done = true
		d.claims--
		if back {
			d.back++
		}
		if d.claimed <= d.claims {
			share.Close() // (back: a Prepare took its staging and counts it)
			return
		}
		d.claimed--
		if back {
			d.kept = append(d.kept, share)
			return
		}
		d.letGo++
	}}
}

func (d *claimingDevice) Prepare(ctx context.Context, a *groth16.Assignment, p *groth16.Params) (groth16.Prepared, error) {
	d.mu.Lock()
	if d.claimed > 0 {
		d.claimed-- // counted by its claimer's reservation, or this unit's
		d.reused++
		d.mu.Unlock()
		return d.Device.Prepare(ctx, a, p)
	}
	d.mu.Unlock()
	return d.keepingDevice.Prepare(ctx, a, p)
}

// TestKeptStagingClaimed: where a unit fits the budget only without the
// staging a device keeps for it, with nothing in flight, the unit claims
// the staging (its reservation joins the staging's share and reserves the
// rest) and its Prepare takes it, instead of the engine evicting it (the
// rest fits wherever the unit would fit after the eviction). Every claim
// ends once, the budget holds the kept staging's share alone at the end,
// and no claimed staging is left without a claim.
func TestKeptStagingClaimed(t *testing.T) {
	const reserve = 1000 // testPlanner: half of it a, b, c
	for _, tc := range []struct {
		name                 string
		budget               uint64
		wantClaims, wantBack int
		wantReused           int
		wantEvicted          uint64
	}{
		{"room for both: no claim", 10 * reserve, 0, 0, 1, 0},
		{"room for the unit alone: claimed", reserve + stagingBytes - 1, 1, 0, 1, 0},
		{"room for the rest only: claimed", reserve, 1, 0, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dev := newClaimingDevice(sim.Config{})
			env := newTestEnv(t, sim.Config{}, func(c *Config) {
				c.Devices = []groth16.Device{dev}
				c.Budget = memory.New(tc.budget)
				c.WorkersPerDevice = 1
			})
			for i, id := range []string{"first", "second"} {
				jid := env.submit(t, id, KindPoRepSealCommit, PriorityNormal, testJob{Tag: uint64(7 + i), Parts: 1, Reserve: reserve})
				if r := env.await(t, jid); r.Status != StatusCompleted {
					t.Fatalf("%s: job %v: %s", id, r.Status, r.Error)
				}
				waitFor(t, "the unit to retire, its staging kept", func() bool {
					return env.e.inflight.Load() == 0 && env.budget.Used() == dev.keptBytes()
				})
			}
			dev.mu.Lock()
			made, back, claimed, claims, letGo := dev.made, dev.back, dev.claimed, dev.claims, dev.letGo
			dev.mu.Unlock()
			kept, reused, evicted := dev.counts()
			if made != tc.wantClaims || back != tc.wantBack || reused != tc.wantReused || evicted != tc.wantEvicted {
				t.Errorf("claims %d (back %d), reused %d, evicted %d bytes; want %d (%d), %d, %d", made, back, reused, evicted,
					tc.wantClaims, tc.wantBack, tc.wantReused, tc.wantEvicted)
			}
			if got := env.e.Status().Claims; got != (ClaimCounts{Kept: uint64(tc.wantClaims - tc.wantBack)}) {
				t.Errorf("Status().Claims %+v, want %d kept", got, tc.wantClaims-tc.wantBack)
			}
			if claimed != 0 || claims != 0 || letGo != 0 || kept != 1 {
				t.Errorf("at the end: %d claimed stagings, %d open claims, %d let go, %d kept; want 0, 0, 0, 1", claimed, claims, letGo, kept)
			}
			if env.budget.Used() != stagingBytes {
				t.Errorf("the budget holds %d bytes, want the kept staging's %d", env.budget.Used(), stagingBytes)
			}
		})
	}
}

// TestKeptStagingClaimedConcurrent: TestKeptStagingConcurrent's jobs on a
// device whose kept stagings may be claimed, under budgets that hold one
// or two units beside them (run with -race): every job completes, every
// claim ends, and at the end the budget holds the kept stagings' shares
// alone; under a budget of one unit nothing is evicted and every Prepare
// but the first takes the staging the last one kept.
func TestKeptStagingClaimedConcurrent(t *testing.T) {
	const reserve = 1000
	for _, budget := range []uint64{reserve, reserve + stagingBytes, 2*reserve + stagingBytes} {
		t.Run(fmt.Sprintf("budget%d", budget), func(t *testing.T) {
			dev := newClaimingDevice(sim.Config{})
			env := proveKeptJobs(t, dev, budget, reserve)
			waitFor(t, "the units' reservations to end", func() bool {
				return env.e.inflight.Load() == 0 && env.budget.Used() == dev.keptBytes()
			})
			dev.mu.Lock()
			defer dev.mu.Unlock()
			if dev.claims != 0 {
				t.Errorf("%d claims never ended", dev.claims)
			}
			if budget == reserve && (dev.reused != 23 || dev.evicted != 0) {
				// one unit at a time: each after the first finds the staging the last kept
				t.Errorf("budget of one unit: %d Prepares reused a staging, %d bytes evicted; want 23 and none", dev.reused, dev.evicted)
			}
			t.Logf("24 partitions: %d claims (%d given back, %d claimed stagings let go), %d Prepares reused a staging, peak %d of %d",
				dev.made, dev.back, dev.letGo, dev.reused, env.budget.Peak(), budget)
		})
	}
}
