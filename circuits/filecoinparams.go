package circuits

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/cuzk-project/cuzk/circuits/porep"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/groth16"
)

// CheckFilecoinParams compares the header of the parameters loaded for a
// Filecoin circuit id with the circuit's shape: one IC point per input
// (ONE included), one L point per aux variable, m − 1 H points for the
// domain of m rows. A file of another circuit (a wrong size, a file renamed)
// fails here, at load, not mid-proof. Ids of other families pass unchecked.
// The error wraps groth16.ErrParamsMismatch.
func CheckFilecoinParams(id string, p *groth16.Params) error {
	info, err := filecoin.ParsePoRepCircuitID(id)
	if err != nil {
		return nil
	}
	s, err := porep.ConfigFor(info).Shape()
	if err != nil {
		return err
	}
	domain := groth16.Shape{Constraints: s.Constraints}.DomainSize()
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"ic (inputs incl. ONE)", len(p.VK.IC), s.Inputs},
		{"l (aux variables)", len(p.L), s.Aux},
		{"h (domain − 1)", len(p.H), domain - 1},
	} {
		if c.got != c.want {
			return fmt.Errorf("%w: %s parameters have %d %s points, the circuit needs %d",
				groth16.ErrParamsMismatch, id, c.got, c.what, c.want)
		}
	}
	return nil
}

// SetupFilecoin generates DEVELOPMENT parameters for a Filecoin circuit id
// ("porep-2k" …) and writes them in the real layout under the real file
// names (the .params and the .vk) into dir, so that a daemon reading dir
// finds them where a real parameter set would be. The setup is seeded by
// the id, so anyone can derive its trapdoor: proofs made with these
// parameters prove nothing. It refuses to replace an existing file unless
// force is set. It returns the .params path.
func SetupFilecoin(ctx context.Context, id, dir string, force bool, log *slog.Logger) (string, error) {
	info, err := filecoin.ParsePoRepCircuitID(id)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, info.ParamsFile())
	vkPath := filepath.Join(dir, info.VKFile())
	if !force {
		for _, f := range []string{path, vkPath} {
			if _, err := os.Stat(f); err == nil {
				return "", fmt.Errorf("circuits: %s exists (a real or earlier parameter file); not replacing it", f)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("circuits: parameter directory: %w", err)
	}
	t0 := time.Now()
	p, err := groth16.Setup(porep.Blank(info), []byte("cuzk dev setup "+id))
	if err != nil {
		return "", fmt.Errorf("circuits: %s setup: %w", id, err)
	}
	// The .vk first, the .params last, each renamed into place: a setup
	// cut short leaves no file a later load would take for a whole one.
	if err := writeRenamed(vkPath, func(tmp string) error { return groth16.WriteVerifyingKey(tmp, &p.VK) }); err != nil {
		return "", err
	}
	if err := writeRenamed(path, func(tmp string) error { return groth16.WriteParams(tmp, p) }); err != nil {
		return "", err
	}
	if log != nil {
		log.Info("development parameters generated", "circuit", id, "path", path, "took", time.Since(t0).Round(time.Millisecond))
	}
	return path, nil
}

func writeRenamed(path string, write func(tmp string) error) error {
	tmp := fmt.Sprintf("%s.tmp-%d", path, os.Getpid())
	if err := write(tmp); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("circuits: %w", err)
	}
	return nil
}
