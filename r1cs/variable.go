package r1cs

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Variable names one input or aux variable. Aux variables carry auxFlag so
// that a plain integer order sorts every input before every aux variable.
type Variable uint32

const auxFlag Variable = 1 << 31

// MaxVariables is the largest number of inputs, or of aux variables, a
// system may allocate.
const MaxVariables = int(auxFlag) - 1

// One is input 0, the constant 1.
const One Variable = 0

// InputVariable returns input number i.
func InputVariable(i int) Variable { return Variable(i) }

// AuxVariable returns aux variable number i.
func AuxVariable(i int) Variable { return Variable(i) | auxFlag }

// IsInput reports whether v is an input (public) variable.
func (v Variable) IsInput() bool { return v&auxFlag == 0 }

// Index is v's position among the inputs or among the aux variables.
func (v Variable) Index() int { return int(v &^ auxFlag) }

func (v Variable) String() string {
	if v.IsInput() {
		return fmt.Sprintf("input[%d]", v.Index())
	}
	return fmt.Sprintf("aux[%d]", v.Index())
}

// Term is coeff · variable.
type Term struct {
	Var   Variable
	Coeff fr.Element
}

// LinearCombination is a sum of terms, kept sorted by variable with at most
// one term per variable (bellpepper's Indexer does the same), so that the
// density of a variable depends on its summed coefficient. Methods mutate the
// receiver; use Clone before extending a combination that is shared.
type LinearCombination []Term

// LC builds a combination from terms, merging repeated variables.
func LC(terms ...Term) LinearCombination {
	var lc LinearCombination
	for _, t := range terms {
		lc.AddTerm(t.Var, &t.Coeff)
	}
	return lc
}

// Clone returns a copy that shares no memory with lc.
func (lc LinearCombination) Clone() LinearCombination {
	if lc == nil {
		return nil
	}
	out := make(LinearCombination, len(lc))
	copy(out, lc)
	return out
}

var oneElement = fr.One()

// Add adds 1 · v.
func (lc *LinearCombination) Add(v Variable) *LinearCombination {
	return lc.AddTerm(v, &oneElement)
}

// Sub adds −1 · v.
func (lc *LinearCombination) Sub(v Variable) *LinearCombination {
	var m fr.Element
	m.Neg(&oneElement)
	return lc.AddTerm(v, &m)
}

// AddCoeff adds coeff · v.
func (lc *LinearCombination) AddCoeff(coeff fr.Element, v Variable) *LinearCombination {
	return lc.AddTerm(v, &coeff)
}

// AddTerm adds coeff · v, merging with an existing term for v. Appending
// variables in increasing order (the common case) costs O(1).
func (lc *LinearCombination) AddTerm(v Variable, coeff *fr.Element) *LinearCombination {
	s := *lc
	n := len(s)
	if n == 0 || s[n-1].Var < v {
		*lc = append(s, Term{Var: v, Coeff: *coeff})
		return lc
	}
	// Binary search for the first term with Var >= v.
	lo, hi := 0, n
	for lo < hi {
		mid := (lo + hi) / 2
		if s[mid].Var < v {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if s[lo].Var == v {
		s[lo].Coeff.Add(&s[lo].Coeff, coeff)
		return lc
	}
	s = append(s, Term{})
	copy(s[lo+1:], s[lo:])
	s[lo] = Term{Var: v, Coeff: *coeff}
	*lc = s
	return lc
}

// AddLC adds coeff · other.
func (lc *LinearCombination) AddLC(coeff fr.Element, other LinearCombination) *LinearCombination {
	for i := range other {
		var c fr.Element
		c.Mul(&other[i].Coeff, &coeff)
		lc.AddTerm(other[i].Var, &c)
	}
	return lc
}

// AddLCOne adds other (coefficient one).
func (lc *LinearCombination) AddLCOne(other LinearCombination) *LinearCombination {
	for i := range other {
		lc.AddTerm(other[i].Var, &other[i].Coeff)
	}
	return lc
}

// SubLC subtracts other.
func (lc *LinearCombination) SubLC(other LinearCombination) *LinearCombination {
	for i := range other {
		var c fr.Element
		c.Neg(&other[i].Coeff)
		lc.AddTerm(other[i].Var, &c)
	}
	return lc
}

// Eval returns Σ coeff·value, reading values from input and aux.
func (lc LinearCombination) Eval(input, aux []fr.Element) fr.Element {
	var sum, t fr.Element
	for i := range lc {
		var val *fr.Element
		if v := lc[i].Var; v.IsInput() {
			val = &input[v.Index()]
		} else {
			val = &aux[v.Index()]
		}
		if lc[i].Coeff.IsOne() {
			sum.Add(&sum, val)
			continue
		}
		t.Mul(&lc[i].Coeff, val)
		sum.Add(&sum, &t)
	}
	return sum
}
