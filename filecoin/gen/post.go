package gen

import (
	"context"
	"fmt"
	"slices"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/c1"
	"github.com/cuzk-project/cuzk/filecoin/post"
	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/hash/merkle"
)

// WinningOptions says which WinningPoSt to make.
type WinningOptions struct {
	Proof post.Proof // a Winning proof (0–4)
	// Seed determines everything drawn: the randomness, every sector's
	// comm_c and its challenged replica leaves.
	Seed uint64
	// Miner is the miner's actor id (prover_id).
	Miner uint64
	// Sectors is the miner's proving set, the sector numbers the challenged
	// sector is drawn from, taken in increasing order. Empty: 1 … 8.
	Sectors []uint64
}

// WindowOptions says which WindowPoSt partition to make.
type WindowOptions struct {
	Proof post.Proof // a Window proof (5–14)
	Seed  uint64
	Miner uint64
	// Sectors are the sector numbers of the whole proof, every partition's,
	// taken in increasing order (as the verifier takes them) and cut into
	// partitions of SectorCount. Empty: Partition+1 full partitions,
	// sectors 1 … (Partition+1)·SectorCount.
	Sectors []uint64
	// Partition is the partition whose vanilla proofs are made: its index
	// among the proof's partitions, the request's partition_index.
	Partition int
}

// PoStRequest is what Curio's cuzk client puts in a SubmitProofRequest for
// a PoSt (curio lib/ffi/cuzk_funcs.go WinningPoStCuzk, WindowPoStCuzk).
type PoStRequest struct {
	RequestID       string
	ProofKind       string // "WINNING_POST" or "WINDOW_POST_PARTITION"
	SectorSize      uint64
	RegisteredProof uint64
	Priority        string // "CRITICAL" for WinningPoSt, "HIGH" for WindowPoSt
	// VanillaProofs holds one bincode FallbackPoStSectorProof per sector.
	VanillaProofs  [][]byte
	MinerID        uint64
	Randomness     []byte
	PartitionIndex uint32 // WindowPoSt only
}

// WinningPoSt is a generated WinningPoSt with what is known about it.
type WinningPoSt struct {
	Info       post.Info
	Randomness [32]byte // byte 31 masked with 0x3f
	// Sectors is the proving set in order; Challenged the sector drawn from
	// it (WinningSectorChallenges with the miner's prover_id).
	Sectors    []uint64
	Challenged uint64
	// Proof is the challenged sector's vanilla proof (66 openings).
	Proof   *post.SectorProof
	Request PoStRequest
	// Public is the public data a verifier has (Proofs[0].ProofBytes empty
	// until the SNARK fills it).
	Public post.WinningPoStVerifyInfo
	// CommC and CommRLast are the sector's; comm_r = Poseidon₂(CommC, CommRLast).
	CommC, CommRLast hash.Domain
}

// WindowPoSt is a generated WindowPoSt partition with what is known about
// the proof it belongs to.
type WindowPoSt struct {
	Info       post.Info
	Randomness [32]byte
	Partition  int
	// Partitions is the number of partitions of the whole proof.
	Partitions int
	// Proofs are the partition's vanilla sector proofs, in order.
	Proofs  []*post.SectorProof
	Request PoStRequest
	// Public is the whole proof's public data: every partition's sectors.
	// Partition Partition's public inputs are the Partition-th of
	// Public.PublicInputs().
	Public post.WindowPoStVerifyInfo
}

// GenerateWinningPoSt makes the vanilla proof of the sector a WinningPoSt
// challenges in o.Sectors, for any registered size, deterministic from
// o.Seed. Only the challenged sector gets a tree R: sparse, random replica
// leaves at its 66 challenged nodes and empty digests elsewhere, under a
// random comm_c.
func GenerateWinningPoSt(ctx context.Context, o WinningOptions) (*WinningPoSt, error) {
	info, err := o.Proof.Info()
	if err != nil {
		return nil, fmt.Errorf("gen: %w", err)
	}
	if !info.Winning {
		return nil, fmt.Errorf("gen: %s is not a WinningPoSt proof", info.Name)
	}
	set, err := postSectorSet(o.Sectors, 8)
	if err != nil {
		return nil, err
	}
	rand := drawElement(o.Seed, "post/randomness")
	idx := post.WinningSectorChallenges(rand, filecoin.ProverID(o.Miner), uint64(len(set)), 1)[0]
	sector := set[idx]
	leaves := make([]uint64, post.WinningChallenges)
	for n := range leaves {
		// The vanilla proof's challenge n: sector index 0 of one, 66 per sector.
		leaves[n] = post.LeafChallenge(rand, sector, post.ChallengeIndex(info.API, 0, post.WinningChallenges, n), info.Nodes)
	}
	s, err := postSector(ctx, info, o.Seed, sector, leaves, true)
	if err != nil {
		return nil, err
	}
	b, err := s.proof.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("gen: sector %d: %w", sector, err)
	}
	return &WinningPoSt{
		Info: info, Randomness: rand, Sectors: set, Challenged: sector, Proof: s.proof,
		Request: PoStRequest{
			RequestID:       fmt.Sprintf("winpost-%d-%x", o.Miner, rand[:8]),
			ProofKind:       "WINNING_POST",
			SectorSize:      info.SectorSize,
			RegisteredProof: uint64(info.Proof),
			Priority:        "CRITICAL",
			VanillaProofs:   [][]byte{b},
			MinerID:         o.Miner,
			Randomness:      rand[:],
		},
		Public: post.WinningPoStVerifyInfo{
			Randomness:        rand[:],
			Proofs:            []post.PoStProof{{PoStProof: info.Proof}},
			ChallengedSectors: []post.SectorInfo{s.info(info)},
			Prover:            o.Miner,
		},
		CommC: s.proof.CommC, CommRLast: s.proof.CommRLast,
	}, nil
}

// GenerateWindowPoSt makes the vanilla proofs of partition o.Partition of
// a WindowPoSt over o.Sectors, for any registered size, deterministic from
// o.Seed. Every sector of the proof gets a sparse tree R (its comm_r is
// public data) with random replica leaves at its 10 challenged nodes; the
// sectors of the asked partition also get their openings. Sectors are
// built on GOMAXPROCS goroutines, all returned before this does; ctx stops
// them between sectors.
func GenerateWindowPoSt(ctx context.Context, o WindowOptions) (*WindowPoSt, error) {
	info, err := o.Proof.Info()
	if err != nil {
		return nil, fmt.Errorf("gen: %w", err)
	}
	if info.Winning {
		return nil, fmt.Errorf("gen: %s is not a WindowPoSt proof", info.Name)
	}
	if o.Partition < 0 || o.Partition > 1<<20 {
		return nil, fmt.Errorf("gen: partition %d", o.Partition)
	}
	set, err := postSectorSet(o.Sectors, (o.Partition+1)*info.SectorCount)
	if err != nil {
		return nil, err
	}
	partitions := (len(set) + info.SectorCount - 1) / info.SectorCount
	if o.Partition >= partitions {
		return nil, fmt.Errorf("gen: partition %d of a proof over %d sectors (%d partitions of %d)", o.Partition, len(set), partitions, info.SectorCount)
	}
	rand := drawElement(o.Seed, "post/randomness")
	first, end := o.Partition*info.SectorCount, min((o.Partition+1)*info.SectorCount, len(set))

	sectors := make([]*postSectorOut, len(set))
	if err := parallel(uint64(len(set)), func(lo, hi uint64) error {
		for j := int(lo); j < int(hi); j++ {
			k, i := j/info.SectorCount, j%info.SectorCount
			leaves := make([]uint64, info.Challenges)
			for n := range leaves {
				leaves[n] = post.LeafChallenge(rand, set[j], post.ChallengeIndex(info.API, k*info.SectorCount+i, info.Challenges, n), info.Nodes)
			}
			s, err := postSector(ctx, info, o.Seed, set[j], leaves, j >= first && j < end)
			if err != nil {
				return err
			}
			sectors[j] = s
		}
		return nil
	}); err != nil {
		return nil, err
	}

	w := &WindowPoSt{
		Info: info, Randomness: rand, Partition: o.Partition, Partitions: partitions,
		Request: PoStRequest{
			RequestID:       fmt.Sprintf("wdpost-%d-%d-%d", o.Miner, o.Partition, rand[:8]),
			ProofKind:       "WINDOW_POST_PARTITION",
			SectorSize:      info.SectorSize,
			RegisteredProof: uint64(info.Proof),
			Priority:        "HIGH",
			MinerID:         o.Miner,
			Randomness:      rand[:],
			PartitionIndex:  uint32(o.Partition),
		},
		Public: post.WindowPoStVerifyInfo{
			Randomness: rand[:],
			Proofs:     []post.PoStProof{{PoStProof: info.Proof}},
			Prover:     o.Miner,
		},
	}
	for j, s := range sectors {
		w.Public.ChallengedSectors = append(w.Public.ChallengedSectors, s.info(info))
		if j < first || j >= end {
			continue
		}
		b, err := s.proof.MarshalBinary()
		if err != nil {
			return nil, fmt.Errorf("gen: sector %d: %w", s.proof.SectorID, err)
		}
		w.Proofs = append(w.Proofs, s.proof)
		w.Request.VanillaProofs = append(w.Request.VanillaProofs, b)
	}
	return w, nil
}

// postSectorSet is the sorted copy of sectors, or 1 … def when there are none.
func postSectorSet(sectors []uint64, def int) ([]uint64, error) {
	if len(sectors) == 0 {
		set := make([]uint64, def)
		for i := range set {
			set[i] = uint64(i) + 1
		}
		return set, nil
	}
	set := slices.Clone(sectors)
	slices.Sort(set)
	for i := 1; i < len(set); i++ {
		if set[i] == set[i-1] {
			return nil, fmt.Errorf("gen: sector %d named twice", set[i])
		}
	}
	return set, nil
}

// postSectorOut is one generated sector: its vanilla proof (openings only
// when asked for) and the seal proof it claims.
type postSectorOut struct {
	proof *post.SectorProof
}

func (s *postSectorOut) info(info post.Info) post.SectorInfo {
	return post.SectorInfo{
		// The interactive V1_1 seal proof of the size: what sectors sealed today carry.
		SealProof:    filecoin.StackedDrg2KiBV1_1 + filecoin.SealProof(info.Proof%5),
		SectorNumber: s.proof.SectorID,
		SealedCID:    filecoin.SealedCID(s.proof.CommR),
	}
}

// postSector builds sector's sparse tree R with random leaves at the
// challenged nodes, comm_c and comm_r, and when open is set the openings
// of leaves in order.
func postSector(ctx context.Context, info post.Info, seed, sector uint64, leaves []uint64, open bool) (*postSectorOut, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	set := make(map[uint64]hash.Domain, len(leaves))
	for _, c := range leaves {
		set[c] = drawElement(seed, "post/replica", sector, c)
	}
	tree, err := merkle.NewSparse(merkle.Poseidon{}, info.TreeR, info.Nodes, set)
	if err != nil {
		return nil, fmt.Errorf("gen: sector %d tree R: %w", sector, err)
	}
	p := &post.SectorProof{SectorID: sector, CommC: drawElement(seed, "post/comm_c", sector), CommRLast: tree.Root()}
	if p.CommR, err = commR(p.CommC, p.CommRLast); err != nil {
		return nil, err
	}
	if open {
		p.Inclusion = make([]c1.MerkleProof, len(leaves))
		for n, c := range leaves {
			np, err := tree.Prove(c)
			if err != nil {
				return nil, fmt.Errorf("gen: sector %d opening of %d: %w", sector, c, err)
			}
			if err := p.Inclusion[n].FromNative(np, info.TreeR); err != nil {
				return nil, fmt.Errorf("gen: sector %d opening of %d: %w", sector, c, err)
			}
		}
	}
	return &postSectorOut{proof: p}, nil
}
