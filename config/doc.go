// Package config reads the daemon's TOML configuration (cuzk daemon
// --config cuzk.toml): defaults that work with no file, size and duration
// values written the way operators write them ("64GiB", "5m"), and
// Validate with errors that name the key. Key names follow the Rust cuzk
// where the meaning is the same, so an operator's habits carry over; a
// key this program does not know is an error naming it, never silently
// ignored.
//
// Of the engine it knows only the proof kinds' names (engine.ParseKind),
// so that a kind is spelled alike in the configuration, the flags and the
// wire protocol; nothing of the server. cmd/cuzk turns a Config into
// their options.
package config
