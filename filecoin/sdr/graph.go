package sdr

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/cuzk-project/cuzk/filecoin"
)

// ExpDegree is the expander degree (storage-proofs-porep graph.rs EXP_DEGREE).
const ExpDegree = 8

// Degree is the number of parents of a node: DRG then expander.
const Degree = DRGDegree + ExpDegree

// ErrBadGraph reports graph parameters rust-fil-proofs would refuse.
var ErrBadGraph = errors.New("sdr: bad graph parameters")

// Domain-separation tags of the two seeds derived from porep_id
// (storage-proofs-core crypto/mod.rs derive_porep_domain_seed).
const (
	drSampleTag = "Filecoin_DRSample"
	feistelTag  = "Filecoin_Feistel"
)

// Graph is the SDR graph of one registered proof: its DRG seed and Feistel
// keys derive from porep_id. It holds no parent cache; every parent is
// computed when asked for. A Graph is immutable and safe for concurrent use.
type Graph struct {
	porepID [32]byte
	nodes   uint64
	api     filecoin.APIVersion

	drgKey      [8]uint32 // ChaCha8 key: seed words 0..6; word 7 is the node
	feistelKeys [4]uint64
	exp         *feistel
}

// NewGraph builds the graph of nodes nodes (2 ≤ nodes < 2^32) for porep_id
// under an API version.
func NewGraph(porepID [32]byte, nodes uint64, api filecoin.APIVersion) (*Graph, error) {
	if nodes < 2 || nodes > 1<<32-1 {
		return nil, fmt.Errorf("%w: %d nodes, want 2 ≤ nodes < 2^32", ErrBadGraph, nodes)
	}
	if api < filecoin.APIV1_0 || api > filecoin.APIV1_2 {
		return nil, fmt.Errorf("%w: API version %v", ErrBadGraph, api)
	}
	g := &Graph{porepID: porepID, nodes: nodes, api: api}

	drg := domainSeed(drSampleTag, porepID)
	for i := 0; i < 7; i++ {
		g.drgKey[i] = binary.LittleEndian.Uint32(drg[4*i:])
	}
	fk := domainSeed(feistelTag, porepID)
	for i := range g.feistelKeys {
		g.feistelKeys[i] = binary.LittleEndian.Uint64(fk[8*i:])
	}
	g.exp = newFeistel(nodes*ExpDegree, g.feistelKeys)
	return g, nil
}

func domainSeed(tag string, porepID [32]byte) [32]byte {
	h := sha256.New()
	h.Write([]byte(tag))
	h.Write(porepID[:])
	var s [32]byte
	h.Sum(s[:0])
	return s
}

var (
	graphsMu sync.Mutex
	graphs   = map[filecoin.SealProof]*Graph{}
)

// GraphFor returns the graph of a registered proof. Graphs are shared: the
// first call per proof builds it, later calls (from any goroutine) return
// the same one, with its expander table already built if it was used.
func GraphFor(info filecoin.SealInfo) (*Graph, error) {
	graphsMu.Lock()
	defer graphsMu.Unlock()
	if g, ok := graphs[info.Proof]; ok && g.nodes == info.Nodes && g.api == info.API {
		return g, nil
	}
	g, err := NewGraph(filecoin.PoRepID(info.Proof), info.Nodes, info.API)
	if err != nil {
		return nil, fmt.Errorf("sdr: graph of %v: %w", info.Proof, err)
	}
	graphs[info.Proof] = g
	return g, nil
}

// Nodes is the number of nodes of each layer.
func (g *Graph) Nodes() uint64 { return g.nodes }

// PoRepID is the porep_id the graph derives from.
func (g *Graph) PoRepID() [32]byte { return g.porepID }

// API is the API version the graph follows.
func (g *Graph) API() filecoin.APIVersion { return g.api }

// DRGSeed is the 28-byte seed of the DRG: SHA-256("Filecoin_DRSample" ‖
// porep_id), first 28 bytes.
func (g *Graph) DRGSeed() [28]byte {
	var s [28]byte
	for i := 0; i < 7; i++ {
		binary.LittleEndian.PutUint32(s[4*i:], g.drgKey[i])
	}
	return s
}

// FeistelKeys are the four words of SHA-256("Filecoin_Feistel" ‖ porep_id)
// read little-endian; the expander uses the first three.
func (g *Graph) FeistelKeys() [4]uint64 { return g.feistelKeys }

// ExpanderParents writes the 8 expander parents of node v (nodes of the
// previous layer) into out: parent i is π(8v + i) / 8 for the Feistel
// permutation π of [0, 8·nodes). API 1.0 truncates π(…) to 32 bits before
// dividing (a flaw of the first graphs, visible only from 2^29 nodes on).
//
// v must be below Nodes(); beyond, the result is meaningless but safe.
func (g *Graph) ExpanderParents(v uint32, out *[ExpDegree]uint32) {
	base := uint64(v) * ExpDegree
	for i := range out {
		t := g.exp.permute(base + uint64(i))
		if g.api == filecoin.APIV1_0 {
			out[i] = uint32(t) / ExpDegree
		} else {
			out[i] = uint32(t / ExpDegree)
		}
	}
}

// Parents writes all 14 parents of node v, 6 DRG then 8 expander: the order
// of a parent cache entry.
func (g *Graph) Parents(v uint32, out *[Degree]uint32) {
	g.DRGParents(v, (*[DRGDegree]uint32)(out[:DRGDegree]))
	g.ExpanderParents(v, (*[ExpDegree]uint32)(out[DRGDegree:]))
}
