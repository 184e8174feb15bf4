package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

func main() {
	every := flag.Duration("every", 5*time.Minute, "print what is still running at this interval (0: never)")
	flag.Parse()
	s := newSummary(os.Stdout, time.Now)
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		if err := sc.Err(); err != nil {
			lines <- fmt.Sprintf("testsum: reading the event stream: %v", err)
		}
	}()
	var tick <-chan time.Time
	if *every > 0 {
		t := time.NewTicker(*every)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				if !s.finish() {
					os.Exit(1)
				}
				return
			}
			s.line(line)
		case <-tick:
			s.running()
		}
	}
}

// copyTo writes to w, ignoring errors: a closed log is no reason to stop
// reading the stream (the go command would block on a full pipe).
func copyTo(w io.Writer, format string, args ...any) {
	_, _ = fmt.Fprintf(w, format, args...)
}
