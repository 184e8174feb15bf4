// Package memory owns the byte budget that covers everything a proving
// engine holds in host memory: resident parameters (the srs package),
// synthesized assignments and staging buffers.
//
// A caller reserves its estimated footprint before it allocates and gives
// it back in steps as it frees (a unit releases its a/b/c share after the
// device Run and the rest after Finish). When the budget is full, Reserve
// first asks the evictor (installed by the parameter cache) to free idle
// entries, then waits in arrival order. The sum of live reservations never
// exceeds the limit.
//
// HeapLimit holds the Go collector's memory limit to the budget less what
// the budget counts outside the Go heap.
//
// The package knows nothing of the engine, parameters or devices.
package memory
