package gen

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/cuzk-project/cuzk/filecoin/sdr"
	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/hash/merkle"
)

// denseColumns holds every label of every node: labels[l−1][v] is node v's
// label in layer l.
type denseColumns struct{ labels [][]hash.Domain }

func (dc *denseColumns) column(v uint32) ([]hash.Domain, bool) {
	if len(dc.labels) == 0 || uint64(v) >= uint64(len(dc.labels[0])) {
		return nil, false
	}
	rows := make([]hash.Domain, len(dc.labels))
	for l := range dc.labels {
		rows[l] = dc.labels[l][v]
	}
	return rows, true
}

// parallel runs f(lo, hi) over [0, n) in GOMAXPROCS contiguous chunks and
// returns the first error; every goroutine has returned when it does.
func parallel(n uint64, f func(lo, hi uint64) error) error {
	workers := uint64(max(1, runtime.GOMAXPROCS(0)))
	chunk := (n + workers - 1) / workers
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*chunk, min(n, (w+1)*chunk)
		if lo >= hi {
			break
		}
		wg.Go(func() { errs[w] = f(lo, hi) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// labelDense runs SDR over the whole sector: every layer's label of every
// node, as sealing does (node 0 has no parents).
func labelDense(ctx context.Context, g *sdr.Graph, replicaID [32]byte, layers int, nodes uint64, step func()) (*denseColumns, error) {
	parents := make([][14]uint32, nodes)
	if err := parallel(nodes, func(lo, hi uint64) error {
		for v := lo; v < hi; v++ {
			g.Parents(uint32(v), &parents[v])
		}
		return nil
	}); err != nil {
		return nil, err
	}
	dc := &denseColumns{labels: make([][]hash.Domain, layers)}
	for l := 1; l <= layers; l++ {
		cur := make([]hash.Domain, nodes)
		var below []hash.Domain
		if l > 1 {
			below = dc.labels[l-2]
		}
		for v := range nodes {
			if v%(1<<14) == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			var drg [6][32]byte
			var exp [8][32]byte
			for j, p := range parents[v][:6] {
				drg[j] = cur[p]
			}
			if l > 1 {
				for j, p := range parents[v][6:] {
					exp[j] = below[p]
				}
			}
			expanded := sdr.ExpandParents(l, &drg, &exp)
			cur[v] = sdr.Label(replicaID, uint32(l), v, &expanded)
		}
		dc.labels[l-1] = cur
		step()
	}
	return dc, nil
}

// denseTrees builds the trees C and R of a densely labelled sector. They
// are merkle.Sparse trees with every leaf set: the same root and proofs as
// a full merkle.Tree, with each level hashed on every CPU.
func denseTrees(dc *denseColumns, shape merkle.Shape, nodes uint64, step func()) (treeC, treeR *merkle.Sparse, err error) {
	hashes := make([]hash.Domain, nodes)
	if err := parallel(nodes, func(lo, hi uint64) error {
		rows := make([]hash.Domain, len(dc.labels))
		for v := lo; v < hi; v++ {
			for l := range dc.labels {
				rows[l] = dc.labels[l][v]
			}
			var err error
			if hashes[v], err = columnLeaf(rows); err != nil {
				return fmt.Errorf("gen: column hash %d: %w", v, err)
			}
		}
		return nil
	}); err != nil {
		return nil, nil, err
	}
	step()
	leaves := make(map[uint64]hash.Domain, nodes)
	for v, h := range hashes {
		leaves[uint64(v)] = h
	}
	if treeC, err = merkle.NewSparse(merkle.Poseidon{}, shape, nodes, leaves); err != nil {
		return nil, nil, fmt.Errorf("gen: tree C: %w", err)
	}
	step()
	clear(leaves)
	for v, r := range dc.labels[len(dc.labels)-1] {
		leaves[uint64(v)] = r
	}
	if treeR, err = merkle.NewSparse(merkle.Poseidon{}, shape, nodes, leaves); err != nil {
		return nil, nil, fmt.Errorf("gen: tree R: %w", err)
	}
	step()
	return treeC, treeR, nil
}
