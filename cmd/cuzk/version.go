package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cuzk-project/cuzk/device/cuda"
)

// newVersionCmd is `cuzk version`: what was built, from what, and whether
// the CUDA library loads here. It never fails for want of the library.
func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the module version, VCS revision, Go version and whether libcuzk_cuda.so loads",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bi, _ := debug.ReadBuildInfo()
			writeVersion(cmd.OutOrStdout(), bi, probeCUDA)
			return nil
		},
	}
}

// writeVersion prints the build information bi (nil: the binary carries
// none) and the line probe returns for the CUDA library.
func writeVersion(w io.Writer, bi *debug.BuildInfo, probe func() string) {
	if bi == nil {
		fmt.Fprintln(w, "cuzk: no build information in this binary")
	} else {
		settings := map[string]string{}
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
		fmt.Fprintf(w, "cuzk %s\n", bi.Main.Version)
		fmt.Fprintf(w, "module    %s\n", bi.Main.Path)
		fmt.Fprintf(w, "revision  %s\n", revision(settings))
		fmt.Fprintf(w, "go        %s %s/%s\n", bi.GoVersion, settings["GOOS"], settings["GOARCH"])
	}
	fmt.Fprintf(w, "cuda      %s\n", probe())
}

// revision describes the VCS state the binary was built from.
func revision(settings map[string]string) string {
	rev := settings["vcs.revision"]
	if rev == "" {
		return "unknown (built without VCS information: -buildvcs=false, or not from a checkout)"
	}
	var notes []string
	if t := settings["vcs.time"]; t != "" {
		notes = append(notes, t)
	}
	if settings["vcs.modified"] == "true" {
		notes = append(notes, "modified")
	}
	if len(notes) == 0 {
		return rev
	}
	return fmt.Sprintf("%s (%s)", rev, strings.Join(notes, ", "))
}

// probeCUDA loads libcuzk_cuda.so as the CUDA device would and says what
// it found.
func probeCUDA() string {
	infos, err := cuda.Devices()
	if err != nil {
		return fmt.Sprintf("not available: %v (build it with make cuda, or set CUZK_CUDA_LIB)", err)
	}
	if len(infos) == 0 {
		return cuda.LibName + " loaded; no CUDA device visible"
	}
	names := make([]string, len(infos))
	for i, in := range infos {
		names[i] = fmt.Sprintf("%d: %s, %.1f GiB", in.Index, in.Name, float64(in.TotalMem)/(1<<30))
	}
	return fmt.Sprintf("%s loaded; %d device(s): %s", cuda.LibName, len(infos), strings.Join(names, "; "))
}
