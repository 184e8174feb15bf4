package cuda

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/timeline"
)

// TestProfileComplete: the device's profile sets every ability the engine
// reads of it (no GPU needed: the profile is made of the device's methods
// and its reports read only host state), and its reports carry what each
// Prepared and Partial holds: the staging's bytes, the Prepare's phases,
// the kernels' interval and phases, the staging to keep.
func TestProfileComplete(t *testing.T) {
	var d Device // MemoryLimit 0: the witness run where the plan allows
	p := d.Profile()
	switch {
	case p.HostWorkspace == nil, p.EvaluatesWitness == nil, !p.EvaluatesIntoWorkspace,
		p.KeptBytes == nil, p.EvictKept == nil, p.Discard == nil, p.Prepared == nil, p.Ran == nil:
		t.Fatalf("profile lacks an ability: %+v", p)
	}
	if got, want := p.HostWorkspace(1000, 10), d.HostWorkspace(1000, 10); got != want || got == 0 {
		t.Errorf("HostWorkspace %d, want the device's %d", got, want)
	}
	if !p.EvaluatesWitness(0, 0) {
		t.Error("no witness run of unknown size without a memory limit")
	}
	d.MemoryLimit = 1 << 30
	if p.EvaluatesWitness(0, 0) {
		t.Error("a witness run under an explicit memory limit")
	}
	if p.KeptBytes() != 0 || p.EvictKept() != 0 {
		t.Error("kept stagings on a device that kept none")
	}

	phases := []timeline.Phase{{Name: "alloc", D: time.Millisecond}}
	w := &prepared{ab: pinned{n: 640}, phases: phases}
	w.st[0].bits, w.st[1].scal, w.st[2].idx = pinned{n: 4}, pinned{n: 32}, pinned{n: 8}
	if r := p.OfPrepare(w); !r.Staged || r.StagedBytes != 640+4+32+8 || !slices.Equal(r.Phases, phases) {
		t.Errorf("classic Prepared: %+v", r)
	}
	if r := p.OfPrepare(&witnessPrepared{held: 777}); !r.Staged || r.StagedBytes != 777 {
		t.Errorf("witness Prepared: %+v", r)
	}
	if r := p.OfPrepare("not this device's"); r.Staged || r.StagedBytes != 0 {
		t.Errorf("another device's Prepared: %+v", r)
	}

	end := time.Now()
	part := &Partial{w: w, start: end.Add(-time.Second), end: end, Timing: Timing{Total: time.Second, NTT: time.Millisecond}}
	r := p.OfRun(part)
	if !r.KernelStart.Equal(part.start) || !r.KernelEnd.Equal(end) || r.StagingBytes != w.StagedBytes() || r.KeepStaging == nil {
		t.Errorf("classic Partial: %+v", r)
	}
	if want := []timeline.Phase{{Name: "total", D: time.Second}, {Name: "ntt", D: time.Millisecond}}; !slices.Equal(r.Phases, want) {
		t.Errorf("kernel phases %v, want %v", r.Phases, want)
	}
	if r := p.OfRun(&Partial{wp: &witnessPrepared{}, end: end}); r.StagingBytes != 0 || !r.KernelEnd.Equal(end) { // its staging already taken
		t.Errorf("witness Partial: %+v", r)
	}
	if r := p.OfRun(groth16.Partial(nil)); r.StagingBytes != 0 || r.KeepStaging != nil {
		t.Errorf("no Partial: %+v", r)
	}
}

// TestHostTimes: a Run's host times become its HostPre, GPUWait (the call
// beyond HostPre and the events' Total to its last synchronization) and
// HostEnd (the call after it), and phases of those names where they are
// not zero.
func TestHostTimes(t *testing.T) {
	for _, tc := range []struct {
		name           string
		res            cResult
		total          time.Duration
		pre, wait, end time.Duration
		phases         []string
	}{
		{"run late on the GPU", cResult{HostPre: 2, Host: 1330, HostSynced: 1329}, 126 * time.Millisecond,
			2 * time.Millisecond, 1201 * time.Millisecond, time.Millisecond, []string{"total", "host_pre", "gpu_wait", "host_end"}},
		{"late after its synchronization", cResult{HostPre: 2, Host: 1330, HostSynced: 128}, 126 * time.Millisecond,
			2 * time.Millisecond, 0, 1202 * time.Millisecond, []string{"total", "host_pre", "host_end"}},
		{"a library without HostSynced", cResult{HostPre: 2, Host: 1330}, 126 * time.Millisecond,
			2 * time.Millisecond, 1202 * time.Millisecond, 0, []string{"total", "host_pre", "gpu_wait"}},
		{"no wait", cResult{HostPre: 1, Host: 50, HostSynced: 50}, 60 * time.Millisecond,
			time.Millisecond, 0, 0, []string{"total", "host_pre"}},
		{"streamed from the file", cResult{HostPre: 1, Host: 3315, HostSynced: 3315}, 3314 * time.Millisecond,
			time.Millisecond, 0, 0, []string{"total", "host_pre", "stream_read", "stream_copy", "stream_stall"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Partial{Timing: Timing{Total: tc.total}}
			if strings.HasPrefix(tc.name, "streamed") {
				p.Stream = StreamStats{Bytes: 30 << 30, Chunks: 40, CopyMS: 2100, StallMS: 900, ReadMS: 2800}
			}
			p.Timing.hostTimes(&tc.res)
			if p.Timing.HostPre != tc.pre || p.Timing.GPUWait != tc.wait || p.Timing.HostEnd != tc.end {
				t.Fatalf("HostPre %v GPUWait %v HostEnd %v, want %v %v %v", p.Timing.HostPre, p.Timing.GPUWait,
					p.Timing.HostEnd, tc.pre, tc.wait, tc.end)
			}
			var names []string
			for _, ph := range p.KernelPhases() {
				names = append(names, ph.Name)
			}
			if !slices.Equal(names, tc.phases) {
				t.Fatalf("phases %v, want %v", names, tc.phases)
			}
		})
	}
}
