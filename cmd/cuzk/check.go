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

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/circuits/porep"
	"github.com/cuzk-project/cuzk/filecoin/c1"
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
runs every check the daemon's planner runs (the request's fields against the C1, the vanilla
proof: every path, column, label, encoding, and the challenges re-derived from the seed), then
synthesizes every partition witness-only, one at a time, checking each constraint as it is
enforced (memory: one partition's witness), and compares the public inputs the circuit
allocated with those a verifier derives from the request.

Per partition it prints the constraints, inputs, aux variables, whether all constraints hold,
the first row that does not, whether the public inputs match and the time. Exit 0 only when the
request is accepted and every partition checked is satisfied: it tells a bad C1 from a bad prover.

  cuzk check --request req.json
  cuzk check --kind porep --vanilla c1.json --partition 3`

func newCheckCmd() *cobra.Command {
	o := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check (--request req.json | --kind porep --vanilla c1.json) [--partition K]",
		Short: "Check a request's vanilla proof and the constraints of every partition, witness-only",
		Long:  checkLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.request, "request", "", "request file: protobuf JSON of cuzk.v1.SubmitProofRequest")
	f.StringVar(&o.kind, "kind", "porep", "with --vanilla: the proof kind (porep)")
	f.StringVar(&o.vanilla, "vanilla", "", "vanilla proof file: a C1 JSON, or Curio's envelope of one")
	f.IntVar(&o.partition, "partition", -1, "check only partition K (from 0)")
	return cmd
}

func (o *checkOptions) run(ctx context.Context, w io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.vanilla != "" && o.kind != "porep" {
		return fmt.Errorf("--kind %q: only porep vanilla proofs can be checked", o.kind)
	}
	req, err := loadPoRepRequest(o.request, o.vanilla)
	if err != nil {
		return err
	}
	env, out, err := c1.DecodeEnvelopeOutput(req.VanillaProof)
	if err != nil {
		fmt.Fprintf(w, "vanilla proof: cannot be decoded: %v\n", err)
		return exitError{1}
	}
	info := out.Info()
	fmt.Fprintf(w, "request: %s (%s), sector %d, %d partitions × %d challenges\n",
		info.Name, info.CircuitID(), env.SectorNum, info.Partitions, info.Challenges)
	// The daemon's own planner: the request checks and c1.Verify.
	plan, planErr := circuits.New().Plan(ctx, &req)
	if planErr != nil {
		fmt.Fprintf(w, "request: REFUSED (as the daemon would refuse it): %v\n", planErr)
	} else {
		fmt.Fprintln(w, "request: accepted; vanilla proof verified (paths, columns, labels, encoding, challenges)")
	}
	parts := make([]int, 0, info.Partitions)
	switch {
	case o.partition >= info.Partitions || o.partition < -1:
		return fmt.Errorf("--partition %d: the proof has partitions 0..%d", o.partition, info.Partitions-1)
	case o.partition >= 0:
		parts = append(parts, o.partition)
	default:
		for k := range info.Partitions {
			parts = append(parts, k)
		}
	}
	hint, err := porep.ConfigFor(info).Shape()
	if err != nil {
		return err
	}
	defer limitHeap(hint)()
	var want [][]fr.Element // the verifier's inputs, when the request was accepted
	if plan != nil {
		want = plan.PublicInputs
	}
	bad := checkPartitions(ctx, w, out, parts, hint, want)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	switch {
	case planErr == nil && bad == 0:
		fmt.Fprintf(w, "ok: %d of %d partitions checked, all satisfied\n", len(parts), info.Partitions)
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

// checkPartitions checks the given partitions one after the other, prints
// a row for each as it ends, and returns how many failed.
func checkPartitions(ctx context.Context, w io.Writer, out *c1.Output, parts []int, hint r1cs.Shape, want [][]fr.Element) (bad int) {
	fmt.Fprintf(w, "%-9s  %12s  %6s  %12s  %-9s  %13s  %-7s  %s\n",
		"PARTITION", "CONSTRAINTS", "INPUTS", "AUX", "SATISFIED", "FIRST BAD ROW", "INPUTS", "TIME")
	for _, k := range parts {
		var verifier []fr.Element
		if want != nil {
			verifier = want[k]
		}
		r := checkPartition(ctx, out, k, hint, verifier)
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

// partitionCheck is what checking one partition found; the witness is
// not kept, so that only one partition's is ever held.
type partitionCheck struct {
	rows, numInputs, aux int
	unsatisfied, first   int
	inputs               string // "match", "DIFFER", or "-" without the verifier's
	took                 time.Duration
	err                  error
}

// checkPartition synthesizes partition k into a Checker and compares its
// public inputs (ONE excluded) with the verifier's, when given.
func checkPartition(ctx context.Context, out *c1.Output, k int, hint r1cs.Shape, verifier []fr.Element) partitionCheck {
	t0 := time.Now()
	p, err := porep.NewPartition(out, k)
	if err != nil {
		return partitionCheck{err: err}
	}
	p.Ctx = ctx
	cs := r1cs.NewChecker(hint)
	if err := r1cs.Synthesize(cs, p); err != nil {
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
