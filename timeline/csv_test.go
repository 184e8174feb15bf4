package timeline

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestCSVRoundTrip(t *testing.T) {
	ev := simInterlock(2, 12, 5, 300*ms, 500*ms, 300*ms)
	ev = append(ev,
		Event{At: -1500 * time.Microsecond, Kind: KernelStart, Job: `odd,"job"` + "\nname", Partition: -1, Worker: -1, Device: 3},
		Event{At: 123456789 * time.Nanosecond, Kind: JobSubmit, Job: "", Partition: -1, Worker: -1, Device: -1},
		Event{At: 1<<63 - 1, Kind: JobDone, Job: " spaced ", Partition: 1<<31 - 1, Worker: 0, Device: 0},
	)
	var buf bytes.Buffer
	if err := WriteCSV(&buf, ev); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ev) {
		t.Fatalf("read %d events, wrote %d", len(got), len(ev))
	}
	for i := range ev {
		if got[i] != ev[i] {
			t.Fatalf("event %d: read %+v, wrote %+v", i, got[i], ev[i])
		}
	}
}

func TestReadCSVAcceptsLogLines(t *testing.T) {
	var log []byte
	log = AppendLine(log, Event{At: 2 * time.Millisecond, Kind: LockHeld, Job: "j", Partition: 0, Worker: 1, Device: 0})
	log = AppendLine(log, Event{At: 3 * time.Millisecond, Kind: LockFree, Job: "j", Partition: 0, Worker: 1, Device: 0})
	in := "# grep '^TIMELINE,' daemon.log\n\n" + string(log)
	got, err := ReadCSV(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].Kind != LockFree || got[1].At != 3*time.Millisecond || got[0].Worker != 1 {
		t.Fatalf("read %+v", got)
	}
}

func TestReadCSVErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"bad header", "at_ms,kind,job,partition,worker,device\n", "header"},
		{"few fields", CSVHeader + "\n1.0,KERNEL_START,j,0,0\n", "line 2: 5 fields"},
		{"unknown event", "1.0,KERNEL_GO,j,0,0,0\n", `field event: unknown event "KERNEL_GO"`},
		{"bad time", "1.0.0,KERNEL_START,j,0,0,0\n", "field at_ms"},
		{"empty time", ",KERNEL_START,j,0,0,0\n", "field at_ms"},
		{"time overflow", "99999999999999999999,KERNEL_START,j,0,0,0\n", "out of range"},
		{"negative worker", "1,KERNEL_START,j,0,-2,0\n", "field worker"},
		{"huge device", "1,KERNEL_START,j,0,0,99999999999\n", "field device"},
		{"bad quote", "1,KERNEL_START,\"j,0,0,0\n", "extraneous or missing"},
		{"garbage", "hello world\n", "1 fields"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("no error for %q", tc.in)
			}
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want ErrMalformed mentioning %q", err, tc.want)
			}
		})
	}
}

func TestMillis(t *testing.T) {
	for _, tc := range []struct {
		d time.Duration
		s string
	}{
		{0, "0.000000"}, {1, "0.000001"}, {time.Millisecond, "1.000000"},
		{-1500 * time.Microsecond, "-1.500000"}, {1234567891234, "1234567.891234"},
	} {
		if got := string(appendMillis(nil, tc.d)); got != tc.s {
			t.Errorf("appendMillis(%d) = %q, want %q", tc.d, got, tc.s)
		}
		if got, err := parseMillis(tc.s); err != nil || got != tc.d {
			t.Errorf("parseMillis(%q) = %d, %v; want %d", tc.s, got, err, tc.d)
		}
	}
	for s, want := range map[string]time.Duration{"2": 2 * time.Millisecond, ".5": 500 * time.Microsecond, "0.0000019": 1, "-0": 0} {
		if got, err := parseMillis(s); err != nil || got != want {
			t.Errorf("parseMillis(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
}

func FuzzReadCSV(f *testing.F) {
	var buf bytes.Buffer
	_ = WriteCSV(&buf, simInterlock(2, 3, 2, 300*ms, 500*ms, 300*ms))
	f.Add(buf.String())
	f.Add(string(AppendLine(nil, Event{At: 5, Kind: JobDone, Job: `a"b,c`, Partition: -1, Worker: -1, Device: -1})))
	f.Add("1,KERNEL_START,\"j\n\",0,0,0\n")
	f.Add("-.5,LOCK_WAIT,,,,\n")
	f.Fuzz(func(t *testing.T, in string) {
		ev, err := ReadCSV(strings.NewReader(in))
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		// Whatever parses must survive a round trip and an analysis.
		var out bytes.Buffer
		if err := WriteCSV(&out, ev); err != nil {
			t.Fatal(err)
		}
		again, err := ReadCSV(&out)
		if err != nil {
			t.Fatalf("re-reading our own output: %v\n%s", err, out.String())
		}
		if len(again) != len(ev) {
			t.Fatalf("round trip: %d events, then %d", len(ev), len(again))
		}
		for i := range ev {
			if again[i] != ev[i] {
				t.Fatalf("round trip changed event %d: %+v → %+v", i, ev[i], again[i])
			}
		}
		var sink bytes.Buffer
		if err := Analyze(ev).WriteText(&sink); err != nil {
			t.Fatal(err)
		}
		if err := WriteTrace(&sink, ev); err != nil {
			t.Fatal(err)
		}
		if err := WriteHTML(&sink, ev); err != nil {
			t.Fatal(err)
		}
	})
}
