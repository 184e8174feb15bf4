package circuits_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/circuits/porep"
	"github.com/cuzk-project/cuzk/device/cpu"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/gen"
	"github.com/cuzk-project/cuzk/groth16"
)

// Example_poRepC2 is the shortest path from C1 bytes to proof bytes: an
// engine embedded in the process (the CPU device), Curio's PoRep C2
// request, and the proof checked from the sector's public data alone, as
// the chain checks it.
//
// The C1 here is generated (filecoin/gen makes the vanilla proof a sealed
// 2 KiB sector of zeros would have); Curio's comes from
// SealCommitPhase1. The parameters are development ones, generated on
// first use (a few minutes at 2 KiB) into a directory of real file names;
// point FilecoinFiles at a directory of real Filecoin parameters
// (/var/tmp/filecoin-proof-parameters) and leave Dev off to prove for the
// chain.
func Example_poRepC2() {
	ctx := context.Background()
	sector, err := gen.GeneratePoRep(ctx, gen.PoRepOptions{
		Proof: filecoin.StackedDrg2KiBV1_1, Seed: 1, Miner: 1000, Sector: 1,
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	c1Bytes := sector.Envelope.Encode() // {"SectorNum", "Phase1Out": base64(C1 JSON), "SectorSize"}

	params := &circuits.FilecoinFiles{Dir: exampleParamsDir(), Dev: true}
	e, err := engine.New(engine.Config{
		Devices: []groth16.Device{cpu.New(0)},
		Planner: circuits.New(),
		Params:  params,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer e.Close()

	res, err := e.Prove(ctx, engine.Request{
		Kind:            engine.KindPoRepSealCommit,
		RegisteredProof: uint64(filecoin.StackedDrg2KiBV1_1),
		SectorSize:      2 << 10,
		SectorNumber:    1,
		MinerID:         1000,
		VanillaProof:    c1Bytes,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Status, len(res.Proof), "bytes")

	// The engine verified the proof before returning it; verify it again
	// the way a chain node does: SealVerifyInfo and the verifying key.
	p, release, err := params.Acquire(ctx, "porep-2k")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer release()
	seal := sector.Info // SealProof, Miner, Number, ticket, seed, SealedCID, UnsealedCID
	seal.Proof = res.Proof
	fmt.Println("verify_seal:", porep.VerifySeal(&p.VK, &seal))
	// Output:
	// COMPLETED 192 bytes
	// verify_seal: <nil>
}

// exampleParamsDir keeps the development parameters between runs (in the
// user cache directory), so that only the first run pays for the setup.
func exampleParamsDir() string {
	dir, err := circuits.DefaultParamsDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "filecoin-dev")
}
