// Package client is a Go client of the cuzk.v1 ProvingEngine API, used by
// the cuzk CLI (status, metrics, cancel, preload, evict, bench) and usable
// by any Go program. It behaves like Curio's lib/cuzk client: lazy
// connection, insecure transport (a local unix socket or a trusted
// network), 256 MiB message limits, and a bare host:port dialled as
// dns:///host:port. It knows nothing of the engine.
package client
