package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestWriteVersion(t *testing.T) {
	build := func(settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/cuzk-project/cuzk", Version: "v1.2.3"}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	noLib := func() string { return "not available: libcuzk_cuda.so: not found" }
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		want []string
	}{
		{
			name: "clean checkout",
			bi:   build("GOOS", "linux", "GOARCH", "amd64", "vcs.revision", "0123abcd", "vcs.time", "2026-12-01T10:00:00Z", "vcs.modified", "false"),
			want: []string{"cuzk v1.2.3\n", "module    github.com/cuzk-project/cuzk\n", "revision  0123abcd (2026-12-01T10:00:00Z)\n", "go        go1.26.8 linux/amd64\n", "cuda      not available: libcuzk_cuda.so: not found\n"},
		},
		{
			name: "modified checkout",
			bi:   build("vcs.revision", "0123abcd", "vcs.time", "2026-12-01T10:00:00Z", "vcs.modified", "true"),
			want: []string{"revision  0123abcd (2026-12-01T10:00:00Z, modified)\n"},
		},
		{
			name: "no VCS stamp",
			bi:   build("GOOS", "linux", "GOARCH", "arm64"),
			want: []string{"revision  unknown (built without VCS information", "go        go1.26.8 linux/arm64\n"},
		},
		{
			name: "no build information",
			want: []string{"cuzk: no build information in this binary\n", "cuda      not available"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			writeVersion(&out, tc.bi, noLib)
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

// `cuzk version` succeeds whether or not the library loads here, and says
// which.
func TestVersionCommand(t *testing.T) {
	out, code := run(t, "version")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, w := range []string{"module    github.com/cuzk-project/cuzk\n", "go        go1.", "cuda      ", "libcuzk_cuda.so"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}
