package cluster

import (
	"github.com/cuzk-project/cuzk/engine"
)

// JobKind is the River job kind of a proof request.
const JobKind = "cuzk_proof"

// ProofArgs are a River job's arguments: what a worker needs to find the
// request's payload and check it. The content itself is in cuzk_payload.
type ProofArgs struct {
	RequestID string           `json:"request_id"`
	Proof     engine.ProofKind `json:"kind"`
	Priority  engine.Priority  `json:"priority"` // never Unspecified
	SHA256    []byte           `json:"sha256"`   // of the payload
	Size      int              `json:"size"`     // of the payload, bytes
}

// Kind is the River job kind.
func (ProofArgs) Kind() string { return JobKind }

// riverPriority maps an engine priority onto River's, where 1 is served
// first: CRITICAL → 1, HIGH → 2, NORMAL → 3, LOW → 4.
func riverPriority(p engine.Priority) int {
	switch p {
	case engine.PriorityCritical:
		return 1
	case engine.PriorityHigh:
		return 2
	case engine.PriorityLow:
		return 4
	}
	return 3
}

// enginePriority is riverPriority's inverse.
func enginePriority(p int) engine.Priority {
	switch p {
	case 1:
		return engine.PriorityCritical
	case 2:
		return engine.PriorityHigh
	case 4:
		return engine.PriorityLow
	}
	return engine.PriorityNormal
}

// ParseKind returns the proof kind spelled name: its name as
// engine.ProofKind.String returns it ("porep-c2", "snap-update",
// "window-post", "winning-post"), its proto name or an older alias
// (engine.ParseKind).
func ParseKind(name string) (engine.ProofKind, bool) { return engine.ParseKind(name) }
