package post

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/cuzk-project/cuzk/filecoin"
)

// ParamsIdentifier is the circuit's parameter-set identifier, the string
// whose SHA-256 names its parameter files (storage-proofs-post
// fallback/vanilla.rs PublicParams::identifier). It holds the circuit's
// sector size, challenges per circuit sector and circuit sectors, not the
// ApiVersion, so Window V1 and V1_1 share their files.
func (i Info) ParamsIdentifier() string {
	return fmt.Sprintf("FallbackPoSt::PublicParams{sector_size: %d, challenge_count: %d, sector_count: %d}",
		i.SectorSize, i.Challenges, i.SectorCount)
}

// ParamsStem is the parameter file name without the version prefix and the
// extension: the cache prefix "proof-of-spacetime-fallback-" + tree R's
// display, "-", and the hex SHA-256 of ParamsIdentifier (storage-proofs-post
// fallback/compound.rs cache_prefix, storage-proofs-core
// parameter_cache.rs cache_identifier).
func (i Info) ParamsStem() string {
	h := sha256.Sum256([]byte(i.ParamsIdentifier()))
	return fmt.Sprintf("proof-of-spacetime-fallback-merkletree-poseidon_hasher-%d-%d-%d-%s",
		i.TreeR.Base, i.TreeR.Sub, i.TreeR.Top, hex.EncodeToString(h[:]))
}

// ParamsFile is the Groth16 parameter file name: "v28-" + stem + ".params".
func (i Info) ParamsFile() string {
	return fmt.Sprintf("v%d-%s.params", filecoin.ParamsVersion, i.ParamsStem())
}

// VKFile is the verifying key file name: "v28-" + stem + ".vk".
func (i Info) VKFile() string {
	return fmt.Sprintf("v%d-%s.vk", filecoin.ParamsVersion, i.ParamsStem())
}
