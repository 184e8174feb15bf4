package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/circuits/porep"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/post"
	"github.com/cuzk-project/cuzk/filecoin/update"
	"github.com/cuzk-project/cuzk/groth16"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// Public-data files hold what a chain verifier knows of a proof, in the
// JSON of go-state-types' proof package: SealVerifyInfo (PoRep),
// WinningPoStVerifyInfo, WindowPoStVerifyInfo and ReplicaUpdateInfo
// (SnapDeals), the proof field empty until cuzk prove --public fills it.
// Every public input is computed from them; nothing comes from a prover.

// errBadPublic reports public data, or proof bytes, that no valid proof
// has: a commitment that is no field element, a randomness of the wrong
// length, a proof of the wrong length or encoding. Verification answers
// invalid.
var errBadPublic = errors.New("bad public data or proof")

// publicData is one public-data file's content.
type publicData interface {
	// form is the go-state-types type name.
	form() string
	// kind is the proof kind of the requests whose proofs it verifies.
	kind() cuzkv1.ProofKind
	// circuit is the circuit id and the name of its .vk file.
	circuit() (id, vkFile string)
	proof() []byte
	setProof([]byte)
	// inputs are every partition's public inputs, ONE excluded. An error
	// wrapping errBadPublic means that no proof is valid for the data.
	inputs() ([][]fr.Element, error)
}

func readPublic(path string) (publicData, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	d, err := decodePublic(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

func writePublic(path string, d publicData) error {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// decodePublic tells the four forms apart by the field only each has
// (SealProof, UpdateProofType, ChallengedSectors; WinningPoSt and
// WindowPoSt by the registered proof, their JSON being the same) and
// decodes strictly: a field the form does not have is an error.
func decodePublic(b []byte) (publicData, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, fmt.Errorf("not a SealVerifyInfo, WinningPoStVerifyInfo, WindowPoStVerifyInfo or ReplicaUpdateInfo: %w", err)
	}
	has := func(name string) bool {
		for k := range fields {
			if strings.EqualFold(k, name) { // as encoding/json matches them
				return true
			}
		}
		return false
	}
	switch {
	case has("SealProof"):
		v, err := decodeSeal(b)
		if err != nil {
			return nil, err
		}
		return sealData{v}, nil
	case has("UpdateProofType"):
		var v update.ReplicaUpdateInfo
		if err := decodeStrict(b, &v); err != nil {
			return nil, fmt.Errorf("not a ReplicaUpdateInfo: %w", err)
		}
		info, err := v.UpdateProofType.Info()
		if err != nil {
			return nil, fmt.Errorf("UpdateProofType %d: %w", v.UpdateProofType, err)
		}
		return &snapData{&v, info}, nil
	case has("ChallengedSectors"):
		var v post.WindowPoStVerifyInfo // the Winning form's JSON too
		if err := decodeStrict(b, &v); err != nil {
			return nil, fmt.Errorf("not a WinningPoStVerifyInfo or WindowPoStVerifyInfo: %w", err)
		}
		if len(v.Proofs) != 1 {
			return nil, fmt.Errorf("Proofs: %d, want the one PoStProof a WinningPoSt or WindowPoSt has", len(v.Proofs))
		}
		info, err := v.Proofs[0].PoStProof.Info()
		if err != nil {
			return nil, fmt.Errorf("Proofs[0].PoStProof %d: %w", v.Proofs[0].PoStProof, err)
		}
		if info.Winning {
			w := post.WinningPoStVerifyInfo(v)
			return &winningData{&w, info}, nil
		}
		return &windowData{&v, info}, nil
	}
	return nil, errors.New("not a SealVerifyInfo, WinningPoStVerifyInfo, WindowPoStVerifyInfo or ReplicaUpdateInfo: it has none of SealProof, ChallengedSectors, UpdateProofType")
}

func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data")
	}
	return nil
}

// verifyPublic checks proof (partitions × 192 bytes) against the inputs
// computed from d, all partitions in one batch; with partition ≥ 0 only
// that partition, proof then being its 192 bytes or the whole proof's.
// nil: valid; errors wrapping groth16.ErrInvalidProof or errBadPublic:
// invalid; any other: verification could not run.
func verifyPublic(d publicData, vk *groth16.VerifyingKey, proof []byte, partition int) error {
	inputs, err := d.inputs()
	if err != nil {
		return err
	}
	n := len(inputs)
	if partition >= n {
		return fmt.Errorf("--partition %d: the proof has partitions 0..%d", partition, n-1)
	}
	if partition >= 0 {
		switch len(proof) {
		case groth16.ProofSize:
		case n * groth16.ProofSize:
			proof = proof[partition*groth16.ProofSize : (partition+1)*groth16.ProofSize]
		default:
			return fmt.Errorf("%w: the proof has %d bytes, want %d (partition %d) or %d partitions × %d",
				errBadPublic, len(proof), groth16.ProofSize, partition, n, groth16.ProofSize)
		}
		inputs = inputs[partition : partition+1]
	} else if len(proof) != n*groth16.ProofSize {
		hint := ""
		if len(proof) == groth16.ProofSize {
			hint = " (one partition's proof: give --partition K)"
		}
		return fmt.Errorf("%w: the proof has %d bytes, want %d partitions × %d%s", errBadPublic, len(proof), n, groth16.ProofSize, hint)
	}
	for k := range len(proof) / groth16.ProofSize {
		if bytes.Count(proof[k*groth16.ProofSize:(k+1)*groth16.ProofSize], []byte{0}) == groth16.ProofSize {
			return fmt.Errorf("%w: partition %d has no proof yet (prove its request, or verify the others with --partition)", errBadPublic, k+max(partition, 0))
		}
	}
	proofs, err := groth16.DecodeProofs(proof)
	if err != nil {
		return fmt.Errorf("%w: %w", errBadPublic, err)
	}
	pvk, err := groth16.PrepareVerifyingKey(vk)
	if err != nil {
		return err
	}
	return groth16.BatchVerify(pvk, proofs, inputs, nil)
}

// sealData is a PoRep seal's SealVerifyInfo.
type sealData struct{ v *filecoin.SealVerifyInfo }

func (d sealData) form() string                 { return "SealVerifyInfo" }
func (d sealData) kind() cuzkv1.ProofKind       { return cuzkv1.ProofKind_POREP_SEAL_COMMIT }
func (d sealData) proof() []byte                { return d.v.Proof }
func (d sealData) setProof(b []byte)            { d.v.Proof = b }
func (d sealData) MarshalJSON() ([]byte, error) { return json.Marshal(d.v) }

func (d sealData) circuit() (string, string) {
	info, _ := d.v.SealProof.Info() // checked by decodeSeal
	return info.CircuitID(), info.VKFile()
}

// inputs derive replica_id from the miner, sector, ticket, comm_d and
// porep_id and the challenges from the seed, as verify_seal does.
func (d sealData) inputs() ([][]fr.Element, error) {
	s, err := porep.SealOf(d.v)
	if err != nil {
		return nil, publicErr(err, porep.ErrBadSeal)
	}
	in, err := s.Inputs()
	return in, publicErr(err, porep.ErrBadSeal)
}

// winningData is a WinningPoStVerifyInfo.
type winningData struct {
	v    *post.WinningPoStVerifyInfo
	info post.Info
}

func (d *winningData) form() string                 { return "WinningPoStVerifyInfo" }
func (d *winningData) kind() cuzkv1.ProofKind       { return cuzkv1.ProofKind_WINNING_POST }
func (d *winningData) circuit() (string, string)    { return d.info.CircuitID(), d.info.VKFile() }
func (d *winningData) proof() []byte                { return d.v.Proofs[0].ProofBytes }
func (d *winningData) setProof(b []byte)            { d.v.Proofs[0].ProofBytes = b }
func (d *winningData) MarshalJSON() ([]byte, error) { return json.Marshal(d.v) }

// inputs are 66 × [comm_r, leaf n] of the one challenged sector.
func (d *winningData) inputs() ([][]fr.Element, error) {
	_, in, err := d.v.PublicInputs()
	if err != nil {
		return nil, publicErr(err, post.ErrBadVanillaProof)
	}
	return [][]fr.Element{in}, nil
}

// windowData is a WindowPoStVerifyInfo: every partition of a deadline's
// proof.
type windowData struct {
	v    *post.WindowPoStVerifyInfo
	info post.Info
}

func (d *windowData) form() string                 { return "WindowPoStVerifyInfo" }
func (d *windowData) kind() cuzkv1.ProofKind       { return cuzkv1.ProofKind_WINDOW_POST_PARTITION }
func (d *windowData) circuit() (string, string)    { return d.info.CircuitID(), d.info.VKFile() }
func (d *windowData) proof() []byte                { return d.v.Proofs[0].ProofBytes }
func (d *windowData) setProof(b []byte)            { d.v.Proofs[0].ProofBytes = b }
func (d *windowData) MarshalJSON() ([]byte, error) { return json.Marshal(d.v) }

// inputs take the sectors in number order, SectorCount per partition.
func (d *windowData) inputs() ([][]fr.Element, error) {
	_, in, err := d.v.PublicInputs()
	return in, publicErr(err, post.ErrBadVanillaProof)
}

// snapData is a ReplicaUpdateInfo.
type snapData struct {
	v    *update.ReplicaUpdateInfo
	info update.Info
}

func (d *snapData) form() string                 { return "ReplicaUpdateInfo" }
func (d *snapData) kind() cuzkv1.ProofKind       { return cuzkv1.ProofKind_SNAP_DEALS_UPDATE }
func (d *snapData) circuit() (string, string)    { return d.info.CircuitID(), d.info.VKFile() }
func (d *snapData) proof() []byte                { return d.v.Proof }
func (d *snapData) setProof(b []byte)            { d.v.Proof = b }
func (d *snapData) MarshalJSON() ([]byte, error) { return json.Marshal(d.v) }

// inputs are [k_and_h_select, comm_r_old, comm_d_new, comm_r_new] per
// partition.
func (d *snapData) inputs() ([][]fr.Element, error) {
	old, rNew, dNew, err := d.v.Comms()
	if err != nil {
		return nil, publicErr(err, filecoin.ErrBadCID)
	}
	out := make([][]fr.Element, d.info.Partitions)
	for k := range out {
		if out[k], err = update.PublicInputs(d.info, k, old, dNew, rNew); err != nil {
			return nil, publicErr(err, update.ErrBadComm)
		}
	}
	return out, nil
}

// publicErr marks err as errBadPublic when it wraps bad, the error its
// package reports public data with that no proof is valid for.
func publicErr(err, bad error) error {
	if err != nil && errors.Is(err, bad) {
		return fmt.Errorf("%w: %w", errBadPublic, err)
	}
	return err
}
