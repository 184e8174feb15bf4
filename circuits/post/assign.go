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
	c := p.Config
	shape, err := c.Shape()
	if err != nil {
		return nil, err
	}
	sector, challenge, err := c.sectorShape()
	if err != nil {
		return nil, err
	}
	per := r1cs.Shape{
		Inputs:      sector.Inputs + c.Challenges*challenge.Inputs,
		Aux:         sector.Aux + c.Challenges*challenge.Aux,
		Constraints: sector.Constraints + c.Challenges*challenge.Constraints,
	}
	n := c.Sectors
	workers = max(1, min(workers, n))
	size := (n + workers - 1) / workers

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

	type chunk struct {
		from, to int
		cs       *r1cs.ProvingAssignment
		err      error
	}
	chunks := make([]chunk, 0, workers)
	for from := 0; from < n; from += size {
		chunks = append(chunks, chunk{from: from, to: min(from+size, n)})
	}
	var wg sync.WaitGroup
	for i := range chunks {
		ch := &chunks[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			rows, aux := ch.from*per.Constraints, ch.from*per.Aux
			m := ch.to - ch.from
			cs := &r1cs.ProvingAssignment{
				A:     pa.A[rows : rows : rows+m*per.Constraints],
				B:     pa.B[rows : rows : rows+m*per.Constraints],
				C:     pa.C[rows : rows : rows+m*per.Constraints],
				Aux:   pa.Aux[aux : aux : aux+m*per.Aux],
				Input: make([]fr.Element, 0, 1+m*per.Inputs),
			}
			cs.AllocInput(oneValue) // the chunk's temporary ONE
			if err := p.synthesize(cs, ch.from, ch.to); err != nil {
				ch.err = err
				return
			}
			// Appends within capacity write in place; a chunk that
			// outgrew its place would have moved and be caught here.
			if len(cs.A) != m*per.Constraints || len(cs.Aux) != m*per.Aux || len(cs.Input) != 1+m*per.Inputs {
				ch.err = fmt.Errorf("post: sectors %d-%d synthesized %d rows, %d aux, %d inputs; their shape is %d, %d, %d",
					ch.from, ch.to-1, len(cs.A), len(cs.Aux), len(cs.Input)-1,
					m*per.Constraints, m*per.Aux, m*per.Inputs)
				return
			}
			ch.cs = cs
		}()
	}
	wg.Wait()
	for i := range chunks {
		if chunks[i].err != nil {
			return nil, chunks[i].err
		}
	}
	for _, ch := range chunks {
		copy(pa.Input[1+ch.from*per.Inputs:], ch.cs.Input[1:])
		orInto(&pa.ADensityAux, ch.from*per.Aux, &ch.cs.ADensityAux, 0)
		orInto(&pa.BDensityAux, ch.from*per.Aux, &ch.cs.BDensityAux, 0)
		// The temporary ONE is ONE: bit 0 merges with bit 0.
		if ch.cs.BDensityInput.Get(0) {
			pa.BDensityInput.Set(0)
		}
		orInto(&pa.BDensityInput, 1+ch.from*per.Inputs, &ch.cs.BDensityInput, 1)
	}
	r1cs.Finalize(pa)
	return pa, nil
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
