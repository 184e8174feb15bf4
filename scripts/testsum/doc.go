// Command testsum turns the JSON event stream of `go test -json` (read on
// standard input) into the short log that scripts/test prints: one line per
// package as it finishes, the output of each failing test and package, a
// line every few minutes naming what is still running, and a closing count.
// It exits 1 when any package failed or did not build, so that a shell
// pipeline fails with the tests.
//
// It knows only the test2json event format (go doc cmd/test2json) and the
// build events of `go help buildjson`; lines that are not JSON events
// (stderr merged in, a go command's own message) are copied through as
// they are.
package main
