package gen

import (
	"errors"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/c1"
	"github.com/cuzk-project/cuzk/hash"
)

// ErrTooLarge reports a synthetic or non-interactive proof of a sector too
// large to label densely: its challenges depend on comm_r, so no sparse
// sector can answer them.
var ErrTooLarge = errors.New("gen: sector too large for dense generation")

// DenseMaxNodes is the largest sector (in 32-byte nodes) GeneratePoRep
// labels densely: 8 MiB. Synthetic and non-interactive proofs of larger
// sectors fail with ErrTooLarge.
const DenseMaxNodes = 1 << 18

// PoRepOptions says which C1 to make.
type PoRepOptions struct {
	Proof filecoin.SealProof
	// Seed determines everything drawn: ticket, interactive seed and the
	// chosen columns. The same options give the same bytes.
	Seed uint64
	// Miner is the miner's actor id (the prover_id), Sector the sector
	// number.
	Miner, Sector uint64
}

// PoRep is a generated C1 with what is known about its sector.
type PoRep struct {
	Output *c1.Output
	// Envelope is Output as Curio hands it to cuzk: Phase1Out is Output's
	// JSON.
	Envelope *c1.Envelope
	// Info is the sector's public data for verify_seal; Proof is empty
	// until C2 fills it.
	Info filecoin.SealVerifyInfo
	// CommC and CommRLast are the roots of trees C and R; comm_r is
	// Poseidon₂(CommC, CommRLast).
	CommC, CommRLast hash.Domain
	// Dense is true when every node was labelled (synthetic and
	// non-interactive proofs).
	Dense bool
}
