package config

import (
	"strconv"
	"strings"
	"testing"

	"github.com/cuzk-project/cuzk/engine"
)

func TestClusterValidate(t *testing.T) {
	for _, c := range []struct {
		name, toml, want string // want "" = valid
	}{
		{"off by default", ``, ""},
		{"off ignores the rest", "[cluster]\nqueue = \"\"", ""},
		{"on", "[cluster]\nenabled = true\ndatabase_url = \"postgres://u@db/cuzk\"", ""},
		{"key=value url", "[cluster]\nenabled = true\ndatabase_url = \"host=/run/postgresql dbname=cuzk\"", ""},
		{"frontend", "[cluster]\nenabled = true\nworker = false\ndatabase_url = \"postgres://db/c\"\nlocal_kinds = []", ""},
		{"no url", "[cluster]\nenabled = true", "cluster.database_url"},
		{"bad url", "[cluster]\nenabled = true\ndatabase_url = \"postgres://u:p@db:port/x\"", "cluster.database_url"},
		{"no queue", "[cluster]\nenabled = true\ndatabase_url = \"postgres://db/c\"\nqueue = \"\"", "cluster.queue"},
		{"negative capacity", "[cluster]\nenabled = true\ndatabase_url = \"postgres://db/c\"\ncapacity = -1", "cluster.capacity"},
		{"unknown kind", "[cluster]\nenabled = true\ndatabase_url = \"postgres://db/c\"\nlocal_kinds = [\"winnin\"]", "cluster.local_kinds"},
		{"no attempts", "[cluster]\nenabled = true\ndatabase_url = \"postgres://db/c\"\nmax_attempts = 0", "cluster.max_attempts"},
		{"zero poll", "[cluster]\nenabled = true\ndatabase_url = \"postgres://db/c\"\npoll_interval = \"0s\"", "cluster.poll_interval"},
		{"zero timeout", "[cluster]\nenabled = true\ndatabase_url = \"postgres://db/c\"\n[cluster.timeouts]\nwinning_post = \"0s\"", "cluster.timeouts.winning_post"},
		{"routes and queues", "[cluster]\nenabled = true\ndatabase_url = \"postgres://db/c\"\nroutes = {porep-c2 = \"porep\"}\nqueues = {porep = 1, cuzk = 0}", ""},
		{"route of no kind", "[cluster]\nenabled = true\ndatabase_url = \"postgres://db/c\"\nroutes = {porep-c1 = \"porep\"}", "cluster.routes"},
		{"a kind routed twice", "[cluster]\nenabled = true\ndatabase_url = \"postgres://db/c\"\nroutes = {porep = \"a\", porep-c2 = \"b\"}", `"porep" and "porep-c2" are both porep-c2`},
		{"route to no queue", "[cluster]\nenabled = true\ndatabase_url = \"postgres://db/c\"\nroutes = {porep-c2 = \"\"}", "cluster.routes"},
		{"negative queue capacity", "[cluster]\nenabled = true\ndatabase_url = \"postgres://db/c\"\nqueues = {porep = -1}", "cluster.queues"},
		{"dead_after too short", "[cluster]\nenabled = true\ndatabase_url = \"postgres://db/c\"\ndead_after = \"5s\"", "cluster.dead_after"},
		{"unknown key", "[cluster]\nenable = true", "cluster.enable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.toml))
			switch {
			case c.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("error %v, want one naming %s", err, c.want)
			}
			if err != nil && strings.Contains(err.Error(), ":p@") {
				t.Errorf("the error shows the password: %v", err)
			}
		})
	}
}

// TestClusterKindSpellings: routes and local_kinds take every spelling of
// every kind in engine's table, and refuse junk with an error that names
// the key, quotes the input and lists the kinds' names.
func TestClusterKindSpellings(t *testing.T) {
	for _, k := range engine.Kinds() {
		for _, s := range append([]string{k.Name, k.Proto}, k.Aliases...) {
			for _, key := range []string{"routes = {" + strconv.Quote(s) + " = \"q\"}", "local_kinds = [" + strconv.Quote(s) + "]"} {
				toml := "[cluster]\nenabled = true\ndatabase_url = \"postgres://db/c\"\n" + key
				if _, err := Parse([]byte(toml)); err != nil {
					t.Errorf("%s (%s): %v", key, k.Name, err)
				}
			}
		}
	}
	for _, tc := range []struct{ key, toml string }{
		{"cluster.routes", "routes = {junk = \"q\"}"},
		{"cluster.local_kinds", "local_kinds = [\"junk\"]"},
	} {
		_, err := Parse([]byte("[cluster]\nenabled = true\ndatabase_url = \"postgres://db/c\"\n" + tc.toml))
		if err == nil {
			t.Errorf("%s: junk accepted", tc.toml)
			continue
		}
		for _, want := range []string{tc.key, `"junk"`, "porep-c2, snap-update, window-post, winning-post"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q does not say %s", tc.toml, err, want)
			}
		}
	}
}
