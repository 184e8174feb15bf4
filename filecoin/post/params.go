package post

import (
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
// fallback/compound.rs cache_prefix).
func (i Info) ParamsStem() string {
	return filecoin.ParamsStem("proof-of-spacetime-fallback-"+filecoin.TreeDisplay(i.TreeR), i.ParamsIdentifier())
}

// ParamsFile is the Groth16 parameter file name: "v28-" + stem + ".params".
func (i Info) ParamsFile() string { return filecoin.ParamsFileName(i.ParamsStem()) }

// VKFile is the verifying key file name: "v28-" + stem + ".vk".
func (i Info) VKFile() string { return filecoin.VKFileName(i.ParamsStem()) }
