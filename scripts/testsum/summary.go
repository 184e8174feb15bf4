package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// event is one line of `go test -json` (a test2json TestEvent, or a build
// event, which names its package ImportPath).
type event struct {
	Action      string
	Package     string
	ImportPath  string
	Test        string
	Elapsed     float64
	Output      string
	FailedBuild string
}

// outputCap bounds the lines printed for one failing test or package: the
// first and the last outputCap/2 are kept, which hold the first error and
// the final panic or timeout.
const outputCap = 300

// summary is the state of one stream: what runs, what each unfinished test
// printed so far (dropped when it passes), and the packages seen to pass
// and fail.
type summary struct {
	w      io.Writer
	now    func() time.Time
	start  time.Time
	pkgs   map[string]*pkgState
	build  map[string][]string // build output, by package import path
	passed int
	failed []string
}

type pkgState struct {
	start  time.Time
	cached bool
	tests  map[string]*testState // running tests, and "" for the package's own output
}

type testState struct {
	start time.Time
	out   []string
}

func newSummary(w io.Writer, now func() time.Time) *summary {
	return &summary{w: w, now: now, start: now(), pkgs: map[string]*pkgState{}, build: map[string][]string{}}
}

// line takes one line of the stream.
func (s *summary) line(line string) {
	var e event
	if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &e) != nil || e.Action == "" {
		copyTo(s.w, "%s\n", line)
		return
	}
	switch e.Action {
	case "build-output":
		s.build[e.ImportPath] = append(s.build[e.ImportPath], strings.TrimSuffix(e.Output, "\n"))
		return
	case "build-fail":
		return // reported with the package that failed for it
	}
	p := s.pkg(e.Package)
	if e.Test == "" {
		s.packageEvent(e, p)
		return
	}
	t := p.tests[e.Test]
	switch e.Action {
	case "run":
		p.tests[e.Test] = &testState{start: s.now()}
	case "output":
		if t == nil { // output before "run" (cannot happen) or after the end
			t = &testState{start: s.now()}
			p.tests[e.Test] = t
		}
		t.out = append(t.out, strings.TrimSuffix(e.Output, "\n"))
	case "pass", "skip":
		delete(p.tests, e.Test)
	case "fail":
		copyTo(s.w, "FAIL  %s %s %.1fs\n", e.Package, e.Test, e.Elapsed)
		if t != nil {
			s.printBlock(t.out)
		}
		delete(p.tests, e.Test)
	}
}

func (s *summary) pkg(name string) *pkgState {
	p := s.pkgs[name]
	if p == nil {
		p = &pkgState{start: s.now(), tests: map[string]*testState{}}
		s.pkgs[name] = p
	}
	return p
}

// packageEvent handles an event of the package itself (no Test): its
// start, its own output (the ok/FAIL line, a panic, a timeout) and its end.
func (s *summary) packageEvent(e event, p *pkgState) {
	own := p.tests[""]
	if own == nil {
		own = &testState{start: p.start}
		p.tests[""] = own
	}
	switch e.Action {
	case "output":
		if strings.Contains(e.Output, "(cached)") {
			p.cached = true
		}
		if l := strings.TrimSuffix(e.Output, "\n"); !isResultLine(l, e.Package) {
			own.out = append(own.out, l)
		}
	case "pass":
		s.passed++
		took := fmt.Sprintf("%.1fs", e.Elapsed)
		if p.cached {
			took = "(cached)"
		}
		copyTo(s.w, "ok    %s %s\n", e.Package, took)
		delete(s.pkgs, e.Package)
	case "skip": // no test files
		delete(s.pkgs, e.Package)
	case "fail":
		s.failed = append(s.failed, e.Package)
		if e.FailedBuild != "" {
			copyTo(s.w, "FAIL  %s [build failed]\n", e.Package)
			s.printBlock(s.build[e.FailedBuild])
		} else {
			// Tests still running when the package failed (a timeout, a
			// panic in another goroutine): their output is the evidence.
			var names []string
			for name := range p.tests {
				if name != "" {
					names = append(names, name)
				}
			}
			sort.Strings(names)
			for _, name := range names {
				s.printBlock(p.tests[name].out)
			}
			s.printBlock(own.out)
			copyTo(s.w, "FAIL  %s %.1fs\n", e.Package, e.Elapsed)
		}
		delete(s.pkgs, e.Package)
	}
}

// printBlock prints a failure's output, indented, at most outputCap lines.
func (s *summary) printBlock(out []string) {
	if len(out) > outputCap {
		n := len(out) - outputCap
		out = append(append(out[:outputCap/2:outputCap/2], fmt.Sprintf("… %d lines left out …", n)), out[len(out)-outputCap/2:]...)
	}
	for _, l := range out {
		copyTo(s.w, "    %s\n", l)
	}
}

// running prints one line naming the packages still running, each with its
// longest-running test.
func (s *summary) running() {
	if len(s.pkgs) == 0 {
		return
	}
	now := s.now()
	names := make([]string, 0, len(s.pkgs))
	for name := range s.pkgs {
		names = append(names, name)
	}
	sort.Strings(names)
	var parts []string
	for _, name := range names {
		p := s.pkgs[name]
		part := fmt.Sprintf("%s (%s", name, roundMin(now.Sub(p.start)))
		if test, since := oldestTest(p); test != "" {
			part += fmt.Sprintf(", %s %s", test, roundMin(now.Sub(since)))
		}
		parts = append(parts, part+")")
	}
	copyTo(s.w, "…     %s: running %s\n", roundMin(now.Sub(s.start)), strings.Join(parts, ", "))
}

func oldestTest(p *pkgState) (string, time.Time) {
	var name string
	var since time.Time
	for n, t := range p.tests {
		if n == "" || strings.Contains(n, "/") {
			continue
		}
		if name == "" || t.start.Before(since) || (t.start.Equal(since) && n < name) {
			name, since = n, t.start
		}
	}
	return name, since
}

func roundMin(d time.Duration) string {
	if d < time.Minute {
		return d.Round(time.Second).String()
	}
	return d.Round(time.Minute).String()
}

// finish prints the closing count and reports whether everything passed.
// A package whose stream ended without its result (the go command was
// killed) counts as failed.
func (s *summary) finish() bool {
	for name := range s.pkgs {
		if name != "" {
			s.failed = append(s.failed, name+" (no result)")
		}
	}
	sort.Strings(s.failed)
	if len(s.failed) == 0 {
		copyTo(s.w, "%d packages ok\n", s.passed)
		return true
	}
	copyTo(s.w, "%d packages ok, %d failed: %s\n", s.passed, len(s.failed), strings.Join(s.failed, " "))
	return false
}

// isResultLine reports whether l is one of the go command's own result
// lines for pkg, which the summary's ok/FAIL line replaces.
func isResultLine(l, pkg string) bool {
	switch {
	case l == "PASS", l == "FAIL":
		return true
	case strings.HasPrefix(l, "ok  \t"+pkg+"\t"), strings.HasPrefix(l, "FAIL\t"+pkg+"\t"), strings.HasPrefix(l, "FAIL\t"+pkg+" "):
		return true
	}
	return false
}
