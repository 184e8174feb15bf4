package circuits

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/cuzk-project/cuzk/circuits/porep"
	cpost "github.com/cuzk-project/cuzk/circuits/post"
	cupdate "github.com/cuzk-project/cuzk/circuits/update"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/filecoin"
	fpost "github.com/cuzk-project/cuzk/filecoin/post"
	fupdate "github.com/cuzk-project/cuzk/filecoin/update"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/r1cs"
)

// filecoinCircuit is what the parameter files of one Filecoin circuit id
// are made of and named by: its registry's file names, its shape and its
// blank partition (zero values, for the setup).
type filecoinCircuit struct {
	paramsFile, vkFile string
	shape              func() (r1cs.Shape, error)
	blank              func() r1cs.Circuit
}

// lookupFilecoin finds a Filecoin circuit id in the registries of the
// three proof families: "porep-<size>" (filecoin), "winning-<size>" and
// "wpost-<size>" (filecoin/post), "snap-<size>" (filecoin/update). Other
// ids wrap engine.ErrUnknownCircuit.
func lookupFilecoin(id string) (filecoinCircuit, error) {
	if info, err := filecoin.ParsePoRepCircuitID(id); err == nil {
		return filecoinCircuit{info.ParamsFile(), info.VKFile(), porep.ConfigFor(info).Shape,
			func() r1cs.Circuit { return porep.Blank(info) }}, nil
	}
	if info, err := fpost.ParseCircuitID(id); err == nil {
		return filecoinCircuit{info.ParamsFile(), info.VKFile(), cpost.ConfigFor(info).Shape,
			func() r1cs.Circuit { return cpost.Blank(info) }}, nil
	}
	if info, err := fupdate.ParseCircuitID(id); err == nil {
		return filecoinCircuit{info.ParamsFile(), info.VKFile(), cupdate.ConfigFor(info).Shape,
			func() r1cs.Circuit { return cupdate.Blank(info) }}, nil
	}
	return filecoinCircuit{}, fmt.Errorf("%w: %q is not a Filecoin circuit id (porep-, winning-, wpost- or snap- and 2k, 8m, 512m, 32g or 64g)",
		engine.ErrUnknownCircuit, id)
}

// CheckFilecoinParams compares the header of the parameters loaded for a
// Filecoin circuit id with the circuit's shape: one IC point per input
// (ONE included), one L point per aux variable, m − 1 H points for the
// domain of m rows. A file of another circuit (a wrong size, a file renamed)
// fails here, at load, not mid-proof. Ids of other families pass unchecked.
// The error wraps groth16.ErrParamsMismatch.
func CheckFilecoinParams(id string, p *groth16.Params) error {
	c, err := lookupFilecoin(id)
	if err != nil {
		return nil
	}
	s, err := c.shape()
	if err != nil {
		return err
	}
	domain := groth16.Shape{Constraints: s.Constraints}.DomainSize()
	for _, c := range []struct {
		what      string
		got, want int
	}{
		{"ic (inputs incl. ONE)", len(p.VK.IC), s.Inputs},
		{"l (aux variables)", p.Len(groth16.QueryL), s.Aux},
		{"h (domain − 1)", p.Len(groth16.QueryH), domain - 1},
	} {
		if c.got != c.want {
			return fmt.Errorf("%w: %s parameters have %d %s points, the circuit needs %d",
				groth16.ErrParamsMismatch, id, c.got, c.what, c.want)
		}
	}
	return nil
}

// SetupFilecoin generates DEVELOPMENT parameters for a Filecoin circuit id
// ("porep-2k", "winning-2k", "wpost-2k", "snap-2k" …) and writes them in the real layout under the real file
// names (the .params and the .vk) into dir, so that a daemon reading dir
// finds them where a real parameter set would be. The setup is seeded by
// the id, so anyone can derive its trapdoor: proofs made with these
// parameters prove nothing. It refuses to replace an existing file unless
// force is set. It returns the .params path. It is SetupFilecoinWith on
// the CPU.
func SetupFilecoin(ctx context.Context, id, dir string, force bool, log *slog.Logger) (string, error) {
	path, _, err := SetupFilecoinWith(ctx, id, dir, force, log, groth16.SetupOptions{})
	return path, err
}

// SetupFilecoinWith is SetupFilecoin with the setup's options (a G1
// fixed-base device, progress) and its report. The .params is streamed to
// disk query by query (groth16.WriteSetup), the circuit's shape given so
// that it is synthesized once. With force, existing files are removed
// before the new ones are written, so that the disk holds one set at a
// time (a 32 GiB PoRep set is ≈ 47 GB).
func SetupFilecoinWith(ctx context.Context, id, dir string, force bool, log *slog.Logger, opts groth16.SetupOptions) (string, *groth16.SetupReport, error) {
	c, err := lookupFilecoin(id)
	if err != nil {
		return "", nil, err
	}
	path := filepath.Join(dir, c.paramsFile)
	vkPath := filepath.Join(dir, c.vkFile)
	for _, f := range []string{path, vkPath} {
		if _, err := os.Stat(f); err != nil {
			continue
		}
		if !force {
			return "", nil, fmt.Errorf("circuits: %s exists (a real or earlier parameter file); not replacing it", f)
		}
		if err := os.Remove(f); err != nil {
			return "", nil, fmt.Errorf("circuits: replacing %s: %w", f, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return "", nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, fmt.Errorf("circuits: parameter directory: %w", err)
	}
	if opts.Shape == nil {
		s, err := c.shape()
		if err != nil {
			return "", nil, fmt.Errorf("circuits: %s shape: %w", id, err)
		}
		opts.Shape = &s
	}
	t0 := time.Now()
	// The .params to a temporary name, then the .vk, each renamed into
	// place, the .params last: a setup cut short leaves no file a later
	// load would take for a whole one.
	var vk *groth16.VerifyingKey
	var rep *groth16.SetupReport
	err = writeRenamed(path, func(tmp string) error {
		f, err := os.Create(tmp)
		if err != nil {
			return err
		}
		vk, rep, err = groth16.WriteSetup(ctx, f, c.blank(), []byte("cuzk dev setup "+id), opts)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("circuits: %s setup: %w", id, err)
		}
		return writeRenamed(vkPath, func(tmp string) error { return groth16.WriteVerifyingKey(tmp, vk) })
	})
	if err != nil {
		return "", nil, err
	}
	if log != nil {
		log.Info("development parameters generated", "circuit", id, "path", path, "took", time.Since(t0).Round(time.Millisecond))
	}
	return path, rep, nil
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
