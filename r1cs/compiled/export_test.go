package compiled

// Internals the external tests reach.

const (
	HeaderSize   = headerSize
	DigestOffset = digestOffset
	CoeffBytes   = coeffBytes
	Magic        = magic
	CompactGrain = compactGrain
)

var MontOne = [4]uint64{montOne0, montOne1, montOne2, montOne3}

var DigestOf = digestOf

// Decode is decode on bytes the caller owns (no mapping to release).
func Decode(b []byte) (*System, error) { return decode(b, nil) }

// Sections are the byte offsets of s's encoded sections, per matrix A, B, C
// and per density a_aux, b_input, b_aux, and the total size.
type Sections struct {
	Coeffs               int
	RowPtr, Col, Coeff   [numMatrices]int
	Density, DensitySize [numDensities]int
	Size                 int
}

func SectionsOf(s *System) Sections {
	l, err := layoutOf(s.counts())
	if err != nil {
		panic(err)
	}
	out := Sections{Coeffs: l.sec[sectionCoeffs].off, Size: l.size}
	for m := range numMatrices {
		out.RowPtr[m], out.Col[m], out.Coeff[m] = l.rowPtr(m).off, l.col(m).off, l.coeff(m).off
	}
	for d := range numDensities {
		out.Density[d], out.DensitySize[d] = l.density(d).off, l.density(d).size
	}
	return out
}

// Matrices is A, B, C.
func (s *System) Matrices() [numMatrices]*Matrix { return s.matrices() }
