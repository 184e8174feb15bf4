// Package engine owns jobs, the priority scheduler, the synthesis stage,
// the device workers and their lock, the proof assembler and cancellation.
// It knows circuits, parameters and devices only through interfaces it
// declares (Planner, ParamsSource, ParamsCache) and groth16.Device; the
// circuits registry, the srs cache and the device packages implement them.
//
// A request flows as follows (ARCHITECTURE.md §2):
//
//   - Submit checks the request, asks the Planner for a Plan (N partition
//     units, a circuit id, the verifier) and returns at once; a second
//     Submit with the same RequestID joins the job. A goroutine per job
//     acquires its parameters (a slow load never blocks other jobs).
//   - The synthesis queue orders units by (priority, job sequence,
//     partition): the key is unique, so no unit can displace another. One
//     dispatcher takes a free synthesis slot, the best unit, then that
//     unit's memory reservation; a better unit arriving while it waits for
//     memory takes the reservation first. A unit that cannot fit while no
//     unit is in flight to give memory back (parameters of admitted jobs
//     hold the budget) fails its job with ErrNoMemory rather than stall
//     the dispatcher for good. One extra slot is reserved for
//     CRITICAL units, so a WinningPoSt never waits behind long PoRep
//     syntheses.
//   - Synthesized units enter the device queue (same order). Each device
//     has WorkersPerDevice workers: Prepare unlocked, Run under the device
//     lock (handed to the best waiting unit, not to whoever asks first),
//     then a/b/c are released and Finish runs off the worker loop so the
//     worker prepares its next unit while the other's kernels run.
//   - Finish's sums are randomized and encoded; the assembler takes the
//     partition proofs in any order and rejects wrong sizes and duplicates.
//     The last partition triggers batch verification of the decoded bytes;
//     only a verified proof completes the job.
//
// A failing unit fails its job once; the job's queued units are removed
// and its running units stop at their next stage boundary, each giving its
// memory back. Cancel does the same. Finished results stay for ResultTTL.
//
// Goroutines are owned by the Engine: the dispatcher, the device workers
// and the pruner run for its lifetime; per-job admission, per-unit
// synthesis, Finish and verification goroutines are short-lived. All are
// counted, and Close cancels and waits for every one.
//
// Dependencies. engine imports groth16, memory and timeline, and nothing
// that implements its interfaces: it never names a circuit family, a
// parameter file format or a device. The circuits registry imports engine
// (Planner, Plan, Partition, Request, ErrInvalidRequest), not the other way
// round, because an interface is declared where it is consumed, as
// groth16.Device is declared in groth16 and implemented by device/*.
// ARCHITECTURE.md's "engine → circuits" is the run-time call direction;
// the import edge points the other way and there is no loop. Adding the
// PoRep, PoSt and SnapDeals circuits therefore never touches this package,
// and circuits must stay free of scheduling, memory and devices: it only
// plans. cmd/cuzk wires the two together (as it wires srs through an
// adapter, so srs does not import engine either).
//
// Timeline events (timeline.Kind) are recorded at the points of
// ARCHITECTURE.md §5; KERNEL_START/END come from the device when its
// Partial implements KernelTimed, otherwise from the host around Run.
package engine
