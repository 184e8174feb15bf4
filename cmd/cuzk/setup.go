package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/config"
	"github.com/cuzk-project/cuzk/device/cuda"
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
	device    string // cpu or cuda: the G1 fixed-base multiplications
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
proof) needs --kind. An existing file (a real one, maybe) is never replaced without --force
(which deletes it first, so that the disk holds one set at a time).

The .params is streamed to disk query by query. --device cuda computes its G1 points (ic, h,
l, a, b_g1) on the first GPU through libcuzk_cuda.so; B_G2 stays on the CPU, on all cores,
beside them. Progress is drawn on a terminal; a summary of the phases' times follows.

  cuzk setup --proof-type StackedDrg2KiBV1_1 --params-dir ./params
  cuzk setup --proof-type StackedDrgWinning2KiBV1 --params-dir ./params
  cuzk setup --proof-type StackedDrg2KiBV1 --kind snap --params-dir ./params
  cuzk setup --proof-type StackedDrg32GiBV1_1 --device cuda --params-dir /data/params`

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
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
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
	f.StringVar(&o.device, "device", "cpu", "where the G1 fixed-base multiplications run: cpu, or cuda (the first GPU)")
	return cmd
}

func (o *setupOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	c, err := o.circuit.build()
	if err != nil {
		return err
	}
	opts, closeDev, err := o.setupOptions()
	if err != nil {
		return err
	}
	defer closeDev()
	if ctx == nil {
		ctx = context.Background()
	}
	start := time.Now()
	var rep *groth16.SetupReport
	err = withSetupProgress(stderr, "setup "+o.out, &opts, func() error {
		var vk *groth16.VerifyingKey
		err := writeFileAt(o.out, func(f *os.File) (err error) {
			vk, rep, err = groth16.WriteSetup(ctx, f, c, []byte(o.setupSeed), opts)
			return err
		})
		if err != nil {
			return err
		}
		return groth16.WriteVerifyingKey(vkPath(o.out), vk)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s and %s in %v (dev parameters: not for production)\n",
		o.out, vkPath(o.out), time.Since(start).Round(time.Millisecond))
	printSetupReport(stdout, rep, o.device)
	return nil
}

// writeFileAt creates path and lets write fill it.
func writeFileAt(path string, write func(*os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// setupOptions opens the fixed-base device of --device; closeDev frees it.
func (o *setupOptions) setupOptions() (opts groth16.SetupOptions, closeDev func(), err error) {
	switch o.device {
	case "cpu":
		return groth16.SetupOptions{}, func() {}, nil
	case "cuda":
		d, err := cuda.New(0)
		if err != nil {
			return opts, nil, fmt.Errorf("--device cuda: %w (build the library with make cuda, or set CUZK_CUDA_LIB)", err)
		}
		// Chunks of 2^24 points: the library's own, 1.5 GiB of points each.
		return groth16.SetupOptions{FixedBase: d, Chunk: 1 << 24}, func() { d.Close() }, nil
	}
	return opts, nil, fmt.Errorf("--device %q: want cpu or cuda", o.device)
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
	opts, closeDev, err := o.setupOptions()
	if err != nil {
		return err
	}
	defer closeDev()
	start := time.Now()
	var path string
	var rep *groth16.SetupReport
	err = withSetupProgress(stderr, fmt.Sprintf("setup %s (%s)", c.id, c.paramsFile), &opts, func() (err error) {
		path, rep, err = circuits.SetupFilecoinWith(ctx, c.id, dir, o.force, nil, opts)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s and its .vk for %s (%s) in %v: DEVELOPMENT parameters, not for production\n",
		path, c.id, c.describe, time.Since(start).Round(time.Millisecond))
	printSetupReport(stdout, rep, o.device)
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
