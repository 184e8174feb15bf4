package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	pb "google.golang.org/protobuf/proto"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/client"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/post"
	"github.com/cuzk-project/cuzk/filecoin/update"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
	"github.com/cuzk-project/cuzk/server"
)

// dayOptions are the flags of `cuzk bench day`; the daemon's address,
// credentials and --timeline-url are the shared bench flags.
type dayOptions struct {
	porep, snap, wpost, winning string // request files
	synthetic                   string // --bulk-synthetic ROWSxPARTITIONS
	porepJobs, snapJobs         int
	syntheticJobs               int

	duration           time.Duration
	deadlinePartitions int
	deadlineAt         time.Duration // <0: a third of duration
	deadlineWindow     time.Duration
	deadlineEvery      time.Duration
	winningEvery       time.Duration
	winningDeadline    time.Duration
	solo               time.Duration
	jsonOut            string
}

// errDayRequest is a request file that cannot serve its flag.
var errDayRequest = errors.New("bad request file")

// errDayFaults is a day that ran to its end with failed proofs, missed
// WindowPoSt deadlines or late WinningPoSts.
var errDayFaults = errors.New("the day had faults")

const benchDayLong = `bench day replays a storage provider's day on one daemon, compressed: PoRep C2 and
SnapDeals proofs keep it busy (--porep-jobs and --snap-jobs of each in flight for --duration),
a WindowPoSt deadline of --deadline-partitions partitions opens at --deadline-at (again every
--deadline-every) and must be proved within --deadline-window, and a WinningPoSt every
--winning-every must be proved within --winning-deadline.

The requests are files made by cuzk gen-vanilla (porep, snap, window-post --partition, winning-post
--out req.json); each flag takes its own kind, and any may be left out. Every submission is a copy
under its own request id. --bulk-synthetic ROWSxPARTITIONS adds a synthetic bulk load for a
daemon started with --dev.

It reports per kind the proofs proved and failed, latency p50/p99/max and throughput (proofs and
partitions per minute), each deadline met or missed with its margin, and the WinningPoSts over
the threshold; with --solo each bulk kind first runs alone for that long, and the day's bulk
throughput is compared with it; with --timeline-url the day's kernel utilization, lock waits per
kind and the device's idle time between kinds. It exits non-zero when the day had faults.

  cuzk bench day --addr unix:///run/cuzk.sock --porep porep-req.json --snap snap-req.json \
      --wpost wpost-req.json --winning winning-req.json --duration 30m --deadline-partitions 4 \
      --timeline-url 127.0.0.1:9821 --json day.json`

func newBenchDayCmd(o *benchOptions) *cobra.Command {
	d := &dayOptions{}
	cmd := &cobra.Command{
		Use:   "day",
		Short: "A Curio node's day, compressed: bulk PoRep/SnapDeals with WindowPoSt deadlines and WinningPoSt against a daemon",
		Long:  benchDayLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("deadline-at") {
				d.deadlineAt = -1
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runBenchDay(ctx, cmd.OutOrStdout(), o, d)
		},
	}
	f := cmd.Flags()
	f.StringVar(&d.porep, "porep", "", "PoRep C2 request file (cuzk gen-vanilla porep --out)")
	f.StringVar(&d.snap, "snap", "", "SnapDeals request file (cuzk gen-vanilla snap --out)")
	f.StringVar(&d.wpost, "wpost", "", "WindowPoSt partition request file (cuzk gen-vanilla window-post --partition K --out)")
	f.StringVar(&d.winning, "winning", "", "WinningPoSt request file (cuzk gen-vanilla winning-post --out)")
	f.StringVar(&d.synthetic, "bulk-synthetic", "", "a synthetic bulk load of ROWSxPARTITIONS (e.g. 16384x10), for a daemon started with --dev")
	f.IntVar(&d.porepJobs, "porep-jobs", 2, "PoRep C2 proofs kept in flight")
	f.IntVar(&d.snapJobs, "snap-jobs", 1, "SnapDeals proofs kept in flight")
	f.IntVar(&d.syntheticJobs, "bulk-jobs", 2, "synthetic bulk proofs kept in flight")
	f.DurationVar(&d.duration, "duration", 5*time.Minute, "length of the day: bulk proofs are submitted until it ends, then the ones in flight are waited for")
	f.IntVar(&d.deadlinePartitions, "deadline-partitions", 4, "WindowPoSt partitions of a deadline, submitted together")
	f.DurationVar(&d.deadlineAt, "deadline-at", 0, "when the first WindowPoSt deadline opens (default: a third into the day)")
	f.DurationVar(&d.deadlineWindow, "deadline-window", 2*time.Minute, "time a deadline's partitions have to be proved")
	f.DurationVar(&d.deadlineEvery, "deadline-every", 0, "open another deadline this often (0: one deadline)")
	f.DurationVar(&d.winningEvery, "winning-every", 30*time.Second, "a WinningPoSt this often, the first one this far into the day")
	f.DurationVar(&d.winningDeadline, "winning-deadline", time.Second, "a WinningPoSt slower than this counts as late (a lost block)")
	f.DurationVar(&d.solo, "solo", 0, "before the day, run each bulk kind alone this long to measure its solo throughput")
	f.StringVar(&d.jsonOut, "json", "", "also write the report as JSON to this file")
	return cmd
}

func (d *dayOptions) validate(o *benchOptions) error {
	switch {
	case o.addr == "":
		return errors.New("bench day drives a daemon: give --addr")
	case d.porep == "" && d.snap == "" && d.wpost == "" && d.winning == "" && d.synthetic == "":
		return errors.New("nothing to prove: give at least one of --porep, --snap, --wpost, --winning (request files of cuzk gen-vanilla) or --bulk-synthetic")
	case d.duration <= 0:
		return fmt.Errorf("--duration %v: want a positive duration", d.duration)
	case d.porep != "" && d.porepJobs < 1:
		return fmt.Errorf("--porep-jobs %d: want at least 1", d.porepJobs)
	case d.snap != "" && d.snapJobs < 1:
		return fmt.Errorf("--snap-jobs %d: want at least 1", d.snapJobs)
	case d.synthetic != "" && d.syntheticJobs < 1:
		return fmt.Errorf("--bulk-jobs %d: want at least 1", d.syntheticJobs)
	case d.deadlinePartitions < 1:
		return fmt.Errorf("--deadline-partitions %d: want at least 1", d.deadlinePartitions)
	case d.deadlineAt >= d.duration:
		return fmt.Errorf("--deadline-at %v: the deadline must open within the --duration %v", d.deadlineAt, d.duration)
	case d.deadlineWindow <= 0:
		return fmt.Errorf("--deadline-window %v: want a positive duration", d.deadlineWindow)
	case d.deadlineEvery < 0:
		return fmt.Errorf("--deadline-every %v: want 0 (one deadline) or a positive duration", d.deadlineEvery)
	case d.winningEvery <= 0:
		return fmt.Errorf("--winning-every %v: want a positive duration", d.winningEvery)
	case d.winningDeadline <= 0:
		return fmt.Errorf("--winning-deadline %v: want a positive duration", d.winningDeadline)
	case d.solo < 0:
		return fmt.Errorf("--solo %v: want 0 (none) or a positive duration", d.solo)
	case d.winning != "" && d.winningEvery >= d.duration:
		return fmt.Errorf("--winning-every %v: the first WinningPoSt comes that far into the day, after its --duration %v", d.winningEvery, d.duration)
	}
	return nil
}

// dayWork is what the day submits: the requests read from their files
// (each checked against its flag), and the circuits to preload.
type dayWork struct {
	bulk           []dayBulk
	wpost, winning *cuzkv1.SubmitProofRequest
	circuits       []string
	describe       []string
}

func loadDayWork(d *dayOptions) (*dayWork, error) {
	w := &dayWork{}
	seen := map[string]bool{}
	add := func(flag, path string, want cuzkv1.ProofKind) (*cuzkv1.SubmitProofRequest, error) {
		if path == "" {
			return nil, nil
		}
		r, id, err := loadDayRequest(flag, path, want)
		if err != nil {
			return nil, err
		}
		if !seen[id] {
			seen[id] = true
			w.circuits = append(w.circuits, id)
		}
		return r, nil
	}
	for _, b := range []struct {
		flag, path string
		want       cuzkv1.ProofKind
		jobs       int
	}{
		{dayPoRep, d.porep, cuzkv1.ProofKind_POREP_SEAL_COMMIT, d.porepJobs},
		{daySnap, d.snap, cuzkv1.ProofKind_SNAP_DEALS_UPDATE, d.snapJobs},
	} {
		r, err := add(b.flag, b.path, b.want)
		if err != nil {
			return nil, err
		}
		if r != nil {
			w.bulk = append(w.bulk, dayBulk{Kind: b.flag, Req: r, Jobs: b.jobs})
			w.describe = append(w.describe, fmt.Sprintf("%s %s × %d in flight", b.flag, b.path, b.jobs))
		}
	}
	var err error
	if w.wpost, err = add(dayWPoSt, d.wpost, cuzkv1.ProofKind_WINDOW_POST_PARTITION); err != nil {
		return nil, err
	}
	if w.wpost != nil {
		w.describe = append(w.describe, fmt.Sprintf("wpost %s × %d partitions a deadline", d.wpost, d.deadlinePartitions))
	}
	if w.winning, err = add(dayWinning, d.winning, cuzkv1.ProofKind_WINNING_POST); err != nil {
		return nil, err
	}
	if w.winning != nil {
		w.describe = append(w.describe, fmt.Sprintf("winning %s every %v", d.winning, d.winningEvery))
	}
	if d.synthetic != "" {
		rows, parts, err := parseBulkSynthetic(d.synthetic)
		if err != nil {
			return nil, err
		}
		c := (&benchOptions{constraints: rows, seed: 1}).circuit()
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("--bulk-synthetic %s: %w", d.synthetic, err)
		}
		r := &cuzkv1.SubmitProofRequest{ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT, VanillaProof: circuits.SyntheticDescriptor(c, parts)}
		w.bulk = append(w.bulk, dayBulk{Kind: daySynthetic, Req: r, Jobs: d.syntheticJobs})
		w.circuits = append(w.circuits, circuits.SyntheticID(c))
		w.describe = append(w.describe, fmt.Sprintf("synthetic %d partitions × %s rows × %d in flight", parts, rowsString(rows), d.syntheticJobs))
	}
	return w, nil
}

// parseBulkSynthetic reads ROWSxPARTITIONS; ROWS may be 2^K.
func parseBulkSynthetic(s string) (rows, partitions int, err error) {
	r, p, ok := strings.Cut(strings.ToLower(s), "x")
	if !ok {
		return 0, 0, fmt.Errorf("--bulk-synthetic %q: want ROWSxPARTITIONS, e.g. 16384x10", s)
	}
	if k, pow := strings.CutPrefix(r, "2^"); pow {
		e, err := strconv.Atoi(k)
		if err != nil || e < 1 || e > 24 {
			return 0, 0, fmt.Errorf("--bulk-synthetic %q: rows %q: want 2^1 … 2^24", s, r)
		}
		rows = 1 << e
	} else if rows, err = strconv.Atoi(r); err != nil {
		return 0, 0, fmt.Errorf("--bulk-synthetic %q: rows %q: %w", s, r, err)
	}
	if partitions, err = strconv.Atoi(p); err != nil {
		return 0, 0, fmt.Errorf("--bulk-synthetic %q: partitions %q: %w", s, p, err)
	}
	switch {
	case rows < 1 || rows > circuits.MaxSyntheticConstraints:
		return 0, 0, fmt.Errorf("--bulk-synthetic %q: rows %d: want 1 … %d", s, rows, circuits.MaxSyntheticConstraints)
	case partitions < 1 || partitions > circuits.MaxPartitions:
		return 0, 0, fmt.Errorf("--bulk-synthetic %q: partitions %d: want 1 … %d", s, partitions, circuits.MaxPartitions)
	}
	return rows, partitions, nil
}

// loadDayRequest reads the request file of --flag, which must be of kind
// want (and, for PoSt, a registered proof of that kind), in a shape the
// daemon accepts; it returns the request and its circuit id.
func loadDayRequest(flag, path string, want cuzkv1.ProofKind) (*cuzkv1.SubmitProofRequest, string, error) {
	r, err := readRequest(path)
	if err != nil {
		return nil, "", fmt.Errorf("--%s: %w: %w", flag, errDayRequest, err)
	}
	if r.ProofKind != want {
		return nil, "", fmt.Errorf("--%s %s: %w: a %v request, want %v", flag, path, errDayRequest, r.ProofKind, want)
	}
	check := pb.Clone(r).(*cuzkv1.SubmitProofRequest)
	check.RequestId = "bench-day-check"
	if _, err := server.RequestFromProto(check); err != nil {
		return nil, "", fmt.Errorf("--%s %s: %w: %w", flag, path, errDayRequest, err)
	}
	id, err := requestCircuit(r)
	if err != nil {
		return nil, "", fmt.Errorf("--%s %s: %w: %w", flag, path, errDayRequest, err)
	}
	return r, id, nil
}

// requestCircuit is the circuit id of a request's registered proof; a
// PoSt request's proof must be of its kind (Winning or Window).
func requestCircuit(r *cuzkv1.SubmitProofRequest) (string, error) {
	switch r.ProofKind {
	case cuzkv1.ProofKind_POREP_SEAL_COMMIT:
		info, err := filecoin.SealProof(r.RegisteredProof).Info()
		if err != nil {
			return "", err
		}
		return info.CircuitID(), nil
	case cuzkv1.ProofKind_SNAP_DEALS_UPDATE:
		info, err := update.Proof(r.RegisteredProof).Info()
		if err != nil {
			return "", err
		}
		return info.CircuitID(), nil
	case cuzkv1.ProofKind_WINDOW_POST_PARTITION, cuzkv1.ProofKind_WINNING_POST:
		info, err := post.Proof(r.RegisteredProof).Info()
		if err != nil {
			return "", err
		}
		if winning := r.ProofKind == cuzkv1.ProofKind_WINNING_POST; info.Winning != winning {
			return "", fmt.Errorf("registered proof %s is not a %v proof", info.Name, r.ProofKind)
		}
		return info.CircuitID(), nil
	}
	return "", fmt.Errorf("proof kind %v", r.ProofKind)
}

func runBenchDay(ctx context.Context, out io.Writer, o *benchOptions, d *dayOptions) error {
	if d.deadlineAt < 0 {
		d.deadlineAt = d.duration / 3
	}
	if err := d.validate(o); err != nil {
		return err
	}
	work, err := loadDayWork(d)
	if err != nil {
		return err
	}
	opts, err := o.conn.dialOptions()
	if err != nil {
		return err
	}
	c, err := client.Dial(o.addr, opts...)
	if err != nil {
		return err
	}
	defer c.Close()
	fmt.Fprintf(out, "cuzk bench day: daemon at %s for %v; %s\n", o.addr, d.duration, strings.Join(work.describe, "; "))
	preloadDay(ctx, out, c, work.circuits)

	stamp := time.Now().UnixNano()
	solo, err := runDaySolo(ctx, out, c, d, work, stamp)
	if err != nil {
		return err
	}

	deadlines := scheduleDeadlines(d.deadlineAt, d.deadlineEvery, d.deadlineWindow, d.duration)
	sched := daySchedule{
		Duration: d.duration, Bulk: work.bulk,
		WPoSt: work.wpost, Deadlines: deadlines, Partitions: d.deadlinePartitions,
		Winning: work.winning, WinningAt: scheduleWinning(d.winningEvery, d.duration),
	}
	if work.wpost == nil {
		deadlines = nil
	}
	progress, clear := lineProgress(out, "day")
	samples := runDayPhase(ctx, c, fmt.Sprintf("day-%d", stamp), sched, progress)
	clear()
	if ctx.Err() != nil {
		fmt.Fprintln(out, "interrupted: the report covers the proofs answered so far")
	}
	rep := newDayReport(samples, deadlines, d.winningDeadline, solo)
	rep.Addr, rep.Duration = o.addr, d.duration
	if o.timelineURL != "" {
		rep.Timeline = fetchDayTimeline(ctx, out, o.timelineURL, samples, d.winningDeadline)
	}
	rep.writeText(out)
	if d.jsonOut != "" {
		if err := writeDayJSON(d.jsonOut, rep); err != nil {
			return err
		}
		fmt.Fprintf(out, "report: %s\n", d.jsonOut)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if f := rep.faults(); len(f) > 0 {
		return fmt.Errorf("%w: %s", errDayFaults, strings.Join(f, "; "))
	}
	return nil
}

// runDaySolo runs each bulk kind alone for d.solo before the day (none
// without --solo): the throughput the day's is compared with.
func runDaySolo(ctx context.Context, out io.Writer, c *client.Client, d *dayOptions, work *dayWork, stamp int64) (map[string][]daySample, error) {
	solo := map[string][]daySample{}
	if d.solo <= 0 {
		return solo, nil
	}
	for _, b := range work.bulk {
		progress, clear := lineProgress(out, "solo "+b.Kind)
		s := runDayPhase(ctx, c, fmt.Sprintf("solo-%d", stamp), daySchedule{Duration: d.solo, Bulk: []dayBulk{b}}, progress)
		clear()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		solo[b.Kind] = s
		k := kindReport(b.Kind, s)
		fmt.Fprintf(out, "solo %s: %d proved, %d failed, %.1f partitions/min\n", b.Kind, k.Proved, k.Failed, k.PartitionsPerMin)
	}
	return solo, nil
}

// fetchDayTimeline is the daemon's timeline of the day's jobs by kind, nil
// (said on out) where it cannot be read; the WinningPoSts over lateOver
// broken down.
func fetchDayTimeline(ctx context.Context, out io.Writer, url string, samples []daySample, lateOver time.Duration) *dayTimeline {
	kindOf := map[string]string{}
	var late []string
	for _, s := range samples {
		kindOf[s.ID] = s.Kind
		if s.Kind == dayWinning && s.Err == nil && s.latency() > lateOver {
			late = append(late, s.ID)
		}
	}
	events, dropped, err := fetchTimeline(context.WithoutCancel(ctx), url, time.Minute)
	if err != nil {
		fmt.Fprintln(out, "timeline:", err)
		return nil
	}
	if dropped != "" && dropped != "0" {
		fmt.Fprintf(out, "note: the daemon's timeline ring dropped %s older events; raise timeline.events for a long day\n", dropped)
	}
	return analyzeDay(events, kindOf, late)
}

// preloadDay makes each circuit's parameters resident before the day, so
// that no proof's latency carries a load; a failure is reported, not fatal
// (the first proof then loads them).
func preloadDay(ctx context.Context, out io.Writer, c *client.Client, ids []string) {
	for _, id := range ids {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		already, took, err := c.Preload(pctx, id)
		cancel()
		switch {
		case err != nil:
			fmt.Fprintf(out, "params %s: preload failed (%v); the first proof loads them\n", id, err)
		case already:
			fmt.Fprintf(out, "params %s: already resident\n", id)
		default:
			fmt.Fprintf(out, "params %s: loaded by the daemon in %v\n", id, took.Round(time.Millisecond))
		}
	}
}
