package filecoin

// SectorID names a sector: the miner's actor id and the sector number
// (go-state-types abi.SectorID).
type SectorID struct {
	Miner  uint64
	Number uint64
}

// SealVerifyInfo is go-state-types proof.SealVerifyInfo with the same JSON:
// SealProof as a number, Miner and Number promoted from the embedded
// SectorID, DealIDs as an array (null when nil), the byte fields in base64
// (null when nil) and the commitments as {"/":"<cid>"}.
type SealVerifyInfo struct {
	SealProof SealProof
	SectorID
	DealIDs               []uint64
	Randomness            []byte // the ticket
	InteractiveRandomness []byte // the seed
	Proof                 []byte // the partition proofs, 192 bytes each
	SealedCID             CID    // comm_r
	UnsealedCID           CID    // comm_d
}
