package gen

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/cuzk-project/cuzk/filecoin/sdr"
	"github.com/cuzk-project/cuzk/hash"
	"github.com/cuzk-project/cuzk/hash/merkle"
)

// sparseColumns holds the columns of the touched nodes: the challenged ones
// (computed) and their other parents (chosen). Rows live in one backing
// array, L per node.
type sparseColumns struct {
	layers     int
	index      map[uint32]int // node → its column's offset in rows / layers
	rows       []hash.Domain
	challenged map[uint32]bool
}

func (sc *sparseColumns) column(v uint32) ([]hash.Domain, bool) {
	k, ok := sc.index[v]
	if !ok {
		return nil, false
	}
	return sc.rows[k*sc.layers : (k+1)*sc.layers : (k+1)*sc.layers], true
}

// labelSparse gives every parent of a challenged node that is not itself
// challenged a chosen column (drawn from seed), then computes the
// challenged nodes' labels layer by layer, within a layer in increasing
// node order. A DRG parent is a smaller node of the same layer and an
// expander parent is read from the layer below, so each label reads only
// values already final; a challenged node that is also a parent is read
// from its own computed column. challenged must be sorted and unique.
func labelSparse(ctx context.Context, g *sdr.Graph, replicaID [32]byte, layers int, seed uint64,
	challenged []uint64, step func()) (*sparseColumns, error) {
	isChallenged := make(map[uint32]bool, len(challenged))
	sc := &sparseColumns{layers: layers, index: make(map[uint32]int, len(challenged)*15), challenged: isChallenged}
	parents := make([][14]uint32, len(challenged))
	var order []uint32 // touched nodes, challenged first, each once
	add := func(v uint32) {
		if _, ok := sc.index[v]; !ok {
			sc.index[v] = len(order)
			order = append(order, v)
		}
	}
	for i, c := range challenged {
		isChallenged[uint32(c)] = true
		add(uint32(c))
		g.Parents(uint32(c), &parents[i])
	}
	for i := range challenged {
		for _, p := range parents[i] {
			add(p)
		}
	}
	sc.rows = make([]hash.Domain, len(order)*layers)
	for k, v := range order {
		if isChallenged[v] {
			continue
		}
		for l := 1; l <= layers; l++ {
			sc.rows[k*layers+l-1] = drawElement(seed, "label", uint64(v), uint64(l))
		}
	}
	step()

	for l := 1; l <= layers; l++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for i, c := range challenged {
			var drg [6][32]byte
			var exp [8][32]byte
			for j, p := range parents[i][:6] {
				if isChallenged[p] && uint64(p) >= c {
					return nil, fmt.Errorf("%w: DRG parent %d of node %d is not smaller", errInternal, p, c)
				}
				drg[j] = sc.rows[sc.index[p]*layers+l-1]
			}
			if l > 1 {
				for j, p := range parents[i][6:] {
					exp[j] = sc.rows[sc.index[p]*layers+l-2]
				}
			}
			expanded := sdr.ExpandParents(l, &drg, &exp)
			sc.rows[sc.index[uint32(c)]*layers+l-1] = sdr.Label(replicaID, uint32(l), c, &expanded)
		}
		step()
	}
	return sc, nil
}

// sparseTrees builds trees C and R: tree C's leaves are the column hashes
// of the touched nodes, tree R's the replicas (the last label plus zero
// data) of the challenged ones, the only leaves of tree R a proof opens.
// Every other leaf is zero. The column hashes are spread over GOMAXPROCS
// goroutines, all done before it returns.
func sparseTrees(sc *sparseColumns, shape merkle.Shape, nodes uint64, step func()) (treeC, treeR *merkle.Sparse, err error) {
	nodesOf := make([]uint32, 0, len(sc.index))
	for v := range sc.index {
		nodesOf = append(nodesOf, v)
	}
	slices.Sort(nodesOf)
	hashes := make([]hash.Domain, len(nodesOf))
	workers := max(1, min(runtime.GOMAXPROCS(0), len(nodesOf)/16))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for k := w; k < len(nodesOf); k += workers {
				rows, _ := sc.column(nodesOf[k])
				if hashes[k], errs[w] = columnLeaf(rows); errs[w] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, fmt.Errorf("gen: column hash: %w", err)
		}
	}
	leavesC := make(map[uint64]hash.Domain, len(nodesOf))
	leavesR := make(map[uint64]hash.Domain, len(sc.challenged))
	for k, v := range nodesOf {
		rows, _ := sc.column(v)
		leavesC[uint64(v)] = hashes[k]
		if sc.challenged[v] {
			leavesR[uint64(v)] = rows[len(rows)-1]
		}
	}
	if treeC, err = merkle.NewSparse(merkle.Poseidon{}, shape, nodes, leavesC); err != nil {
		return nil, nil, fmt.Errorf("gen: tree C: %w", err)
	}
	step()
	if treeR, err = merkle.NewSparse(merkle.Poseidon{}, shape, nodes, leavesR); err != nil {
		return nil, nil, fmt.Errorf("gen: tree R: %w", err)
	}
	step()
	return treeC, treeR, nil
}
