package update

import (
	"crypto/sha256"
	"encoding/hex"
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
// extension: "empty-sector-update-merkletree-poseidon_hasher-<b>-<s>-<t>-"
// and the hex SHA-256 of ParamsIdentifier (compound.rs cache_prefix).
func (i Info) ParamsStem() string {
	h := sha256.Sum256([]byte(i.ParamsIdentifier()))
	return fmt.Sprintf("empty-sector-update-merkletree-poseidon_hasher-%d-%d-%d-%s",
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
