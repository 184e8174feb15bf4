package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/cuzk-project/cuzk/groth16"
)

// withSetupProgress runs f with opts.Progress drawing the running phases
// ("what: h 12.6M/134.2M · b_g2 3.1M/33.1M · 1m02s") on w, redrawn every
// second, when w is a terminal; nothing otherwise (logs stay quiet).
func withSetupProgress(w io.Writer, what string, opts *groth16.SetupOptions, f func() error) error {
	t := terminal(w)
	if t == nil {
		return f()
	}
	start := time.Now()
	var (
		mu      sync.Mutex
		running []groth16.SetupProgress
	)
	draw := func() {
		parts := make([]string, 0, len(running))
		for _, p := range running {
			if p.Total > 0 && p.Done > 0 {
				parts = append(parts, fmt.Sprintf("%s %s/%s", p.Phase, millions(p.Done), millions(p.Total)))
			} else {
				parts = append(parts, p.Phase)
			}
		}
		fmt.Fprintf(t, "\r\033[K%s: %s · %v", what, strings.Join(parts, " · "), time.Since(start).Round(time.Second))
	}
	opts.Progress = func(p groth16.SetupProgress) {
		mu.Lock()
		defer mu.Unlock()
		i := 0
		for i < len(running) && running[i].Phase != p.Phase {
			i++
		}
		switch {
		case p.End && i < len(running):
			running = append(running[:i], running[i+1:]...)
		case p.End:
		case i < len(running):
			running[i] = p
		default:
			running = append(running, p)
		}
		draw()
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				mu.Lock()
				draw()
				mu.Unlock()
			}
		}
	}()
	err := f()
	close(done)
	wg.Wait()
	fmt.Fprint(t, "\r\033[K")
	return err
}

// millions writes n as 12.6M, 328k or 17.
func millions(n int) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// printSetupReport writes the phases' times: wall time, and for the
// queries the time in the fixed-base multiplications and in encoding and
// writing (they overlap).
func printSetupReport(w io.Writer, rep *groth16.SetupReport, device string) {
	if rep == nil {
		return
	}
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "phase\tsize\twall\tfixed-base\twrite\t")
	round := func(d time.Duration) string {
		if d == 0 {
			return "-"
		}
		return d.Round(time.Millisecond).String()
	}
	for _, p := range rep.Phases {
		n := "-"
		if p.N > 0 {
			n = fmt.Sprint(p.N)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", p.Name, n, round(p.Wall), round(p.FixedBase), round(p.Write))
	}
	tw.Flush()
	size := fmt.Sprintf("%.1f MB", float64(rep.Bytes)/1e6)
	if rep.Bytes >= 1e9 {
		size = fmt.Sprintf("%.2f GB", float64(rep.Bytes)/1e9)
	}
	fmt.Fprintf(w, "total %v, .params %s; fixed-base on %s, b_g2 beside the G1 queries\n",
		rep.Total.Round(time.Millisecond), size, device)
}
