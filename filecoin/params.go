package filecoin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// ParamsVersion is the version prefix of parameter file names
// (storage-proofs-core parameter_cache.rs VERSION).
const ParamsVersion = 28

// ParamsIdentifier is the PoRep circuit's parameter-set identifier, the
// string whose SHA-256 names its parameter files (storage-proofs-porep
// stacked/vanilla/params.rs PublicParams::identifier). It depends only on
// nodes, layers, challenges per partition and the tree shape, so the
// synthetic and non-interactive proofs of a size share the interactive
// files.
func (i SealInfo) ParamsIdentifier() string {
	return fmt.Sprintf("layered_drgporep::PublicParams{ graph: %s, challenges: LayerChallenges { layers: %d, max_count: %d }, tree: %s }",
		GraphIdentifier(i.Nodes), i.Layers, i.Challenges, i.treeDisplay())
}

// GraphIdentifier is the SDR graph's identifier (stacked/vanilla/graph.rs
// and storage-proofs-core drgraph.rs): a base degree 6 bucket graph with
// expansion degree 8 over Poseidon-hashed nodes.
func GraphIdentifier(nodes uint64) string {
	return fmt.Sprintf("stacked_graph::StackedGraph{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: %d; degree: 6; hasher: poseidon_hasher} }", nodes)
}

// treeDisplay is storage-proofs-core's MerkleTreeTrait::display of tree R.
func (i SealInfo) treeDisplay() string {
	return fmt.Sprintf("merkletree-poseidon_hasher-%d-%d-%d", i.TreeR.Base, i.TreeR.Sub, i.TreeR.Top)
}

// ParamsStem is the parameter file name without the version prefix and the
// extension: the cache prefix, "-", and the hex SHA-256 of ParamsIdentifier,
// e.g. "stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a3…".
func (i SealInfo) ParamsStem() string {
	h := sha256.Sum256([]byte(i.ParamsIdentifier()))
	return "stacked-proof-of-replication-" + i.treeDisplay() + "-sha256_hasher-" + hex.EncodeToString(h[:])
}

// ParamsFile is the Groth16 parameter file name: "v28-" + stem + ".params".
func (i SealInfo) ParamsFile() string {
	return fmt.Sprintf("v%d-%s.params", ParamsVersion, i.ParamsStem())
}

// VKFile is the verifying key file name: "v28-" + stem + ".vk".
func (i SealInfo) VKFile() string { return fmt.Sprintf("v%d-%s.vk", ParamsVersion, i.ParamsStem()) }
