// Package engine owns jobs, the priority scheduler, the synthesis stage,
// the device workers and their lock, the proof assembler and cancellation.
// It knows circuits, parameters and devices only through interfaces it
// declares (Planner, ParamsSource, ParamsCache) and groth16.Device, whose
// Profile is everything the engine reads of a device beyond its three
// steps; the circuits registry, the srs cache and the device packages
// implement them.
//
// A request flows through one file per stage:
//
//   - submit.go: Submit validates the request, asks the Planner for a Plan
//     (N partition units, a circuit id, the verifier), sets its memory for
//     the devices and refuses what could never run (footprint.go), queues
//     the units and returns at once; a second Submit with the same
//     RequestID joins the job.
//   - admit.go: the synthesis queue (queue.go) orders units by (priority,
//     job sequence, partition): the key is unique, so no unit can displace
//     another. One dispatcher takes a free synthesis slot, the best unit,
//     the unit's parameters if it is its job's first unit to start
//     (admission, below), then the unit's memory reservation; a better unit
//     arriving while it waits for either goes first. One extra slot is
//     reserved for CRITICAL units, so a WinningPoSt never waits behind long
//     PoRep syntheses, and so is a memory headroom (Config.CriticalHeadroom),
//     so it never waits for PoRep units to give memory back.
//   - synthesize.go: a unit's synthesis, after which it enters the device
//     queue (same order).
//   - device.go: each device has WorkersPerDevice workers: Prepare
//     unlocked, Run under the device lock (devlock.go: handed to the best
//     waiting unit, not to whoever asks first), then a/b/c are released and
//     Finish runs off the worker loop so the worker prepares its next unit
//     while the other's kernels run. One more worker per device takes only
//     CRITICAL units: a WinningPoSt is prepared as soon as it is
//     synthesized, even while every other worker holds a PoRep unit, and
//     runs right after the Run in flight.
//   - finish.go: Finish's sums are randomized and encoded.
//   - deliver.go: the assembler (assembler.go) takes the partition proofs
//     in any order and rejects wrong sizes and duplicates. The last
//     partition triggers batch verification of the decoded bytes; only a
//     verified proof completes the job.
//   - end.go: every job ends there, exactly once (completed, failed,
//     cancelled, or rejected by its plan), and every unit retires there.
//
// So a WinningPoSt (CRITICAL by default) whose parameters are resident
// waits for bulk work at one place only: the device Run in flight when it
// reaches the lock (at 32 GiB a PoRep partition's Run is about 1.6 s on an
// H200). Everything else it waits for is its own work, and the CPU it
// shares with PoRep syntheses.
//
// Admission. A job acquires its parameters (ParamsSource.Acquire, which
// may load them and charge them to the budget) only when the dispatcher
// starts its first unit, so jobs are admitted one at a time in priority
// order, and holds them until its last unit retires (the source counts
// references; idle sets stay resident until the budget's evictor drops
// them). The acquisition runs on its own goroutine and the dispatcher
// waits for it, preemptible by a better unit like a memory wait; a cold
// load therefore holds up only worse units, which it would compete with
// for memory anyway. The rule that keeps this free of deadlock: nothing
// the dispatcher waits for may depend on work queued behind it. Memory
// comes back from units in flight, which finish without the budget, and
// from idle parameter sets, which the evictor drops; parameters held by a
// job that still has units queued come back only when those units run.
// So when a job's parameters, or its unit's reservation, cannot be had
// and no unit is in flight (the dispatcher polls the budget while a load
// waits in it), the dispatcher
//
//  1. evicts every idle parameter set through ParamsCache, whatever its
//     minimum idle time, and tries again if that freed anything;
//  2. makes a job that has started no unit give its parameters back (it
//     does so too when its first unit's memory wait is preempted: a job
//     waiting in the queue never holds parameters);
//  3. if another job holding parameters has units queued, sets the job
//     aside (parks its units) until some job gives its parameters back,
//     and serves that job: two circuits whose parameters cannot be
//     resident together run one after the other;
//  4. otherwise fails it with ErrNoMemory: its parameters and one unit
//     never fit.
//
// Preload loads outside this order, so it must not hold up what is in it:
// a Preload still waiting for memory once no unit is in flight gives up
// with ErrNoMemory (the budget's waiters are served in order, and the
// units behind it may be what frees the memory it waits for).
//
// While a job is parked, no job that would come after it is admitted (its
// units are parked too): otherwise a stream of lower-priority jobs sharing
// the admitted jobs' parameters would keep them held, and the parked job
// would wait for good.
//
// A failing unit fails its job once; the job's queued units are removed
// and its running units stop at their next stage boundary, each giving its
// memory back. Cancel does the same. Finished results stay for ResultTTL.
//
// Goroutines are owned by the Engine: the dispatcher, the device workers
// and the pruner run for its lifetime; parameter acquisition, per-unit
// synthesis, Finish and verification goroutines are short-lived. All are
// counted, and Close cancels and waits for every one.
//
// Dependencies. engine imports groth16, memory, timeline, and r1cs and
// r1cs/compiled for the types a plan carries (docs/architecture.md §6,
// which a test checks against the code), and nothing that implements its
// interfaces: it never names a circuit family, a
// parameter file format or a device. The circuits registry imports engine
// (Planner, Plan, Partition, Request, ErrInvalidRequest), not the other way
// round, because an interface is declared where it is consumed, as
// groth16.Device is declared in groth16 and implemented by device/*.
// The engine calls circuits at run time (Plan, Synthesize); the import
// edge points the other way and there is no loop. Adding the
// PoRep, PoSt and SnapDeals circuits therefore never touches this package,
// and circuits must stay free of scheduling, memory and devices: it only
// plans. cmd/cuzk wires the two together (as it wires srs through an
// adapter, so srs does not import engine either).
//
// Timeline events (timeline.Kind) are recorded when a job is accepted and
// answered (JOB_SUBMIT, JOB_DONE), around each unit's synthesis, when it
// enters the device queue and a worker takes it, around Prepare, at each
// step of the device lock (asked, held, freed), around the device kernels
// and around Finish. KERNEL_START/END come from the device when its
// Run report gives its kernels' interval (groth16.RunReport), otherwise
// from the host around Run.
package engine
