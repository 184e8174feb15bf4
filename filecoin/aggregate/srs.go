package aggregate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	snarkpack "github.com/cuzk-project/cuzk/groth16/aggregate"
)

// SRSFile is the name of the SnarkPack SRS in a parameter directory.
const SRSFile = "v28-fil-inner-product-v1.srs"

// SRSPrefix is how many points of each SRS vector are read: rust-fil-proofs
// reads 2¹⁵ + 1, which serves up to 2¹⁴ partition proofs (a 256-sector
// batch of 32 GiB sectors is 2560, padded to 4096).
const SRSPrefix = 2<<14 + 1

// devSRSSeed seeds WriteDevSRS. It is public, so α and β are too.
const devSRSSeed = "cuzk development SnarkPack SRS; forgeable; never for mainnet"

// ReadSRS reads the SRSPrefix leading points of each vector of SRSFile in
// dir.
func ReadSRS(dir string) (*snarkpack.SRS, error) {
	return snarkpack.ReadSRSFile(filepath.Join(dir, SRSFile), SRSPrefix)
}

// WriteDevSRS writes a development SRS for up to n partition proofs
// (padded) as SRSFile in dir, FOR DEVELOPMENT AND TESTS ONLY: its trapdoor
// follows from a public seed, so anyone can forge aggregates under it. It
// refuses to replace an existing file, which may be the ceremony's.
func WriteDevSRS(dir string, n int) (path string, err error) {
	path = filepath.Join(dir, SRSFile)
	if _, err := os.Stat(path); err == nil {
		return path, fmt.Errorf("%s exists (it may be the ceremony's SRS); remove it to write a development SRS: %w", path, fs.ErrExist)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return path, err
	}
	srs, err := snarkpack.DevSRS([]byte(devSRSSeed), TargetLen(n))
	if err != nil {
		return path, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return path, err
	}
	tmp, err := os.CreateTemp(dir, SRSFile+".tmp*")
	if err != nil {
		return path, err
	}
	defer os.Remove(tmp.Name())
	if _, err := srs.WriteTo(tmp); err != nil {
		tmp.Close()
		return path, err
	}
	if err := tmp.Close(); err != nil {
		return path, err
	}
	// Link rather than rename: a file that appeared meanwhile is kept.
	if err := os.Link(tmp.Name(), path); err != nil {
		return path, err
	}
	return path, os.Chmod(path, 0o644)
}
