package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/spf13/cobra"

	"github.com/cuzk-project/cuzk/r1cs"
)

// checkOptions are the flags of `cuzk check`.
type checkOptions struct {
	request   string
	kind      string
	vanilla   string
	partition int
}

const checkLong = `Takes the request the daemon takes and checks it without parameters or a device: decodes it,
runs every check the daemon's planner runs (the request's fields against the vanilla proofs, and
the vanilla proofs themselves: for PoRep every path, column, label, encoding and the challenges
re-derived from the seed; for WinningPoSt and WindowPoSt every opening of tree R, comm_r and the
leaf challenges re-derived from the randomness; for SnapDeals every opening of the three trees,
the apex tree, the encoding under rho and the challenges re-derived from comm_r_new), then
synthesizes every unit the daemon would prove (a PoRep or SnapDeals partition, the one PoSt
circuit) witness-only, one at a time, checking each constraint as it is enforced (memory: one
unit's witness), and compares the public inputs the circuit allocated with those a verifier
derives from the request.

Per unit it prints the constraints, inputs, aux variables, whether all constraints hold, the
first row that does not, whether the public inputs match and the time. Exit 0 only when the
request is accepted and every unit checked is satisfied: it tells a bad vanilla proof from a bad
prover.

A non-interactive PoRep C1 is checked the same way (its challenges re-derived from comm_r alone,
every partition: 126 on 32 and 64 GiB); its C2 would be the SnarkPack aggregate of the partition
proofs, which check neither makes nor needs an SRS for.

  cuzk check --request req.json
  cuzk check --kind porep --vanilla c1.json --partition 3`

func newCheckCmd() *cobra.Command {
	o := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check (--request req.json | --kind porep --vanilla c1.json) [--partition K]",
		Short: "Check a request's vanilla proofs and the constraints of every partition, witness-only",
		Long:  checkLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.request, "request", "", "request file: protobuf JSON of cuzk.v1.SubmitProofRequest (any proof kind)")
	f.StringVar(&o.kind, "kind", "porep", "with --vanilla: the proof kind (porep)")
	f.StringVar(&o.vanilla, "vanilla", "", "vanilla proof file: a C1 JSON, or Curio's envelope of one")
	f.IntVar(&o.partition, "partition", -1, "check only partition (unit) K, from 0")
	return cmd
}

func (o *checkOptions) run(ctx context.Context, w io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.vanilla != "" {
		if family, err := proofFamily(o.kind); err != nil {
			return fmt.Errorf("--kind: %w", err)
		} else if family != kindPoRep {
			return fmt.Errorf("--kind %q: only porep vanilla proofs can be checked alone (give --request for the other kinds)", o.kind)
		}
	}
	req, err := loadRequest(o.request, o.vanilla)
	if refused := (refusedError{}); errors.As(err, &refused) {
		fmt.Fprintf(w, "request: cannot be decoded (the daemon refuses it): %v\n", refused.err)
		return exitError{1}
	}
	if err != nil {
		return err
	}
	u, err := unitsOf(&req)
	if err != nil {
		fmt.Fprintf(w, "vanilla proof: cannot be decoded: %v\n", err)
		return exitError{1}
	}
	fmt.Fprintln(w, "request: "+u.describe)
	// The daemon's own planner: the request checks and the vanilla
	// verification.
	plan, planErr := checkPlanner().Plan(ctx, &req)
	if planErr != nil {
		fmt.Fprintf(w, "request: REFUSED (as the daemon would refuse it): %v\n", planErr)
	} else {
		fmt.Fprintf(w, "request: accepted; vanilla proof verified (%s)\n", u.verified)
	}
	parts := make([]int, 0, u.n)
	switch {
	case o.partition >= u.n || o.partition < -1:
		return fmt.Errorf("--partition %d: the proof has partitions 0..%d", o.partition, u.n-1)
	case o.partition >= 0:
		parts = append(parts, o.partition)
	default:
		for k := range u.n {
			parts = append(parts, k)
		}
	}
	defer limitHeap(u.hint)()
	var want [][]fr.Element // the verifier's inputs, when the request was accepted
	if plan != nil && len(plan.PublicInputs) == u.n {
		want = plan.PublicInputs
	}
	bad := checkPartitions(ctx, w, u, parts, want)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	switch {
	case planErr == nil && bad == 0:
		fmt.Fprintf(w, "ok: %d of %d partitions checked, all satisfied\n", len(parts), u.n)
		return nil
	case bad > 0:
		fmt.Fprintf(w, "FAILED: %d of %d partitions checked are not satisfied\n", bad, len(parts))
	default:
		fmt.Fprintln(w, "FAILED: the request is refused")
	}
	return exitError{1}
}

// limitHeap sets a soft memory limit of the witness of one partition of
// shape hint, plus a quarter and 1 GiB, until the returned function
// restores the previous one. The witness is nearly all the live heap, and
// without a limit the collector lets the gadgets' garbage grow the heap
// to twice it (a 32 GiB partition: 8.3 GB peak for a 4.2 GB witness).
// GOMEMLIMIT, when set, is left alone.
func limitHeap(hint r1cs.Shape) (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	witness := int64(hint.Inputs+hint.Aux) * fr.Bytes
	prev := debug.SetMemoryLimit(witness + witness/4 + 1<<30)
	return func() { debug.SetMemoryLimit(prev) }
}

// checkPartitions checks the given units one after the other, prints a
// row for each as it ends, and returns how many failed.
func checkPartitions(ctx context.Context, w io.Writer, u *checkUnits, parts []int, want [][]fr.Element) (bad int) {
	fmt.Fprintf(w, "%-9s  %12s  %6s  %12s  %-9s  %13s  %-7s  %s\n",
		"PARTITION", "CONSTRAINTS", "INPUTS", "AUX", "SATISFIED", "FIRST BAD ROW", "INPUTS", "TIME")
	for _, k := range parts {
		var verifier []fr.Element
		if want != nil {
			verifier = want[k]
		}
		r := checkPartition(ctx, u, k, verifier)
		if r.err != nil {
			if errors.Is(r.err, context.Canceled) || errors.Is(r.err, context.DeadlineExceeded) {
				return bad
			}
			fmt.Fprintf(w, "%-9d  error: %v\n", k, r.err)
			bad++
			continue
		}
		first, sat := "-", "yes"
		if r.unsatisfied > 0 {
			first, sat = fmt.Sprint(r.first), fmt.Sprintf("NO (%d)", r.unsatisfied)
			bad++
		} else if r.inputs == "DIFFER" {
			bad++
		}
		fmt.Fprintf(w, "%-9d  %12d  %6d  %12d  %-9s  %13s  %-7s  %v\n", k, r.rows,
			r.numInputs, r.aux, sat, first, r.inputs, r.took.Round(time.Millisecond))
	}
	return bad
}

// partitionCheck is what checking one unit found; the witness is not
// kept, so that only one unit's is ever held.
type partitionCheck struct {
	rows, numInputs, aux int
	unsatisfied, first   int
	inputs               string // "match", "DIFFER", or "-" without the verifier's
	took                 time.Duration
	err                  error
}

// checkPartition synthesizes unit k into a Checker and compares its
// public inputs (ONE excluded) with the verifier's, when given.
func checkPartition(ctx context.Context, u *checkUnits, k int, verifier []fr.Element) partitionCheck {
	t0 := time.Now()
	c, err := u.circuit(ctx, k)
	if err != nil {
		return partitionCheck{err: err}
	}
	cs := r1cs.NewChecker(u.hint)
	if err := r1cs.Synthesize(cs, c); err != nil {
		return partitionCheck{err: err}
	}
	return partitionCheck{
		rows: cs.NumConstraints(), numInputs: cs.NumInputs(), aux: cs.NumAux(),
		unsatisfied: cs.Unsatisfied(), first: cs.FirstUnsatisfied(),
		inputs: compareInputs(cs.Input[1:], verifier), took: time.Since(t0),
	}
}

// compareInputs is "match" when the circuit's inputs are the verifier's,
// "DIFFER" when not, "-" without the verifier's.
func compareInputs(got, verifier []fr.Element) string {
	if verifier == nil {
		return "-"
	}
	if len(got) != len(verifier) {
		return "DIFFER"
	}
	for i := range got {
		if !got[i].Equal(&verifier[i]) {
			return "DIFFER"
		}
	}
	return "match"
}
