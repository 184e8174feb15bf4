// Package server serves the cuzk.v1 ProvingEngine gRPC API (wire-compatible
// with Curio's lib/cuzk client), Prometheus /metrics and a /status JSON
// page over HTTP.
//
// It owns the listeners (unix socket and TCP), who may call what on them
// (tokens of the auth package on TCP, TLS, a connection limit, request
// memory), request validation at the API edge, the mapping of engine
// errors onto gRPC codes, the metrics registry and graceful shutdown. It consumes the proving engine only
// through the Engine interface declared here, so it knows nothing of
// scheduling, devices or circuits, and it is tested against a fake.
package server
