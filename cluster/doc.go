// Package cluster runs many daemons on one job queue in PostgreSQL, with
// River (github.com/riverqueue/river) as the queue.
//
// A daemon in cluster mode is a frontend and, with a device, a worker.
// As a frontend, Cluster answers SubmitProof, Prove, AwaitProof and
// CancelProof (it has the server's Engine methods): a request becomes a
// River job of kind "cuzk_proof", unique by its request id, so that any
// daemon finds it again and Curio's unchanged client may point at any of
// them. As a worker, River claims jobs of the queue into the local engine,
// by priority (CRITICAL → River priority 1 … LOW → 4), never more at once
// than the daemon's capacity, and a cancelled job's context ends its local
// job.
//
// Three tables sit beside River's:
//
//   - cuzk_request: one row per request id: the content hash, the River job,
//     and the result once there is one (the proof, ≤ a few KiB, or the
//     error). The first result written is the only one: a later attempt
//     finds it and proves nothing, so a proof is never delivered twice with
//     different bytes (Groth16 proofs are randomized). Kept for the result
//     TTL after the job ends.
//   - cuzk_payload: the request's content (the vanilla proofs: a 32 GiB C1
//     is ≈ 50 MB), apart from River's JSON arguments, with its sha256, which
//     the worker checks. Deleted when the job ends.
//   - cuzk_worker: each daemon's heartbeat, capacity and running jobs, for
//     the status.
//
// A worker that dies mid-job stops heartbeating; after DeadAfter any
// daemon puts its running jobs back into the queue, and any worker proves
// them. River's rescuer is the fallback: it returns a job that has run
// longer than its kind's timeout (seconds for WinningPoSt, an hour for
// PoRep), which also bounds an attempt on a live worker. A job that fails
// MaxAttempts times is discarded and its last error is the waiter's result.
// Waiters learn of results through a PostgreSQL notification, and poll as a
// fallback.
//
// An unreachable database (a restart, a failover, the network) is waited
// out: a statement that failed for it is tried again with backoff, a
// frontend call for up to Options.RideOut (then an error wrapping
// engine.ErrUnavailable), a worker's writes of its results until the
// database answers. Unreachable and the status say how long it has been
// down. Options.Planner, when set, checks requests at Submit as a worker's
// engine will, so that a malformed one is refused before it is queued.
//
// Latency-critical kinds (LocalKinds, WinningPoSt by default) never enter
// the queue on a daemon with a worker: they go straight into its engine,
// and only that daemon knows them.
//
// The package knows the engine's request and result types and River; it
// knows nothing of gRPC, of configuration files or of devices.
package cluster
