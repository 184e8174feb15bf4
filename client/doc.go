// Package client is a Go client of the cuzk.v1 ProvingEngine API, used by
// the cuzk CLI (status, metrics, cancel, preload, evict, bench) and usable
// by any Go program. It behaves like Curio's lib/cuzk client: lazy
// connection, insecure transport by default (a local unix socket or a
// trusted network), 256 MiB message limits, and a bare host:port dialled
// as dns:///host:port. For a daemon's TCP listener it adds TLS
// (WithTLS, TLSConfig), tokens (WithToken), and for a plaintext client an
// error that says when the listener speaks TLS (WithPlaintextCheck). It
// knows nothing of the engine.
package client
