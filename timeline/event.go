package timeline

import "time"

// Kind is one of the events a job's pipeline records: job accepted and
// answered, synthesis, device queue and pickup, Prepare, the device lock
// (asked, held, freed), the device kernels and Finish.
type Kind uint8

const (
	JobSubmit Kind = iota + 1
	JobDone
	SynthStart
	SynthEnd
	DevQueue
	DevPickup
	PrepStart
	PrepEnd
	LockWait
	LockHeld
	LockFree
	KernelStart // timed on the device (CUDA events), not the host
	KernelEnd
	FinishStart
	FinishEnd
)

var kindNames = [...]string{
	JobSubmit: "JOB_SUBMIT", JobDone: "JOB_DONE",
	SynthStart: "SYNTH_START", SynthEnd: "SYNTH_END",
	DevQueue: "DEV_QUEUE", DevPickup: "DEV_PICKUP",
	PrepStart: "PREP_START", PrepEnd: "PREP_END",
	LockWait: "LOCK_WAIT", LockHeld: "LOCK_HELD", LockFree: "LOCK_FREE",
	KernelStart: "KERNEL_START", KernelEnd: "KERNEL_END",
	FinishStart: "FINISH_START", FinishEnd: "FINISH_END",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "UNKNOWN"
}

// Event is one timeline entry. At is the offset from the recorder's start
// on the monotonic clock. Partition, Worker and Device are -1 when unset.
type Event struct {
	At        time.Duration
	Kind      Kind
	Job       string
	Partition int
	Worker    int
	Device    int
}
