// Package config reads the daemon's TOML configuration (cuzk daemon
// --config cuzk.toml): defaults that work with no file, size and duration
// values written the way operators write them ("64GiB", "5m"), and
// Validate with errors that name the key. Key names follow the Rust cuzk
// where the meaning is the same, so an operator's habits carry over; a
// key this program does not know is an error naming it, never silently
// ignored.
//
// The package knows nothing of the engine or the server; cmd/cuzk turns
// a Config into their options.
package config
