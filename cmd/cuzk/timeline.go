package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cuzk-project/cuzk/timeline"
)

// timelineMaxBody bounds what `cuzk timeline --url` reads from a daemon.
const timelineMaxBody = 1 << 30

type timelineOptions struct {
	from, url              string
	csvOut, traceOut, html string
	quiet                  bool
	timeout                time.Duration
}

func newTimelineCmd() *cobra.Command {
	var o timelineOptions
	cmd := &cobra.Command{
		Use:   "timeline [--from file.csv | --url http://host:port/timeline] [--csv out.csv] [--trace out.json] [--html out.html]",
		Short: "Analyse a pipeline timeline: kernel vs lock utilization, gaps between kernels, cross-job stalls",
		Long: `Reads timeline events from a CSV file (written by a daemon or a bench run, or
"grep '^TIMELINE,' daemon.log") or from a running daemon's status listener
(GET /timeline), prints per device the kernel-level and lock-level
utilization side by side, the gap histogram (< 50 ms, 50–500 ms, > 500 ms),
the largest gaps with the events around them, the cross-job stalls and the
stage totals, and optionally exports the events as CSV, as Chrome trace JSON
(open it in ui.perfetto.dev) and as an HTML waterfall.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if o.from != "" {
					return errors.New("give the input file either as an argument or with --from, not both")
				}
				o.from = args[0]
			}
			return runTimeline(cmd.Context(), o, cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.from, "from", "", `CSV file of events ("-" for standard input)`)
	f.StringVar(&o.url, "url", "", "a daemon's timeline endpoint, e.g. http://127.0.0.1:9821/timeline (a bare host:port gets /timeline)")
	f.StringVar(&o.csvOut, "csv", "", "write the events as CSV to this file")
	f.StringVar(&o.traceOut, "trace", "", "write a Chrome trace JSON (Perfetto) to this file")
	f.StringVar(&o.html, "html", "", "write an HTML waterfall to this file")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "do not print the report")
	f.DurationVar(&o.timeout, "timeout", time.Minute, "time limit for fetching --url")
	return cmd
}

func runTimeline(ctx context.Context, o timelineOptions, stdin io.Reader, stdout io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	var (
		events []timeline.Event
		err    error
	)
	switch {
	case o.from != "" && o.url != "":
		return errors.New("give --from or --url, not both")
	case o.from == "-":
		events, err = timeline.ReadCSV(stdin)
		if err != nil {
			return fmt.Errorf("standard input: %w", err)
		}
	case o.from != "":
		events, err = readTimelineFile(o.from)
	case o.url != "":
		var dropped string
		events, dropped, err = fetchTimeline(ctx, o.url, o.timeout)
		if err == nil && dropped != "" && dropped != "0" && !o.quiet {
			fmt.Fprintf(stdout, "note: the daemon's ring dropped %s older events; early intervals may be unpaired\n", dropped)
		}
	default:
		return errors.New("no events: give --from file.csv or --url http://host:port/timeline")
	}
	if err != nil {
		return err
	}

	for _, out := range []struct {
		path  string
		write func(io.Writer, []timeline.Event) error
	}{
		{o.csvOut, timeline.WriteCSV},
		{o.traceOut, timeline.WriteTrace},
		{o.html, timeline.WriteHTML},
	} {
		if out.path == "" {
			continue
		}
		if err := writeTimelineFile(out.path, events, out.write); err != nil {
			return err
		}
	}
	if o.quiet {
		return nil
	}
	return timeline.Analyze(events).WriteText(stdout)
}

func readTimelineFile(path string) ([]timeline.Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	events, err := timeline.ReadCSV(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return events, nil
}

// timelineURL accepts a full URL or a bare host:port.
func timelineURL(raw string) (string, error) {
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("--url %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("--url %q: want an http or https URL", raw)
	}
	if u.Host == "" {
		return "", fmt.Errorf("--url %q: no host", raw)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/timeline"
	}
	return u.String(), nil
}

func fetchTimeline(ctx context.Context, raw string, timeout time.Duration) (events []timeline.Event, dropped string, err error) {
	u, err := timelineURL(raw)
	if err != nil {
		return nil, "", err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, "", fmt.Errorf("fetch timeline: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, "", fmt.Errorf("fetch timeline: %s: %s: %s", u, resp.Status, strings.TrimSpace(string(msg)))
	}
	events, err = timeline.ReadCSV(io.LimitReader(resp.Body, timelineMaxBody))
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", u, err)
	}
	return events, resp.Header.Get(timeline.DroppedHeader), nil
}

func writeTimelineFile(path string, events []timeline.Event, write func(io.Writer, []timeline.Event) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f, events); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}
