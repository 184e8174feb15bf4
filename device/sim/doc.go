// Package sim is a timed fake groth16.Device for engine tests and for
// showing the dual-worker interlock without a GPU.
//
// Prepare, Run and Finish sleep for configured durations and can be told to
// fail; Run reports the interval it occupied the "device" (the stand-in for
// KERNEL_START/END measured with CUDA events) and counts overlapping Runs,
// so a test can check that an engine's device lock really serializes them.
// The Sums it returns are deterministic functions of the assignment's
// inputs, not real MSMs: proofs assembled from them do not verify.
//
// It knows only groth16 (the Device interface it implements); nothing of
// the engine, its lock or its timeline: it reports its busy intervals
// through its Profile's Run report (Partial.KernelInterval) and
// Config.OnKernel.
package sim
