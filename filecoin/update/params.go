package update

import (
	"fmt"

	"github.com/cuzk-project/cuzk/filecoin"
)

// ParamsIdentifier is the update circuit's parameter-set identifier, whose
// SHA-256 names its parameter files (storage-proofs-update vanilla.rs
// PublicParams::identifier): it depends on the sector's node count only.
func (i Info) ParamsIdentifier() string {
	return fmt.Sprintf("empty_sector_update::PublicParams{ sector_nodes: %d }", i.Nodes)
}

// ParamsStem is the parameter file name without the version prefix and the
// extension: "empty-sector-update-" + tree R's display, "-", and the hex
// SHA-256 of ParamsIdentifier (compound.rs cache_prefix).
func (i Info) ParamsStem() string {
	return filecoin.ParamsStem("empty-sector-update-"+filecoin.TreeDisplay(i.TreeR), i.ParamsIdentifier())
}

// ParamsFile is the Groth16 parameter file name: "v28-" + stem + ".params".
func (i Info) ParamsFile() string { return filecoin.ParamsFileName(i.ParamsStem()) }

// VKFile is the verifying key file name: "v28-" + stem + ".vk".
func (i Info) VKFile() string { return filecoin.VKFileName(i.ParamsStem()) }
