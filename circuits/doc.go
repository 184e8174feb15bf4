// Package circuits is the circuit registry: it turns a proof request into
// an engine.Plan — the parameter set (circuit id), one unit per partition
// with its synthesizer and memory estimate, the public inputs a verifier
// derives from the request, and the batch verifier.
//
// A POREP_SEAL_COMMIT request carries Curio's envelope around a C1
// output (filecoin/c1). Plan decodes it, checks the request's fields against
// it, verifies the vanilla proof, and plans one circuits/porep partition per
// partition of the seal proof, with the public inputs computed from the
// seal's public data (porep.Seal) and the circuit id of its sector size
// ("porep-32g"). WinningPoSt and WindowPoSt requests (one bincode vanilla
// proof per sector) plan one circuits/post unit, SnapDeals requests (one
// bincode partition proof each) one circuits/update unit per partition, each
// verified and with inputs derived from the request's public fields.
// A non-interactive PoRep plans its partitions the same way and a
// Plan.Finalize that aggregates them (SnarkPack V2, with the SRS set by
// SetAggregationSRS; without one it is refused with engine.ErrParamsMissing).
//
// Every proof kind also accepts a synthetic job descriptor as its vanilla
// proof,
//
//	{"synthetic":{"constraints":16384,"partitions":10,"seed":7}}
//
// and proves that many partitions of the circuits/synthetic family through
// the same path a PoRep job takes (a daemon accepts them only with --dev).
//
// The package owns the mapping from a request to its partitions and
// verifier, and nothing after it: it never schedules, reserves memory or
// touches a device (the engine does), and it uses the engine package only
// for the plan types and sentinel errors the engine's Planner interface is
// declared with (see engine's package documentation).
//
// DevParams provides parameters for synthetic circuit ids: generated once
// with the development setup and cached on disk. FilecoinFiles finds the
// parameter files of Filecoin circuit ids under their real names, and with
// Dev generates development ones there (SetupFilecoin). Development
// parameters are for tests and benchmarks only; real ones come from the
// Filecoin trusted setup.
package circuits
