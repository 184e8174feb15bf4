package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// terminal returns w as a file when it is a terminal, and nil otherwise:
// progress is drawn only for a person watching, never into a log or a
// pipe.
func terminal(w io.Writer) *os.File {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return f
}

// stepProgress returns a callback that redraws "what [done/total]
// elapsed" on w when w is a terminal, and nil otherwise; clear erases the
// line (a no-op without a terminal).
func stepProgress(w io.Writer, what string) (progress func(done, total int), clear func()) {
	f := terminal(w)
	if f == nil {
		return nil, func() {}
	}
	start := time.Now()
	return func(done, total int) {
			fmt.Fprintf(f, "\r\033[K%s [%d/%d] %v", what, done, total, time.Since(start).Round(time.Second))
		}, func() {
			fmt.Fprint(f, "\r\033[K")
		}
}

// elapsedProgress redraws "what: elapsed" on w every second while a step
// without progress reports runs, when w is a terminal; stop ends it and
// erases the line.
func elapsedProgress(w io.Writer, what string) (stop func()) {
	f := terminal(w)
	if f == nil {
		return func() {}
	}
	start := time.Now()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			fmt.Fprintf(f, "\r\033[K%s: %v", what, time.Since(start).Round(time.Second))
			select {
			case <-done:
				fmt.Fprint(f, "\r\033[K")
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}
