// Package circuits is the circuit registry: it turns a proof request into
// an engine.Plan — the parameter set (circuit id), one unit per partition
// with its synthesizer and memory estimate, the public inputs a verifier
// derives from the request, and the batch verifier.
//
// Until the Filecoin circuits land, every proof kind accepts a synthetic
// job descriptor as its vanilla proof,
//
//	{"synthetic":{"constraints":16384,"partitions":10,"seed":7}}
//
// and proves that many partitions of the circuits/synthetic family through
// the same path a PoRep job takes. Real PoRep, PoSt and SnapDeals vanilla
// proofs are rejected with engine.ErrInvalidRequest ("not supported yet").
//
// The package owns the mapping from a request to its partitions and
// verifier, and nothing after it: it never schedules, reserves memory or
// touches a device (the engine does), and it uses the engine package only
// for the plan types and sentinel errors the engine's Planner interface is
// declared with (see engine's package documentation).
//
// DevParams provides parameters for synthetic circuit ids: generated once
// with the development setup and cached on disk. They are for tests and
// benchmarks only; real parameters come from the trusted setup (srs).
package circuits
