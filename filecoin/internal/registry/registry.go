package registry

// IDs lists the ids 0 … n−1 in order.
func IDs[P ~int64](n P) []P {
	ps := make([]P, n)
	for i := range ps {
		ps[i] = P(i)
	}
	return ps
}

// Parse is the first id below n whose String is name; false when none is.
func Parse[P interface {
	~int64
	String() string
}](name string, n P) (P, bool) {
	for p := P(0); p < n; p++ {
		if p.String() == name {
			return p, true
		}
	}
	return 0, false
}
