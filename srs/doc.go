// Package srs keeps Groth16 parameter sets (the SRS, up to ~44 GiB for a
// 32 GiB PoRep) resident by circuit id between proofs.
//
// An entry is loaded on first use through an injected Loader (by default
// groth16.ReadParams, which maps the file and decodes it in parallel),
// charged to the shared memory budget before it is decoded, and kept hot
// while anyone holds it or until the budget needs the room: idle entries are
// evicted least-recently-used first, and an entry with a non-zero reference
// count is never evicted. Concurrent first uses of one entry share a single
// load. A failed load is reported to everyone who waited for it. A load
// that failed for its circumstances (a context that ended, the budget) is
// not remembered: the next Acquire tries again. A file that failed its
// checks (malformed, a bad point, another circuit's header) marks its entry
// bad (ErrBadParams) until the file's size or modification time changes:
// until then every Acquire and Preload answers that error at once, and
// Bad lets an admission check refuse a job before it is queued.
//
// Tiers (the cuzk.v1 SRSStatus.Tier values): Hot is decoded in host memory;
// Cold is on disk only. Warm (mapped, not decoded) is not used: ReadParams
// keeps no mapping once it has decoded, so an entry is hot or cold.
//
// The package knows the memory budget and groth16 parameters; it knows
// nothing of the engine, circuits or devices.
package srs
