package post

import (
	"fmt"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-project/cuzk/r1cs"
)

// Assign synthesizes p into bellperson's prover assignment on up to workers
// goroutines: the result equals r1cs.Synthesize into
// r1cs.NewProvingAssignment(p.Config.Shape()) value for value (a, b, c,
// inputs, aux and the three densities), input rows included.
//
// This is the reference prover's synthesize_extendable: contiguous chunks
// of circuit sectors, each synthesized into its own assignment with a
// temporary ONE input, appended in order. Every circuit sector has the
// same rows and variables, so each chunk's place in the whole is known
// before it starts: its a, b, c and aux are written straight into the
// final slices (no copy, no second 12 GB at 32 GiB), its inputs and
// densities are merged afterwards. A chunk's rows name its own variables,
// which is harmless: a prover assignment keeps only the evaluated a, b and
// c of a row.
func (p *Partition) Assign(workers int) (*r1cs.ProvingAssignment, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	shape, err := p.Config.Shape()
	if err != nil {
		return nil, err
	}
	per, err := p.Config.circuitSectorShape()
	if err != nil {
		return nil, err
	}
	n := p.Config.Sectors
	pa := newSectorsAssignment(shape, per, n)
	chunks := sectorChunks(n, workers)
	var wg sync.WaitGroup
	for i := range chunks {
		ch := &chunks[i]
		wg.Go(func() { ch.cs, ch.err = p.assignChunk(pa, per, ch.from, ch.to) })
	}
	wg.Wait()
	for i := range chunks {
		if chunks[i].err != nil {
			return nil, chunks[i].err
		}
	}
	for _, ch := range chunks {
		mergeChunk(pa, per, ch.from, ch.cs)
	}
	r1cs.Finalize(pa)
	return pa, nil
}

// circuitSectorShape is what one circuit sector allocates and enforces:
// its own rows and those of its c.Challenges challenges.
func (c Config) circuitSectorShape() (r1cs.Shape, error) {
	sector, challenge, err := c.sectorShape()
	if err != nil {
		return r1cs.Shape{}, err
	}
	return r1cs.Shape{
		Inputs:      sector.Inputs + c.Challenges*challenge.Inputs,
		Aux:         sector.Aux + c.Challenges*challenge.Aux,
		Constraints: sector.Constraints + c.Challenges*challenge.Constraints,
	}, nil
}

// newSectorsAssignment is the prover assignment of shape, holding ONE,
// with its a, b, c, aux and inputs cut to the n circuit sectors of shape
// per each (their capacity stays shape's) and its densities sized to
// them, for the chunks to write into.
func newSectorsAssignment(shape, per r1cs.Shape, n int) *r1cs.ProvingAssignment {
	pa := r1cs.NewProvingAssignment(shape)
	pa.AllocInput(oneValue)
	pa.A = pa.A[:n*per.Constraints]
	pa.B = pa.B[:n*per.Constraints]
	pa.C = pa.C[:n*per.Constraints]
	pa.Aux = pa.Aux[:n*per.Aux]
	pa.Input = pa.Input[:1+n*per.Inputs]
	pa.ADensityAux = *r1cs.NewBitmap(n * per.Aux)
	pa.BDensityAux = *r1cs.NewBitmap(n * per.Aux)
	pa.BDensityInput = *r1cs.NewBitmap(1 + n*per.Inputs)
	return pa
}

// sectorChunk is one goroutine's share of Assign: circuit sectors
// [from, to) and the assignment they were synthesized into.
type sectorChunk struct {
	from, to int
	cs       *r1cs.ProvingAssignment
	err      error
}

// sectorChunks cuts n circuit sectors into at most workers contiguous
// chunks of equal size, the last one shorter.
func sectorChunks(n, workers int) []sectorChunk {
	workers = max(1, min(workers, n))
	size := (n + workers - 1) / workers
	chunks := make([]sectorChunk, 0, workers)
	for from := 0; from < n; from += size {
		chunks = append(chunks, sectorChunk{from: from, to: min(from+size, n)})
	}
	return chunks
}

// assignChunk synthesizes circuit sectors [from, to) into their place in
// pa's a, b, c and aux, with inputs of their own behind a temporary ONE.
func (p *Partition) assignChunk(pa *r1cs.ProvingAssignment, per r1cs.Shape, from, to int) (*r1cs.ProvingAssignment, error) {
	rows, aux := from*per.Constraints, from*per.Aux
	m := to - from
	cs := &r1cs.ProvingAssignment{
		A:     pa.A[rows : rows : rows+m*per.Constraints],
		B:     pa.B[rows : rows : rows+m*per.Constraints],
		C:     pa.C[rows : rows : rows+m*per.Constraints],
		Aux:   pa.Aux[aux : aux : aux+m*per.Aux],
		Input: make([]fr.Element, 0, 1+m*per.Inputs),
	}
	cs.AllocInput(oneValue) // the chunk's temporary ONE
	if err := p.synthesize(cs, from, to); err != nil {
		return nil, err
	}
	// Appends within capacity write in place; a chunk that outgrew its
	// place would have moved and be caught here.
	if len(cs.A) != m*per.Constraints || len(cs.Aux) != m*per.Aux || len(cs.Input) != 1+m*per.Inputs {
		return nil, fmt.Errorf("post: sectors %d-%d synthesized %d rows, %d aux, %d inputs; their shape is %d, %d, %d",
			from, to-1, len(cs.A), len(cs.Aux), len(cs.Input)-1,
			m*per.Constraints, m*per.Aux, m*per.Inputs)
	}
	return cs, nil
}

// mergeChunk copies the inputs and ORs the densities of cs, the chunk
// starting at circuit sector from, into their place in pa.
func mergeChunk(pa *r1cs.ProvingAssignment, per r1cs.Shape, from int, cs *r1cs.ProvingAssignment) {
	copy(pa.Input[1+from*per.Inputs:], cs.Input[1:])
	orInto(&pa.ADensityAux, from*per.Aux, &cs.ADensityAux, 0)
	orInto(&pa.BDensityAux, from*per.Aux, &cs.BDensityAux, 0)
	// The temporary ONE is ONE: bit 0 merges with bit 0.
	if cs.BDensityInput.Get(0) {
		pa.BDensityInput.Set(0)
	}
	orInto(&pa.BDensityInput, 1+from*per.Inputs, &cs.BDensityInput, 1)
}

// orInto sets in dst, from bit off on, the bits of src from bit skip on.
func orInto(dst *r1cs.Bitmap, off int, src *r1cs.Bitmap, skip int) {
	for i := skip; i < src.N; {
		// Whole source words at once where both sides are aligned enough.
		if i%64 == 0 && src.N-i >= 64 {
			w := src.Words[i/64]
			if w != 0 {
				d, s := (off+i-skip)/64, uint(off+i-skip)%64
				dst.Words[d] |= w << s
				if s != 0 {
					dst.Words[d+1] |= w >> (64 - s)
				}
			}
			i += 64
			continue
		}
		if src.Get(i) {
			dst.Set(off + i - skip)
		}
		i++
	}
}
