package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/cuzk-project/cuzk/client"
	"github.com/cuzk-project/cuzk/engine"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// runRemote proves the request file through the daemon at --addr (the
// Prove RPC: the daemon checks, proves and verifies it), writes the proof
// and, with --public, fills the public data as the in-process path does:
// after checking the proof against it with the verifying key of
// --params-dir.
func (o *proveOptions) runRemote(ctx context.Context, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	p, err := readRequest(o.request)
	if err != nil {
		return err
	}
	req, err := loadRequest(o.request, "") // the daemon's own checks, before the call
	if err != nil {
		return err
	}
	var public publicData
	if o.public != "" { // read first: a bad file fails before the proof
		if public, err = o.readPublicFor(req); err != nil {
			return err
		}
		if _, err := o.verifyingKey(public); err != nil {
			return fmt.Errorf("--public needs the verifying key to check the daemon's proof against it: %w", err)
		}
	}
	start := time.Now()
	var r *cuzkv1.AwaitProofResponse
	stop := elapsedProgress(stderr, "prove "+o.request+" at "+o.remote.addr)
	err = o.remote.call(ctx, func(ctx context.Context, c *client.Client) error {
		var err error
		r, err = c.Prove(ctx, p)
		return err
	})
	stop()
	if err != nil {
		return err
	}
	if len(r.Proof) == 0 {
		return fmt.Errorf("job %s: the daemon returned no proof", r.JobId)
	}
	if err := os.WriteFile(o.out, r.Proof, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %d bytes of job %s, proved and verified by the daemon in %v (wall %v)\n",
		o.out, len(r.Proof), r.JobId, time.Duration(r.TotalMs)*time.Millisecond,
		time.Since(start).Round(time.Millisecond))
	if public == nil {
		return nil
	}
	partition := -1
	if req.Kind == engine.KindWindowPoStPartition {
		partition = int(req.PartitionIndex)
	}
	return fillPublic(stdout, o.public, public, partition, r.Proof, paramsDir(o.paramsDir), o.devSRS)
}
