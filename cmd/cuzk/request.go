package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/filecoin/c1"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
	"github.com/cuzk-project/cuzk/server"
)

// Request files are the protobuf JSON of cuzk.v1.SubmitProofRequest, the
// message a client sends to SubmitProof (grpcurl -d @ reads them as they
// are); seal files are go-state-types' SealVerifyInfo JSON.

// porepRequest is the request Curio's client sends for a PoRep C2 of
// miner's sector (curio lib/ffi cuzk_funcs.go PoRepSnarkCuzk): the id
// "porep-<miner>-<sector>", normal priority and the envelope of the C1.
func porepRequest(info filecoin.SealInfo, miner, sector uint64, envelope []byte) *cuzkv1.SubmitProofRequest {
	return &cuzkv1.SubmitProofRequest{
		RequestId:       fmt.Sprintf("porep-%d-%d", miner, sector),
		ProofKind:       cuzkv1.ProofKind_POREP_SEAL_COMMIT,
		SectorSize:      info.SectorSize,
		RegisteredProof: uint64(info.Proof),
		Priority:        cuzkv1.Priority_NORMAL,
		VanillaProof:    envelope,
		SectorNumber:    sector,
		MinerId:         miner,
	}
}

func writeRequest(path string, r *cuzkv1.SubmitProofRequest) error {
	b, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(r)
	if err != nil {
		return err
	}
	// protojson varies its spacing from build to build on purpose; the
	// file is indented by encoding/json instead, so equal requests are equal
	// files.
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	return os.WriteFile(path, out.Bytes(), 0o644)
}

// readRequest reads a request file; the field names may be the proto's or
// their JSON (camelCase) forms, as protojson accepts both.
func readRequest(path string) (*cuzkv1.SubmitProofRequest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r, err := decodeRequest(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

func decodeRequest(b []byte) (*cuzkv1.SubmitProofRequest, error) {
	var r cuzkv1.SubmitProofRequest
	if err := protojson.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("not a cuzk.v1.SubmitProofRequest in protobuf JSON: %w", err)
	}
	return &r, nil
}

// refusedError is a request the daemon would refuse before planning it
// (what server.RequestFromProto checks).
type refusedError struct{ err error }

func (e refusedError) Error() string { return e.err.Error() }
func (e refusedError) Unwrap() error { return e.err }

// loadRequest reads a request of any proof kind from a request file, or a
// PoRep C2 request from a vanilla proof file (a Curio envelope, or the
// bare C1 JSON, which it wraps in one) when requestPath is empty.
func loadRequest(requestPath, vanillaPath string) (engine.Request, error) {
	switch {
	case requestPath != "" && vanillaPath != "":
		return engine.Request{}, errors.New("give --request or --vanilla, not both")
	case requestPath != "":
		p, err := readRequest(requestPath)
		if err != nil {
			return engine.Request{}, err
		}
		// The daemon's own conversion and shape checks.
		r, err := server.RequestFromProto(p)
		if err != nil {
			return engine.Request{}, refusedError{err}
		}
		return r, nil
	case vanillaPath != "":
		b, err := os.ReadFile(vanillaPath)
		if err != nil {
			return engine.Request{}, err
		}
		if _, err := c1.DecodeEnvelope(b); err != nil {
			o, err := c1.Decode(b)
			if err != nil {
				return engine.Request{}, fmt.Errorf("%s: neither a Curio C1 envelope nor a C1 output: %w", vanillaPath, err)
			}
			b = (&c1.Envelope{Phase1Out: b, SectorSize: o.Info().SectorSize}).Encode()
		}
		return engine.Request{Kind: engine.KindPoRepSealCommit, VanillaProof: b}, nil
	}
	return engine.Request{}, errors.New("no request: give --request req.json, or --kind porep --vanilla c1.json")
}

func writeSeal(path string, v *filecoin.SealVerifyInfo) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func readSeal(path string) (*filecoin.SealVerifyInfo, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	v, err := decodeSeal(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// decodeSeal reads a SealVerifyInfo of a registered seal proof; a field
// it does not have (a request or a C1 given by mistake) is an error.
func decodeSeal(b []byte) (*filecoin.SealVerifyInfo, error) {
	var v filecoin.SealVerifyInfo
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not a SealVerifyInfo: %w", err)
	}
	if dec.More() {
		return nil, errors.New("not a SealVerifyInfo: trailing data")
	}
	if _, err := v.SealProof.Info(); err != nil {
		return nil, fmt.Errorf("SealProof %d: %w", v.SealProof, err)
	}
	return &v, nil
}
