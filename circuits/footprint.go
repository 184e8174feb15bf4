package circuits

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
)

// footprint is a partition of shape s with its memory reservations set
// (the classic path's, its device part, the witness-only path's); the
// planners add its synthesis.
func footprint(s r1cs.Shape) engine.Partition {
	var p engine.Partition
	p.Reserve, p.ReserveABC = partitionFootprint(s)
	p.ReserveWork, p.Rows, p.Vars = workFootprint(s)
	p.WitnessReserve, p.WitnessDense = witnessFootprint(s)
	return p
}

// witnessFootprint is a partition's host memory on the witness-only path
// to a device that evaluates a, b and c itself (engine.Partition's
// WitnessReserve, reserved from before synthesis until Finish) and the
// dense witness within it (WitnessDense):
//
//   - the dense witness, 32 bytes per input and aux value, on the heap
//     from synthesis until the device has staged its copy in Prepare;
//   - the staging, at most a dense pinned copy of it: the CUDA device
//     stages an aux compact where its values other than 0 and 1 are at
//     most 60 % of it (2 bits a value and 32 bytes an other value; a
//     PoRep aux is about 75 % 0 and 1, so about a quarter of the dense
//     size), dense otherwise;
//   - where the device does not compute B_G2, the B split its Run reads
//     back for Finish beside the staging: at most 36 bytes a value.
//
// The dense witness and the B split are never held together: the engine
// drops the aux once the staging holds it, and gives back all but the
// inputs and what the device reports its staging and split hold
// (groth16.PrepareReport). So the reservation is the staging's worst case
// (dense) and the larger of the dense witness and the inputs with the
// split: about 68 bytes a value, 8.9 GB for a 32 GiB PoRep partition.
// After Prepare it comes down to what the staging holds: about 17 bytes
// a value for a PoRep partition (2.3 GB at 32 GiB), 8 where B_G2 is
// resident (1.1 GB).
func witnessFootprint(s r1cs.Shape) (reserve, dense uint64) {
	const elem = uint64(fr.Bytes)
	n := uint64(s.Inputs + s.Aux)
	dense = n * elem
	// the tail's scalars and indices, the ones' bitmap, the word rounding
	split := n*(elem+4) + n/8 + 1<<12
	return dense + max(dense, uint64(s.Inputs)*elem+split), dense
}

// workFootprint is partitionFootprint's device part (engine.Partition's
// ReserveWork: the CPU device's, 16 field elements per domain row) and the
// shape a device's own HostWorkspace is given instead.
func workFootprint(s r1cs.Shape) (work uint64, rows, vars int) {
	domain := uint64(groth16.Shape{Constraints: s.Constraints}.DomainSize())
	return 16 * domain * uint64(fr.Bytes), s.Constraints, s.Inputs + s.Aux
}

// partitionFootprint estimates one partition's host memory from its shape:
// a, b and c (released after Run), the witness, and the device's working
// memory until Finish (workFootprint) — what the CPU device allocated per
// Prepare + Run at 2^14 and 2^16 rows (8 MB and 45 MB,
// runtime.MemStats.TotalAlloc, 2026-11-29).
func partitionFootprint(s r1cs.Shape) (reserve, abc uint64) {
	const elem = uint64(fr.Bytes)
	abc = 3 * uint64(s.Constraints) * elem
	witness := uint64(s.Inputs+s.Aux) * elem
	work, _, _ := workFootprint(s)
	return abc + witness + work, abc
}
