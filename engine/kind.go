package engine

import (
	"fmt"
	"slices"
	"strings"
)

// KindNames is one proof kind's names in every layer that spells it.
type KindNames struct {
	Kind ProofKind
	// Proto is the cuzk.v1.ProofKind enum value's name, fixed by the
	// wire protocol ("POREP_SEAL_COMMIT").
	Proto string
	// Name is how the daemon spells the kind everywhere else: its CLI
	// flags, its configuration, the status and the metrics' kind label
	// ("porep-c2"); ProofKind.String returns it.
	Name string
	// Aliases are older spellings still accepted on input (ParseKind):
	// configuration files and scripts written before the names were
	// one.
	Aliases []string
	// Priority is the kind's priority when a request leaves it
	// unspecified: a missed WinningPoSt loses a block reward, a late
	// WindowPoSt a fault, a late PoRep only time.
	Priority Priority
}

// kinds is the table of proof kinds, in ProofKind order.
var kinds = [...]KindNames{
	{KindPoRepSealCommit, "POREP_SEAL_COMMIT", "porep-c2", []string{"porep", "porep_c2", "c2"}, PriorityNormal},
	{KindSnapDealsUpdate, "SNAP_DEALS_UPDATE", "snap-update", []string{"snap", "snap_update", "snapdeals"}, PriorityNormal},
	{KindWindowPoStPartition, "WINDOW_POST_PARTITION", "window-post", []string{"wpost", "window_post", "windowpost"}, PriorityHigh},
	{KindWinningPoSt, "WINNING_POST", "winning-post", []string{"winning", "winning_post", "winningpost"}, PriorityCritical},
}

// Kinds lists every proof kind a request may ask for, in ProofKind order.
func Kinds() []KindNames { return slices.Clone(kinds[:]) }

// KindsByPriority lists the proof kinds by their default priority,
// CRITICAL first, in ProofKind order within a priority: the order of the
// status's queues.
func KindsByPriority() []ProofKind {
	out := make([]ProofKind, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, k.Kind)
	}
	slices.SortStableFunc(out, func(a, b ProofKind) int { return int(DefaultPriority(b)) - int(DefaultPriority(a)) })
	return out
}

// names is k's row of the table, false for a value outside it.
func (k ProofKind) names() (KindNames, bool) {
	i := int(k) - 1
	if i < 0 || i >= len(kinds) {
		return KindNames{}, false
	}
	return kinds[i], true
}

// Valid reports whether k is a proof kind a request may ask for.
func (k ProofKind) Valid() bool {
	_, ok := k.names()
	return ok
}

// String is the kind's name (KindNames.Name), "unspecified" outside the
// table.
func (k ProofKind) String() string {
	if n, ok := k.names(); ok {
		return n.Name
	}
	return "unspecified"
}

// ParseKind returns the proof kind spelled s: its name, its proto name or
// one of its aliases, in any case, "-" and "_" alike.
func ParseKind(s string) (ProofKind, bool) {
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-") }
	want := norm(s)
	for _, k := range kinds {
		if norm(k.Name) == want || norm(k.Proto) == want {
			return k.Kind, true
		}
		for _, a := range k.Aliases {
			if norm(a) == want {
				return k.Kind, true
			}
		}
	}
	return KindUnspecified, false
}

// LookupKind is ParseKind with an error for a spelling it does not know,
// listing the kinds' names.
func LookupKind(s string) (ProofKind, error) {
	if k, ok := ParseKind(s); ok {
		return k, nil
	}
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.Name
	}
	return KindUnspecified, fmt.Errorf("%q is not a proof kind: want one of %s (or an older alias of one)", s, strings.Join(names, ", "))
}

// DefaultPriority is a kind's priority when a request leaves it
// unspecified (KindNames.Priority); NORMAL outside the table.
func DefaultPriority(k ProofKind) Priority {
	if n, ok := k.names(); ok {
		return n.Priority
	}
	return PriorityNormal
}
