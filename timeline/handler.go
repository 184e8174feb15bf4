package timeline

import (
	"net/http"
	"strconv"
)

// DroppedHeader carries Recorder.Dropped in Handler's responses: events
// older than the ring's capacity, missing from the body.
const DroppedHeader = "X-Timeline-Dropped"

// Handler serves rec's events over HTTP, for a daemon's status listener
// (mount it at /timeline). GET returns the CSV of WriteCSV, which
// `cuzk timeline --url` reads; ?format=trace returns Chrome trace JSON,
// ?format=html the waterfall page, ?format=text the analysis report.
func Handler(rec *Recorder) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "timeline: method not allowed", http.StatusMethodNotAllowed)
			return
		}
		events := rec.Events()
		w.Header().Set(DroppedHeader, strconv.FormatUint(rec.Dropped(), 10))
		var err error
		switch f := r.URL.Query().Get("format"); f {
		case "", "csv":
			w.Header().Set("Content-Type", "text/csv; charset=utf-8")
			err = WriteCSV(w, events)
		case "trace", "json":
			w.Header().Set("Content-Type", "application/json")
			err = WriteTrace(w, events)
		case "html":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			err = WriteHTML(w, events)
		case "text":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			err = Analyze(events).WriteText(w)
		default:
			http.Error(w, "timeline: unknown format "+quote(f)+" (want csv, trace, html or text)", http.StatusBadRequest)
			return
		}
		_ = err // the client went away; nothing useful to send it
	})
}

func quote(s string) string {
	if len(s) > 32 {
		s = s[:32] + "…"
	}
	return strconv.Quote(s)
}
