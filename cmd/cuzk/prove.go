package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/config"
	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/memory"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// proveOptions are the flags of `cuzk prove`.
type proveOptions struct {
	circuit circuitFlags
	params  string
	out     string
	checked bool

	request   string // a Filecoin request instead of the synthetic circuit
	public    string
	devSRS    bool // --public of a non-interactive PoRep: its aggregate checked with the development SRS
	paramsDir string
	device    string
	budgetGiB float64
	remote    opsFlags // --addr: through a daemon
}

const proveLong = `Proves in process, without a daemon.

For the synthetic family (--circuit synthetic, the default) it proves with --params on the CPU
device and writes the proof and its public inputs (<out>.inputs.json).

With --request it proves a request file (cuzk gen-vanilla … --out, or any request in protobuf
JSON: PoRep C2, WinningPoSt, a WindowPoSt partition, SnapDeals) through the embedded engine
exactly as the daemon would: the same checks, the same units (one per PoRep or SnapDeals
partition, one PoSt circuit), the proof verified before it is written (192 bytes per partition).
The parameters are read under their real names from --params-dir, else
$FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters (cuzk setup --proof-type
makes development ones). With --public FILE.json (the public data cuzk gen-vanilla --public
wrote) it also fills the file's proof, after checking the proof against it; a WindowPoSt
partition's proof goes into its partition's 192 bytes of the deadline's ProofBytes.

With --addr the request goes to a running daemon instead (unix:///path, or host:port with
--token and --cacert as every client command): the daemon proves and verifies it, the proof is
written, and --public is filled after checking the proof with --params-dir's verifying key.
A non-interactive PoRep's proof is its partitions' aggregate, checked with the SnarkPack SRS of
--params-dir (--dev-srs: the development one a --dev daemon aggregates with when it has no SRS
file; never for mainnet).

  cuzk prove --request req.json --out proof.bin --public seal.json --params-dir ./params
  cuzk prove --addr unix:///tmp/cuzk.sock --request req.json --out proof.bin --public seal.json`

func newProveCmd() *cobra.Command {
	o := &proveOptions{}
	cmd := &cobra.Command{
		Use:   "prove",
		Short: "Prove a synthetic circuit, or a Filecoin request, in process and write the proof",
		Long:  proveLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.request != "" {
				if err := notWith(cmd, "request", "circuit", "constraints", "inputs", "seed", "params", "checked"); err != nil {
					return err
				}
				if o.devSRS && o.public == "" {
					return fmt.Errorf("--dev-srs goes with --public (it checks a non-interactive PoRep's aggregate before the file is filled)")
				}
				if o.remote.addr != "" {
					if err := notWith(cmd, "addr", "device", "budget"); err != nil {
						return err
					}
					return o.runRemote(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
				}
				return o.runRequest(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
			}
			for _, n := range []string{"public", "dev-srs", "params-dir", "device", "budget", "addr"} {
				if cmd.Flags().Changed(n) {
					return fmt.Errorf("--%s goes with --request", n)
				}
			}
			return o.run(cmd.Context(), cmd.OutOrStdout())
		},
	}
	o.circuit.register(cmd)
	f := cmd.Flags()
	f.StringVar(&o.params, "params", "dev.params", ".params file")
	f.StringVar(&o.out, "out", "proof.bin", "output proof path (synthetic: inputs go to <name>.inputs.json)")
	f.BoolVar(&o.checked, "checked", false, "subgroup-check every parameter point while loading")
	f.StringVar(&o.request, "request", "", "a request file (protobuf JSON of cuzk.v1.SubmitProofRequest)")
	f.StringVar(&o.public, "public", "", "with --request: public data JSON whose proof to fill (SealVerifyInfo, Winning/WindowPoStVerifyInfo, ReplicaUpdateInfo)")
	f.BoolVar(&o.devSRS, "dev-srs", false, "with --public of a non-interactive PoRep: check its aggregate with the development SnarkPack SRS a --dev daemon uses without an SRS file (never for mainnet)")
	f.StringVar(&o.paramsDir, "params-dir", "", "with --request: the parameter directory (default $FIL_PROOFS_PARAMETER_CACHE, else "+config.DefaultParamCache+")")
	f.StringVar(&o.device, "device", "cpu", "with --request: cpu, or cuda (every visible GPU)")
	f.Float64Var(&o.budgetGiB, "budget", 0, "with --request: memory budget in GiB (0: MemTotal − 5 GiB)")
	f.StringVar(&o.remote.addr, "addr", "", "with --request: prove through the daemon at this address (unix:///path or host:port) instead of in process")
	f.DurationVar(&o.remote.timeout, "timeout", 2*time.Hour, "with --addr: time limit for the proof")
	o.remote.conn.register(cmd)
	return cmd
}

// run proves the synthetic circuit with the given parameters, checks the
// proof, and writes it with its public inputs beside it.
func (o *proveOptions) run(ctx context.Context, w io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	c, err := o.circuit.build()
	if err != nil {
		return err
	}
	p, err := groth16.ReadParams(o.params, groth16.ReadOptions{Checked: o.checked})
	if err != nil {
		return err
	}
	start := time.Now()
	proof, inputs, err := groth16.Prove(ctx, cpu.New(0), p, c, nil)
	if err != nil {
		return err
	}
	pvk, err := groth16.PrepareVerifyingKey(&p.VK)
	if err != nil {
		return err
	}
	if err := groth16.Verify(pvk, &proof, inputs); err != nil {
		return fmt.Errorf("self-check of the new proof failed: %w", err)
	}
	b := proof.Bytes()
	if err := os.WriteFile(o.out, b[:], 0o644); err != nil {
		return err
	}
	js, err := encodeInputs(inputs)
	if err != nil {
		return err
	}
	inPath := inputsPath(o.out)
	if err := os.WriteFile(inPath, js, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s and %s (proved and verified in %v)\n",
		o.out, inPath, time.Since(start).Round(time.Millisecond))
	return nil
}

// runRequest proves a request through an in-process engine.
func (o *proveOptions) runRequest(ctx context.Context, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	req, err := loadRequest(o.request, "")
	if err != nil {
		return err
	}
	var public publicData
	if o.public != "" { // read first: a bad file fails before the proof
		if public, err = o.readPublicFor(req); err != nil {
			return err
		}
	}
	dir := paramsDir(o.paramsDir)
	e, err := o.engine(ctx, dir, stderr)
	if err != nil {
		return err
	}
	defer e.Close()
	start := time.Now()
	stop := elapsedProgress(stderr, "prove "+req.RequestID)
	r, err := e.Prove(ctx, req)
	stop()
	if err != nil {
		return err
	}
	if r.Status != engine.StatusCompleted {
		return fmt.Errorf("%s: %v: %s", o.request, r.Status, r.Error)
	}
	if err := os.WriteFile(o.out, r.Proof, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %d partition proofs, proved and verified in %v (synthesis %v, device %v)\n",
		o.out, len(r.Proof)/groth16.ProofSize, time.Since(start).Round(time.Millisecond),
		r.Synthesis.Round(time.Millisecond), r.GPUCompute.Round(time.Millisecond))
	if public == nil {
		return nil
	}
	partition := -1 // the whole proof
	if req.Kind == engine.KindWindowPoStPartition {
		partition = int(req.PartitionIndex)
	}
	return fillPublic(stdout, o.public, public, partition, r.Proof, dir, o.devSRS)
}

// engine is the in-process engine of --request: the daemon's own engine
// (newDaemonEngine) for a configuration of the device, the memory budget
// and the parameter directory, so a one-shot proof takes the daemon's
// paths: with CUDA the parameter file read straight into the GPU (the host
// keeps only the verifying key), witness-only synthesis, the memory budget
// counting what it holds and the Go heap held within it. Warnings (a
// compiled system that cannot be cached) go to stderr.
func (o *proveOptions) engine(ctx context.Context, dir string, stderr io.Writer) (*engine.Engine, error) {
	cfg, err := o.config(dir)
	if err != nil {
		return nil, err
	}
	limit, err := cfg.MemoryBudget()
	if err != nil {
		return nil, fmt.Errorf("%w (give --budget)", err)
	}
	heap := memory.NewHeapLimit(limit)
	heap.Start(ctx)
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	e, _, _, err := newDaemonEngine(cfg, log, heap)
	return e, err
}

// config is the daemon configuration of the one-shot engine. With CUDA
// the streamed points of a set the GPU cannot hold whole are read from
// the parameter file at every partition (device.stream_from_file), never
// decoded into host memory: a one-shot process loads its set once, and
// the decoded copy (44 GiB for a 32 GiB PoRep on an 80 GB card) would not
// fit the budget beside a partition. A GPU that holds the set whole
// reads the file into its memory once either way.
func (o *proveOptions) config(dir string) (config.Config, error) {
	cfg := config.Default()
	if o.device != "cpu" && o.device != "cuda" {
		return cfg, fmt.Errorf("--device %q: want cpu or cuda", o.device)
	}
	cfg.Device.Kind = o.device
	cfg.Device.StreamFromFile = o.device == "cuda"
	cfg.SRS.ParamCache = dir
	cfg.Timeline.Events = 0
	switch {
	case !(o.budgetGiB >= 0) || o.budgetGiB*(1<<30) >= math.MaxUint64:
		return cfg, fmt.Errorf("--budget %v: want a size in GiB, below 2^34", o.budgetGiB)
	case o.budgetGiB > 0:
		cfg.Memory.TotalBudget = config.Budget{Bytes: config.Size(o.budgetGiB * (1 << 30))}
	default:
		cfg.Memory.TotalBudget = config.Budget{Auto: true}
	}
	return cfg, nil
}

// readPublicFor reads --public, which must be the public data of req's
// kind.
func (o *proveOptions) readPublicFor(req engine.Request) (publicData, error) {
	public, err := readPublic(o.public)
	if err != nil {
		return nil, err
	}
	if k := cuzkv1.ProofKind(req.Kind); public.kind() != k {
		return nil, fmt.Errorf("%s is a %s, the public data of %v proofs, not of the request's %v", o.public, public.form(), public.kind(), k)
	}
	return public, nil
}

// verifyingKey reads the verifying key of d's circuit from --params-dir.
func (o *proveOptions) verifyingKey(d publicData) (*groth16.VerifyingKey, error) {
	_, vkFile := d.circuit()
	return groth16.ReadVerifyingKey(filepath.Join(paramsDir(o.paramsDir), vkFile))
}

// fillPublic checks proof against the public data of path (the public
// data of another sector fails here) and writes it into the file's proof:
// the whole proof, or with partition ≥ 0 (a WindowPoSt partition) that
// partition's 192 bytes of it, the others kept (zero until proven). A
// non-interactive PoRep's aggregate is checked with dir's SnarkPack SRS,
// or the development one (devSRS).
func fillPublic(w io.Writer, path string, d publicData, partition int, proof []byte, dir string, devSRS bool) error {
	_, vkFile := d.circuit()
	vk, err := groth16.ReadVerifyingKey(filepath.Join(dir, vkFile))
	if err != nil {
		return err
	}
	check := func() error { return verifyPublic(d, vk, proof, partition) }
	if v, ok := nonInteractiveSeal(d); ok { // the proof is the aggregate of its partitions
		seal := *v
		seal.Proof = proof
		check = func() error { return circuits.VerifyNIPoRep(aggregationSRS(dir, devSRS), vk, &seal) }
	}
	if err := check(); err != nil {
		return fmt.Errorf("the proof does not verify against %s (the public data of another proof?): %w", path, err)
	}
	what := "its proof"
	if partition >= 0 {
		in, err := d.inputs()
		if err != nil {
			return err
		}
		whole := d.proof()
		if len(whole) != len(in)*groth16.ProofSize {
			whole = make([]byte, len(in)*groth16.ProofSize)
		}
		copy(whole[partition*groth16.ProofSize:], proof)
		proof = whole
		what = fmt.Sprintf("partition %d's proof", partition)
	}
	d.setProof(proof)
	if err := writePublic(path, d); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s into %s (verified against it)\n", what, path)
	return nil
}
