package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/config"
	"github.com/cuzk-project/cuzk/groth16"
)

// setupOptions are the flags of `cuzk setup`.
type setupOptions struct {
	circuit   circuitFlags
	out       string
	setupSeed string

	proofType string // a Filecoin circuit instead of the synthetic one
	kind      string
	paramsDir string
	force     bool
}

const setupLong = `Generates DEVELOPMENT Groth16 parameters with a trapdoor derived from a public seed: anyone can
forge proofs against them. They exist so that tests and benchmarks need no download.

For the synthetic family (--circuit synthetic, the default) it writes --out and the .vk beside it.

With --proof-type it builds the real partition circuit of that registered proof (a seal proof:
PoRep; a PoSt proof: WinningPoSt or WindowPoSt; an update proof: SnapDeals; every proof of one
family and sector size shares its circuit) and writes its parameters in the real layout under the
real file names (v28-stacked-proof-of-replication-…, v28-proof-of-spacetime-fallback-…,
v28-empty-sector-update-… .params and .vk), into --params-dir, else $FIL_PROOFS_PARAMETER_CACHE,
else /var/tmp/filecoin-proof-parameters: where a daemon, cuzk prove --request and cuzk verify
--public look for them. A name two families share (StackedDrg2KiBV1 is a seal and an update
proof) needs --kind. An existing file (a real one, maybe) is never replaced without --force.

  cuzk setup --proof-type StackedDrg2KiBV1_1 --params-dir ./params
  cuzk setup --proof-type StackedDrgWinning2KiBV1 --params-dir ./params
  cuzk setup --proof-type StackedDrg2KiBV1 --kind snap --params-dir ./params`

func newSetupCmd() *cobra.Command {
	o := &setupOptions{}
	cmd := &cobra.Command{
		Use:   "setup",
		Short: "Generate development parameters (.params and .vk) for a circuit; NOT for production",
		Long:  setupLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.proofType != "" {
				if err := notWith(cmd, "proof-type", "circuit", "constraints", "inputs", "seed", "out", "setup-seed"); err != nil {
					return err
				}
				return o.runFilecoin(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
			}
			if cmd.Flags().Changed("params-dir") || cmd.Flags().Changed("force") || cmd.Flags().Changed("kind") {
				return errors.New("--params-dir, --kind and --force go with --proof-type")
			}
			return o.run(cmd.OutOrStdout())
		},
	}
	o.circuit.register(cmd)
	f := cmd.Flags()
	f.StringVar(&o.out, "out", "dev.params", "output .params path (the .vk goes beside it)")
	f.StringVar(&o.setupSeed, "setup-seed", "cuzk-dev", "seed of the toxic waste (dev only)")
	f.StringVar(&o.proofType, "proof-type", "", "a registered seal, PoSt or update proof (e.g. StackedDrg2KiBV1_1, StackedDrgWindow2KiBV1_2): parameters of its circuit")
	f.StringVar(&o.kind, "kind", "", "with --proof-type: the family the name is looked up in (porep, winning-post, window-post, snap); needed only for a name two share")
	f.StringVar(&o.paramsDir, "params-dir", "", "with --proof-type: the parameter directory (default $FIL_PROOFS_PARAMETER_CACHE, else "+config.DefaultParamCache+")")
	f.BoolVar(&o.force, "force", false, "with --proof-type: replace existing parameter files")
	return cmd
}

func (o *setupOptions) run(w io.Writer) error {
	c, err := o.circuit.build()
	if err != nil {
		return err
	}
	start := time.Now()
	p, err := groth16.Setup(c, []byte(o.setupSeed))
	if err != nil {
		return err
	}
	if err := groth16.WriteParams(o.out, p); err != nil {
		return err
	}
	if err := groth16.WriteVerifyingKey(vkPath(o.out), &p.VK); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s and %s in %v (dev parameters: not for production)\n",
		o.out, vkPath(o.out), time.Since(start).Round(time.Millisecond))
	return nil
}

// runFilecoin writes the dev parameters of a Filecoin circuit under their
// real names.
func (o *setupOptions) runFilecoin(ctx context.Context, stdout, stderr io.Writer) error {
	c, err := circuitOfProof(o.proofType, o.kind)
	if err != nil {
		return err
	}
	dir := paramsDir(o.paramsDir)
	if ctx == nil {
		ctx = context.Background()
	}
	start := time.Now()
	stop := elapsedProgress(stderr, fmt.Sprintf("setup %s (%s)", c.id, c.paramsFile))
	path, err := circuits.SetupFilecoin(ctx, c.id, dir, o.force, nil)
	stop()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s and its .vk for %s (%s) in %v: DEVELOPMENT parameters, not for production\n",
		path, c.id, c.describe, time.Since(start).Round(time.Millisecond))
	return nil
}

// paramsDir is the --params-dir given, else the Filecoin parameter cache.
func paramsDir(flag string) string {
	if flag != "" {
		return flag
	}
	return config.ParamCacheDir()
}

// notWith refuses the named flags, those of the command's other mode,
// when mode's flag is given.
func notWith(cmd *cobra.Command, mode string, names ...string) error {
	for _, n := range names {
		if cmd.Flags().Changed(n) {
			return fmt.Errorf("--%s does not go with --%s", n, mode)
		}
	}
	return nil
}
