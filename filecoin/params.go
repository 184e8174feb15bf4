package filecoin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/cuzk-project/cuzk/hash/merkle"
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
		GraphIdentifier(i.Nodes), i.Layers, i.Challenges, TreeDisplay(i.TreeR))
}

// GraphIdentifier is the SDR graph's identifier (stacked/vanilla/graph.rs
// and storage-proofs-core drgraph.rs): a base degree 6 bucket graph with
// expansion degree 8 over Poseidon-hashed nodes.
func GraphIdentifier(nodes uint64) string {
	return fmt.Sprintf("stacked_graph::StackedGraph{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: %d; degree: 6; hasher: poseidon_hasher} }", nodes)
}

// TreeDisplay is storage-proofs-core's MerkleTreeTrait::display of a
// Poseidon tree of shape s, as parameter file names spell it:
// "merkletree-poseidon_hasher-8-8-0".
func TreeDisplay(s merkle.Shape) string {
	return fmt.Sprintf("merkletree-poseidon_hasher-%d-%d-%d", s.Base, s.Sub, s.Top)
}

// ParamsStem is the parameter file name of a circuit without the version
// prefix and the extension: its cache prefix, "-", and the hex SHA-256 of
// its parameter-set identifier (storage-proofs-core parameter_cache.rs
// cache_identifier).
func ParamsStem(prefix, identifier string) string {
	h := sha256.Sum256([]byte(identifier))
	return prefix + "-" + hex.EncodeToString(h[:])
}

// ParamsFileName is the Groth16 parameter file name of stem:
// "v28-" + stem + ".params".
func ParamsFileName(stem string) string { return fmt.Sprintf("v%d-%s.params", ParamsVersion, stem) }

// VKFileName is the verifying key file name of stem: "v28-" + stem + ".vk".
func VKFileName(stem string) string { return fmt.Sprintf("v%d-%s.vk", ParamsVersion, stem) }

// ParamsStem is the PoRep circuit's parameter file stem: the cache prefix
// "stacked-proof-of-replication-" + tree R's display + "-sha256_hasher", e.g.
// "stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a3…".
func (i SealInfo) ParamsStem() string {
	return ParamsStem("stacked-proof-of-replication-"+TreeDisplay(i.TreeR)+"-sha256_hasher", i.ParamsIdentifier())
}

// ParamsFile is the Groth16 parameter file name: "v28-" + stem + ".params".
func (i SealInfo) ParamsFile() string { return ParamsFileName(i.ParamsStem()) }

// VKFile is the verifying key file name: "v28-" + stem + ".vk".
func (i SealInfo) VKFile() string { return VKFileName(i.ParamsStem()) }
