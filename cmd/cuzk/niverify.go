package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/circuits/porep"
	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/groth16"
	"github.com/cuzk-project/cuzk/groth16/aggregate"
)

// devAggregationSeed seeds the development SnarkPack SRS a daemon.dev
// daemon aggregates non-interactive PoRep with when srs.param_cache has no
// SRS file: public, so its aggregates are forgeable — never for mainnet.
const devAggregationSeed = "cuzk daemon.dev SnarkPack SRS"

// aggregationSRS is the SnarkPack SRS of the parameter directory dir, or
// with dev the development one.
func aggregationSRS(dir string, dev bool) circuits.AggregationSRS {
	if dev {
		return circuits.NewDevSRS([]byte(devAggregationSeed))
	}
	return circuits.NewFileSRS(filepath.Join(dir, circuits.AggregationSRSFile))
}

// nonInteractiveSeal is d's SealVerifyInfo when d is the public data of a
// non-interactive PoRep (whose proof is an aggregate).
func nonInteractiveSeal(d publicData) (*filecoin.SealVerifyInfo, bool) {
	s, ok := d.(sealData)
	if !ok {
		return nil, false
	}
	info, err := s.v.SealProof.Info()
	return s.v, err == nil && info.Feature == filecoin.NonInteractive
}

// verifyNonInteractive checks proof, the aggregate of a non-interactive
// PoRep, against its SealVerifyInfo v and prints the verdict: exit 0
// valid, 1 invalid, 2 (the error) when it could not run.
func (o *verifyOptions) verifyNonInteractive(w io.Writer, v *filecoin.SealVerifyInfo, vk *groth16.VerifyingKey, proof []byte) error {
	if o.partition >= 0 {
		return errors.New("--partition: a non-interactive PoRep's proof is one aggregate of its partitions")
	}
	seal := *v
	seal.Proof = proof
	err := circuits.VerifyNIPoRep(aggregationSRS(paramsDir(o.paramsDir), o.devSRS), vk, &seal)
	switch {
	case err == nil:
		fmt.Fprintln(w, "valid")
		return nil
	case errors.Is(err, aggregate.ErrInvalid), errors.Is(err, porep.ErrBadSeal):
		fmt.Fprintf(w, "invalid (%v)\n", err)
		return exitError{1}
	}
	return err
}
