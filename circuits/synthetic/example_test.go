package synthetic_test

import (
	"fmt"

	"github.com/cuzk-project/cuzk/circuits/synthetic"
	"github.com/cuzk-project/cuzk/r1cs"
)

func Example() {
	cfg := synthetic.Default(1 << 10) // 1024 rows: a domain of exactly 2^10
	c, err := synthetic.New(cfg)
	if err != nil {
		panic(err)
	}
	p := r1cs.NewProvingAssignment(c.Hint())
	if err := r1cs.Synthesize(p, c); err != nil {
		panic(err)
	}
	s := cfg.Shape()
	fmt.Println("rows:", p.NumConstraints(), "=", s.Rows)
	fmt.Println("inputs (ONE included):", p.NumInputs())
	fmt.Println("satisfied:", p.IsSatisfied() == -1)
	fmt.Println("A-aux popcount matches Shape:", p.ADensityAux.PopCount() == s.ADensityAux)
	// Output:
	// rows: 1024 = 1024
	// inputs (ONE included): 8
	// satisfied: true
	// A-aux popcount matches Shape: true
}
