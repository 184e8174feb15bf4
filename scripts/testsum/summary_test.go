package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// clock is a settable time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// The recorded stream (testdata/stream.jsonl) is `go test -json ./...` over
// four packages: one passing with a skipped test, one with a failing
// subtest, one whose test does not build, and one without tests.
func TestSummaryOfRecordedStream(t *testing.T) {
	raw, err := os.ReadFile("testdata/stream.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	s := newSummary(&out, (&clock{}).now)
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		s.line(l)
	}
	if s.finish() {
		t.Error("finish reports success for a stream with failures")
	}
	got := out.String()
	for _, tc := range []struct {
		what string
		want string
		not  bool
	}{
		{what: "the passing package's line", want: "ok    example.com/demo/good 0.0s\n"},
		{what: "the failing subtest named", want: "FAIL  example.com/demo/bad TestFails/sub 0.0s\n"},
		{what: "the failing subtest's message", want: "        bad_test.go:8: got 2, want 3\n"},
		{what: "the failing package's line", want: "FAIL  example.com/demo/bad 0.0s\n"},
		{what: "the build failure", want: "FAIL  example.com/demo/broken [build failed]\n"},
		{what: "the compiler's message", want: "    broken/broken_test.go:5:34: undefined: undefinedCall\n"},
		{what: "the closing count", want: "1 packages ok, 2 failed: example.com/demo/bad example.com/demo/broken\n"},
		{what: "a passing test's log", want: "noise that must not be printed", not: true},
		{what: "a passing test's log", want: "a passing test's log line", not: true},
		{what: "a skipped test's reason", want: "needs a GPU", not: true},
		{what: "the package without tests", want: "example.com/demo/empty", not: true},
		{what: "the go command's own FAIL line", want: "FAIL\texample.com/demo/bad", not: true},
	} {
		if has := strings.Contains(got, tc.want); has == tc.not {
			t.Errorf("%s: contains %q = %v, want %v", tc.what, tc.want, has, !tc.not)
		}
	}
	if t.Failed() {
		t.Logf("summary:\n%s", got)
	}
}

func TestSummaryRunningLineAndLostPackage(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	var out strings.Builder
	s := newSummary(&out, c.now)
	for _, l := range []string{
		`{"Action":"start","Package":"p/slow"}`,
		`{"Action":"run","Package":"p/slow","Test":"TestLong"}`,
		`{"Action":"run","Package":"p/slow","Test":"TestLong/sub"}`,
		`not json: copied through`,
	} {
		s.line(l)
	}
	c.t = c.t.Add(7 * time.Minute)
	s.running()
	if s.finish() {
		t.Error("a package that never ended counts as passed")
	}
	for _, want := range []string{
		"not json: copied through\n",
		"…     7m0s: running p/slow (7m0s, TestLong 7m0s)\n",
		"0 packages ok, 1 failed: p/slow (no result)\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}

// A package that times out fails without its running test's "fail": the
// test's output and the panic must both be printed.
func TestSummaryTimeout(t *testing.T) {
	var out strings.Builder
	s := newSummary(&out, (&clock{}).now)
	for _, l := range []string{
		`{"Action":"start","Package":"p/hang"}`,
		`{"Action":"run","Package":"p/hang","Test":"TestHang"}`,
		`{"Action":"output","Package":"p/hang","Test":"TestHang","Output":"    hang_test.go:9: waiting for the device\n"}`,
		`{"Action":"output","Package":"p/hang","Output":"panic: test timed out after 45m0s\n"}`,
		`{"Action":"output","Package":"p/hang","Output":"FAIL\tp/hang\t2700.1s\n"}`,
		`{"Action":"fail","Package":"p/hang","Elapsed":2700.1}`,
	} {
		s.line(l)
	}
	s.finish()
	want := "    hang_test.go:9: waiting for the device\n    panic: test timed out after 45m0s\nFAIL  p/hang 2700.1s\n0 packages ok, 1 failed: p/hang\n"
	if !strings.HasSuffix(out.String(), want) {
		t.Errorf("summary:\n%s\nwant it to end with:\n%s", out.String(), want)
	}
}

func TestPrintBlockCapsLongOutput(t *testing.T) {
	var lines []string
	for i := range outputCap + 50 {
		lines = append(lines, strings.Repeat("x", i%3))
	}
	lines[0], lines[len(lines)-1] = "first error", "final panic"
	var out strings.Builder
	newSummary(&out, time.Now).printBlock(lines)
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != outputCap+1 || got[0] != "    first error" || got[len(got)-1] != "    final panic" ||
		got[outputCap/2] != "    … 50 lines left out …" {
		t.Errorf("%d lines, first %q, last %q, middle %q", len(got), got[0], got[len(got)-1], got[outputCap/2])
	}
}
