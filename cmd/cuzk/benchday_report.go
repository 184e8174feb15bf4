package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// The kinds of work a day sends, by the flag that gives their request.
const (
	dayPoRep     = "porep"
	daySnap      = "snap"
	dayWPoSt     = "wpost"
	dayWinning   = "winning"
	daySynthetic = "synthetic" // --bulk-synthetic: a development bulk load
)

// dayKindOrder is the order the report lists the kinds in.
var dayKindOrder = []string{dayPoRep, daySnap, daySynthetic, dayWPoSt, dayWinning}

// daySample is one proof of the day: when it was submitted and answered,
// measured from the start of its phase (the day, or a solo run).
type daySample struct {
	Kind       string
	ID         string
	Submit     time.Duration
	Done       time.Duration
	Partitions int   // partition proofs in the answer; 0 when it failed
	Deadline   int   // WindowPoSt: the deadline it belongs to; -1 otherwise
	Err        error // nil: proved
}

func (s daySample) latency() time.Duration { return s.Done - s.Submit }

// dayKindReport is one kind's figures over a phase. Latencies are of the
// proofs that succeeded; throughput is over Span, from the start of the
// phase to the kind's last answer (a bulk job still in flight when the
// duration ends is waited for and counted).
type dayKindReport struct {
	Kind             string        `json:"kind"`
	Proved           int           `json:"proved"`
	Failed           int           `json:"failed"`
	Partitions       int           `json:"partitions"`
	P50              time.Duration `json:"p50_ns"`
	P99              time.Duration `json:"p99_ns"`
	Max              time.Duration `json:"max_ns"`
	Span             time.Duration `json:"span_ns"`
	ProofsPerMin     float64       `json:"proofs_per_min"`
	PartitionsPerMin float64       `json:"partitions_per_min"`
	FirstError       string        `json:"first_error,omitempty"`
}

// kindReport sums the samples of one kind.
func kindReport(kind string, samples []daySample) dayKindReport {
	r := dayKindReport{Kind: kind}
	var lat []time.Duration
	for _, s := range samples {
		if s.Kind != kind {
			continue
		}
		r.Span = max(r.Span, s.Done)
		if s.Err != nil {
			r.Failed++
			if r.FirstError == "" {
				r.FirstError = fmt.Sprintf("%s: %v", s.ID, s.Err)
			}
			continue
		}
		r.Proved++
		r.Partitions += s.Partitions
		lat = append(lat, s.latency())
	}
	r.P50, r.P99, r.Max = quantile(lat, 0.50), quantile(lat, 0.99), quantile(lat, 1)
	if r.Span > 0 {
		r.ProofsPerMin = float64(r.Proved) / r.Span.Minutes()
		r.PartitionsPerMin = float64(r.Partitions) / r.Span.Minutes()
	}
	return r
}

// dayDeadline is one WindowPoSt deadline of the schedule: its partitions
// submitted together at Open, every one to be proved by Open + Window.
type dayDeadline struct {
	Index  int
	Open   time.Duration
	Window time.Duration
}

// dayDeadlineReport judges one deadline: Met when every partition was
// proved and the last answer came no later than Open + Window. Margin is
// Open + Window − Finished (negative: late by that much).
type dayDeadlineReport struct {
	Index      int           `json:"index"`
	Open       time.Duration `json:"open_ns"`
	Window     time.Duration `json:"window_ns"`
	Partitions int           `json:"partitions"`
	Proved     int           `json:"proved"`
	Failed     int           `json:"failed"`
	Finished   time.Duration `json:"finished_ns"` // the last answer, from the start of the day
	Took       time.Duration `json:"took_ns"`     // Finished − Open
	Margin     time.Duration `json:"margin_ns"`
	Met        bool          `json:"met"`
}

func judgeDeadline(d dayDeadline, samples []daySample) dayDeadlineReport {
	r := dayDeadlineReport{Index: d.Index, Open: d.Open, Window: d.Window}
	for _, s := range samples {
		if s.Kind != dayWPoSt || s.Deadline != d.Index {
			continue
		}
		r.Partitions++
		if s.Err != nil {
			r.Failed++
		} else {
			r.Proved++
		}
		r.Finished = max(r.Finished, s.Done)
	}
	if r.Partitions == 0 {
		return r // never submitted (the day was cut short): not met
	}
	r.Took = r.Finished - d.Open
	r.Margin = d.Window - r.Took
	r.Met = r.Failed == 0 && r.Margin >= 0
	return r
}

// dayWinningReport is the WinningPoSt against its threshold: Late counts
// the proved ones slower than Threshold; a failed one is a lost block too.
type dayWinningReport struct {
	Threshold time.Duration `json:"threshold_ns"`
	Late      int           `json:"late"`
	Worst     time.Duration `json:"worst_ns"`
}

func judgeWinning(threshold time.Duration, samples []daySample) dayWinningReport {
	r := dayWinningReport{Threshold: threshold}
	for _, s := range samples {
		if s.Kind != dayWinning || s.Err != nil {
			continue
		}
		r.Worst = max(r.Worst, s.latency())
		if s.latency() > threshold {
			r.Late++
		}
	}
	return r
}

// daySoloRatio compares a bulk kind's throughput in the day with its
// throughput alone on the daemon. Share sums Ratio over the bulk kinds: the
// fraction of the device's solo capacity the mixed bulk load kept (1: the
// kinds shared the device without loss; the PoSt work of the day takes its
// part too).
type daySoloRatio struct {
	Kind  string  `json:"kind"`
	Solo  float64 `json:"solo_partitions_per_min"`
	Day   float64 `json:"day_partitions_per_min"`
	Ratio float64 `json:"ratio"`
}

// soloTolerance is how far below its solo throughput a lone bulk kind (or
// the bulk kinds' summed share) may fall and still count as keeping up.
const soloTolerance = 0.10

// dayReport is everything `cuzk bench day` reports; --json writes it.
type dayReport struct {
	Addr      string              `json:"addr"`
	Duration  time.Duration       `json:"duration_ns"`
	Wall      time.Duration       `json:"wall_ns"` // the day, with the drain of the jobs in flight at its end
	Kinds     []dayKindReport     `json:"kinds"`
	Deadlines []dayDeadlineReport `json:"deadlines"`
	Winning   *dayWinningReport   `json:"winning,omitempty"`
	Solo      []dayKindReport     `json:"solo,omitempty"`
	SoloRatio []daySoloRatio      `json:"solo_ratio,omitempty"`
	Share     float64             `json:"bulk_share_of_solo,omitempty"`
	Timeline  *dayTimeline        `json:"timeline,omitempty"`
}

// newDayReport computes the report of a day's samples; solo holds each
// bulk kind's samples of its solo run (none without --solo).
func newDayReport(samples []daySample, deadlines []dayDeadline, winningThreshold time.Duration, solo map[string][]daySample) dayReport {
	var r dayReport
	present := map[string]bool{}
	for _, s := range samples {
		present[s.Kind] = true
		r.Wall = max(r.Wall, s.Done)
	}
	for _, k := range dayKindOrder {
		if present[k] {
			r.Kinds = append(r.Kinds, kindReport(k, samples))
		}
	}
	for _, d := range deadlines {
		r.Deadlines = append(r.Deadlines, judgeDeadline(d, samples))
	}
	if present[dayWinning] {
		w := judgeWinning(winningThreshold, samples)
		r.Winning = &w
	}
	for _, k := range dayKindOrder {
		s, ok := solo[k]
		if !ok {
			continue
		}
		sr := kindReport(k, s)
		r.Solo = append(r.Solo, sr)
		dr := kindReport(k, samples)
		ratio := daySoloRatio{Kind: k, Solo: sr.PartitionsPerMin, Day: dr.PartitionsPerMin}
		if sr.PartitionsPerMin > 0 {
			ratio.Ratio = dr.PartitionsPerMin / sr.PartitionsPerMin
		}
		r.SoloRatio = append(r.SoloRatio, ratio)
		r.Share += ratio.Ratio
	}
	return r
}

// faults lists what went wrong in the day for an operator: failed proofs,
// missed deadlines, late WinningPoSts. Empty: a clean day.
func (r dayReport) faults() []string {
	var out []string
	for _, k := range r.Kinds {
		if k.Failed > 0 {
			out = append(out, fmt.Sprintf("%d %s failed", k.Failed, k.Kind))
		}
	}
	missed := 0
	for _, d := range r.Deadlines {
		if !d.Met {
			missed++
		}
	}
	if missed > 0 {
		out = append(out, fmt.Sprintf("%d of %d WindowPoSt deadlines missed", missed, len(r.Deadlines)))
	}
	if r.Winning != nil && r.Winning.Late > 0 {
		out = append(out, fmt.Sprintf("%d WinningPoSt over %v", r.Winning.Late, r.Winning.Threshold))
	}
	return out
}

func fmtMs(d time.Duration) string {
	return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
}

// writeText prints the report for an operator.
func (r dayReport) writeText(w io.Writer) {
	fmt.Fprintf(w, "day of %v (wall %v with the drain of the jobs in flight at its end)\n",
		r.Duration, r.Wall.Round(time.Millisecond))
	printKinds := func(ks []dayKindReport) {
		fmt.Fprintf(w, "  %-10s %7s %7s %10s %10s %10s %12s %12s\n", "kind", "proved", "failed", "p50", "p99", "max", "proofs/min", "parts/min")
		for _, k := range ks {
			p50, p99, mx := fmtMs(k.P50), fmtMs(k.P99), fmtMs(k.Max)
			if k.Proved == 0 {
				p50, p99, mx = "-", "-", "-"
			}
			fmt.Fprintf(w, "  %-10s %7d %7d %10s %10s %10s %12.2f %12.1f\n", k.Kind, k.Proved, k.Failed,
				p50, p99, mx, k.ProofsPerMin, k.PartitionsPerMin)
		}
		for _, k := range ks {
			if k.FirstError != "" {
				fmt.Fprintf(w, "  %s: first failure: %s\n", k.Kind, k.FirstError)
			}
		}
	}
	printKinds(r.Kinds)
	for _, d := range r.Deadlines {
		verdict := "met"
		switch {
		case d.Partitions == 0:
			verdict = "MISSED (not submitted)"
		case d.Failed > 0:
			verdict = fmt.Sprintf("MISSED (%d of %d partitions failed)", d.Failed, d.Partitions)
		case !d.Met:
			verdict = fmt.Sprintf("MISSED (late by %v)", (-d.Margin).Round(time.Millisecond))
		}
		fmt.Fprintf(w, "WindowPoSt deadline %d at %v: %d partitions in %v of a %v window, margin %v: %s\n",
			d.Index, d.Open.Round(time.Millisecond), d.Partitions, d.Took.Round(time.Millisecond), d.Window,
			d.Margin.Round(time.Millisecond), verdict)
	}
	if r.Winning != nil {
		fmt.Fprintf(w, "WinningPoSt over %v: %d (worst %s)\n", r.Winning.Threshold, r.Winning.Late, fmtMs(r.Winning.Worst))
	}
	if len(r.Solo) > 0 {
		fmt.Fprintln(w, "solo (each bulk kind alone on the daemon):")
		printKinds(r.Solo)
		for _, s := range r.SoloRatio {
			fmt.Fprintf(w, "  %s in the day: %.1f of %.1f partitions/min solo (%.0f %%)\n", s.Kind, s.Day, s.Solo, 100*s.Ratio)
		}
		verdict := "within"
		if r.Share < 1-soloTolerance {
			verdict = "NOT within"
		}
		fmt.Fprintf(w, "  bulk share of solo throughput: %.0f %%, %s %.0f %% of solo\n", 100*r.Share, verdict, 100*soloTolerance)
	}
	if r.Timeline != nil {
		r.Timeline.writeText(w)
	}
	if f := r.faults(); len(f) > 0 {
		fmt.Fprintf(w, "faults: %s\n", strings.Join(f, "; "))
	} else {
		fmt.Fprintln(w, "faults: none")
	}
}

func writeDayJSON(path string, r dayReport) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// sortSamples orders samples by submission, then id.
func sortSamples(s []daySample) {
	slices.SortFunc(s, func(a, b daySample) int {
		return cmp.Or(cmp.Compare(a.Submit, b.Submit), strings.Compare(a.ID, b.ID))
	})
}
