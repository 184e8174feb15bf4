package circuits

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/porep"
	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/gen"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/groth16/aggregate"
	"github.com/cuzk-project/cuzk/timeline"
)

// testAggSeed seeds the development SRS of these tests.
var testAggSeed = []byte("circuits ni-porep test")

var (
	ni2KOnce sync.Once
	ni2K     *gen.PoRep
	ni2KErr  error
)

// generatedNI2K is a 2 KiB non-interactive PoRep C1, made once.
func generatedNI2K(t testing.TB) *gen.PoRep {
	t.Helper()
	ni2KOnce.Do(func() {
		ni2K, ni2KErr = gen.GeneratePoRep(context.Background(),
			gen.PoRepOptions{Proof: filecoin.StackedDrg2KiBV1_2_Feat_NonInteractivePoRep, Seed: 1, Miner: 1000, Sector: 1}, nil)
	})
	if ni2KErr != nil {
		t.Fatal(ni2KErr)
	}
	return ni2K
}

// TestPlanNIPoRep: a 2 KiB NI C1 plans as its 13 partitions, each unit's
// synthesized inputs those the verifier derives from SealVerifyInfo, with a
// Finalize step.
func TestPlanNIPoRep(t *testing.T) {
	s := generatedNI2K(t)
	reg := New()
	reg.SetAggregationSRS(NewDevSRS(testAggSeed))
	req := poRepRequest(s)
	plan, err := reg.Plan(context.Background(), &req)
	if err != nil {
		t.Fatal(err)
	}
	info, err := filecoin.StackedDrg2KiBV1_2_Feat_NonInteractivePoRep.Info()
	if err != nil {
		t.Fatal(err)
	}
	if info.Partitions != 13 || len(plan.Partitions) != 13 || len(plan.PublicInputs) != 13 || plan.CircuitID != info.CircuitID() {
		t.Fatalf("plan %q: %d partitions, %d input sets (info: %d partitions)",
			plan.CircuitID, len(plan.Partitions), len(plan.PublicInputs), info.Partitions)
	}
	if plan.Finalize == nil {
		t.Fatal("an NI plan has no Finalize step")
	}
	seal, err := porep.SealOf(&s.Info)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := seal.Inputs()
	if err != nil {
		t.Fatal(err)
	}
	want := porep.ConfigFor(info).NumInputs()
	for k, in := range plan.PublicInputs {
		if len(in) != want {
			t.Fatalf("partition %d: %d inputs, want %d", k, len(in), want)
		}
		for i := range in {
			if !pub[k][i].Equal(&in[i]) {
				t.Fatalf("partition %d input %d differs from SealVerifyInfo's", k, i)
			}
		}
	}
	// The last partition's synthesis agrees with its planned inputs.
	k := len(plan.Partitions) - 1
	a, err := plan.Partitions[k].Synthesize(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range plan.PublicInputs[k] {
		if !a.Input[i+1].Equal(&x) {
			t.Fatalf("partition %d input %d: synthesized %s, planned %s", k, i+1, a.Input[i+1].String(), x.String())
		}
	}
	// The interactive C1 plans without Finalize: its C2 is the concatenation.
	ireq := poRepRequest(generated2K(t))
	iplan, err := reg.Plan(context.Background(), &ireq)
	if err != nil {
		t.Fatal(err)
	}
	if iplan.Finalize != nil {
		t.Fatal("an interactive plan has a Finalize step")
	}
}

// TestPlanNIPoRepWithoutSRS: no SRS configured, or its file missing, fails
// the request at plan time as FailedPrecondition naming the file.
func TestPlanNIPoRepWithoutSRS(t *testing.T) {
	s := generatedNI2K(t)
	missing := filepath.Join(t.TempDir(), AggregationSRSFile)
	bad := filepath.Join(t.TempDir(), AggregationSRSFile)
	if err := os.WriteFile(bad, []byte("not an SRS"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		srs  AggregationSRS
		says string
	}{
		{"none configured", nil, AggregationSRSFile},
		{"file missing", NewFileSRS(missing), missing},
		{"file unreadable", NewFileSRS(bad), bad},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg := New()
			if tc.srs != nil {
				reg.SetAggregationSRS(tc.srs)
			}
			req := poRepRequest(s)
			_, err := reg.Plan(context.Background(), &req)
			if !errors.Is(err, engine.ErrParamsMissing) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("err = %v, want ErrParamsMissing naming %s", err, tc.says)
			}
		})
	}
}

// TestFileSRS: the SRS file is read, specialized and gives the keys the
// development SRS of the same seed gives.
func TestFileSRS(t *testing.T) {
	srs, err := aggregate.DevSRS(testAggSeed, maxNIProofs)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), AggregationSRSFile)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srs.WriteTo(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	fs := NewFileSRS(path)
	if err := fs.Check(); err != nil {
		t.Fatal(err)
	}
	_, fvk, err := fs.Keys(16)
	if err != nil {
		t.Fatal(err)
	}
	_, dvk, err := NewDevSRS(testAggSeed).Keys(16)
	if err != nil {
		t.Fatal(err)
	}
	if fvk.N != 16 || !fvk.GAlpha.Equal(&dvk.GAlpha) || !fvk.HBeta.Equal(&dvk.HBeta) {
		t.Fatal("the file's keys differ from the SRS written to it")
	}
	if _, _, err := fs.Keys(256); !errors.Is(err, aggregate.ErrProofCount) {
		t.Fatalf("256 proofs: err = %v", err)
	}
}

// syntheticProofs proves one small synthetic circuit n times (distinct
// randomness, the same inputs) on the CPU device.
func syntheticProofs(t *testing.T, n int) (*groth16.Params, []groth16.Proof, [][]fr.Element) {
	t.Helper()
	c, err := synthetic.New(synthetic.Default(64))
	if err != nil {
		t.Fatal(err)
	}
	p, err := groth16.Setup(c, []byte("ni finalize test"))
	if err != nil {
		t.Fatal(err)
	}
	var proofs []groth16.Proof
	var inputs [][]fr.Element
	for range n {
		pr, in, err := groth16.Prove(context.Background(), cpu.New(1), p, c, nil)
		if err != nil {
			t.Fatal(err)
		}
		proofs = append(proofs, pr)
		inputs = append(inputs, in)
	}
	return p, proofs, inputs
}

// TestNIFinalize: Finalize returns an aggregate of the padded proofs that
// verifies under the partitions' inputs and the comm_r transcript, of the
// size SnarkPack gives; it refuses to return one that does not verify.
func TestNIFinalize(t *testing.T) {
	const parts = 3 // padded to 4
	params, proofs, inputs := syntheticProofs(t, parts)
	srs := NewDevSRS(testAggSeed)
	commR := [32]byte{1, 2, 3}
	concat := groth16.EncodeProofs(proofs)

	out, err := niFinalize(srs, commR, inputs)(context.Background(), &params.VK, concat)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != aggregate.Size(4) {
		t.Fatalf("%d bytes, an aggregate of 4 is %d", len(out), aggregate.Size(4))
	}
	agg, err := aggregate.DecodeProof(out)
	if err != nil {
		t.Fatal(err)
	}
	_, vk, err := srs.Keys(4)
	if err != nil {
		t.Fatal(err)
	}
	if err := aggregate.Verify(vk, &params.VK, padLast(inputs, 4), agg, NIPoRepTranscript(commR), nil); err != nil {
		t.Fatalf("the returned aggregate does not verify: %v", err)
	}
	if err := aggregate.Verify(vk, &params.VK, padLast(inputs, 4), agg, NIPoRepTranscript([32]byte{9}), nil); err == nil {
		t.Fatal("the aggregate verified under another comm_r")
	}

	// Inputs the proofs are not for: Finalize's own verification refuses.
	wrong := make([][]fr.Element, parts)
	for i := range inputs {
		wrong[i] = append([]fr.Element(nil), inputs[i]...)
	}
	wrong[parts-1][0].SetUint64(12345)
	if _, err := niFinalize(srs, commR, wrong)(context.Background(), &params.VK, concat); !errors.Is(err, aggregate.ErrInvalid) {
		t.Fatalf("wrong inputs: err = %v, want aggregate.ErrInvalid", err)
	}
	// A proof count that does not match the inputs.
	if _, err := niFinalize(srs, commR, inputs)(context.Background(), &params.VK, concat[:2*groth16.ProofSize]); err == nil {
		t.Fatal("2 proofs for 3 input sets aggregated")
	}
	// A cancelled context stops the aggregation.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := niFinalize(srs, commR, inputs)(ctx, &params.VK, concat); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err = %v", err)
	}
}

// TestProveNIPoRepOnCPU proves a 2 KiB non-interactive PoRep end to end in
// process: 13 partitions on the CPU device, aggregated and verified, with
// development parameters (generated on the first run, then cached). It
// takes minutes on two cores.
func TestProveNIPoRepOnCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("a 13-partition 2 KiB PoRep proof: minutes on two cores")
	}
	s := generatedNI2K(t)
	// The development parameters of porep-2k, shared with Example_poRepC2.
	dir, err := DefaultParamsDir()
	if err != nil {
		dir = os.TempDir()
	}
	params := &FilecoinFiles{Dir: filepath.Join(dir, "filecoin-dev"), Dev: true}
	srs := NewDevSRS(testAggSeed)
	reg := New()
	reg.SetAggregationSRS(srs)
	e, err := engine.New(engine.Config{
		Devices:  []groth16.Device{cpu.New(0)},
		Planner:  reg,
		Params:   params,
		Recorder: timeline.NewRecorder(1024),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	req := poRepRequest(s)
	start := time.Now()
	r, err := e.Prove(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("13-partition NI PoRep C2: %v", time.Since(start))
	if r.Status != engine.StatusCompleted || len(r.Proof) != aggregate.Size(16) {
		t.Fatalf("%v %q, %d bytes, want an aggregate of 16 (%d)", r.Status, r.Error, len(r.Proof), aggregate.Size(16))
	}
	p, release, err := params.Acquire(context.Background(), plan2KCircuit(t))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	seal, err := porep.SealOf(&s.Info)
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := seal.Inputs()
	if err != nil {
		t.Fatal(err)
	}
	agg, err := aggregate.DecodeProof(r.Proof)
	if err != nil {
		t.Fatal(err)
	}
	_, vk, err := srs.Keys(16)
	if err != nil {
		t.Fatal(err)
	}
	if err := aggregate.Verify(vk, &p.VK, padLast(inputs, 16), agg, NIPoRepTranscript(seal.CommR), nil); err != nil {
		t.Fatalf("the returned aggregate does not verify from SealVerifyInfo: %v", err)
	}
	v := s.Info
	v.Proof = r.Proof
	if err := VerifyNIPoRep(srs, &p.VK, &v); err != nil {
		t.Fatalf("VerifyNIPoRep: %v", err)
	}
	v.Number++ // another sector's public data
	if err := VerifyNIPoRep(srs, &p.VK, &v); err == nil {
		t.Fatal("VerifyNIPoRep accepted the aggregate for another sector number")
	}
}

// TestVerifyNIPoRepRefuses: an interactive seal, or a Proof of the wrong
// size, is refused before any pairing.
func TestVerifyNIPoRepRefuses(t *testing.T) {
	srs := NewDevSRS(testAggSeed)
	params, _, _ := syntheticProofs(t, 0)
	iv := generated2K(t).Info
	iv.Proof = make([]byte, aggregate.Size(2))
	if err := VerifyNIPoRep(srs, &params.VK, &iv); !errors.Is(err, porep.ErrBadSeal) || !strings.Contains(err.Error(), "not a non-interactive") {
		t.Fatalf("interactive seal: %v", err)
	}
	nv := generatedNI2K(t).Info
	nv.Proof = make([]byte, 13*groth16.ProofSize) // the concatenation, not the aggregate
	if err := VerifyNIPoRep(srs, &params.VK, &nv); !errors.Is(err, porep.ErrBadSeal) || !strings.Contains(err.Error(), "aggregate of 13") {
		t.Fatalf("concatenated proofs: %v", err)
	}
}

// plan2KCircuit is the circuit id of a 2 KiB NI PoRep's partitions.
func plan2KCircuit(t *testing.T) string {
	t.Helper()
	info, err := filecoin.StackedDrg2KiBV1_2_Feat_NonInteractivePoRep.Info()
	if err != nil {
		t.Fatal(err)
	}
	return info.CircuitID()
}
