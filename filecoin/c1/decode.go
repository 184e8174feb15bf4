package c1

import (
	"io"
	"math"

	"github.com/cuzk-project/cuzk/filecoin"
	"github.com/cuzk-project/cuzk/hash"
)

// Decode reads a C1 output from its JSON (serde_json's form; keys in any
// order, unknown keys skipped) and checks it against the registered proof's
// shape (CheckShape). Errors wrap ErrBadVanillaProof.
func Decode(b []byte) (*Output, error) {
	return decode(newSliceScanner(b))
}

// DecodeReader is Decode reading from r in one pass; nothing but the
// decoded Output and a 64 KiB buffer is held.
func DecodeReader(r io.Reader) (*Output, error) {
	return decode(newReaderScanner(r))
}

// UnmarshalJSON is Decode for encoding/json.
func (o *Output) UnmarshalJSON(b []byte) error {
	d, err := Decode(b)
	if err != nil {
		return err
	}
	*o = *d
	return nil
}

func decode(s *scanner) (*Output, error) {
	d := decoder{s: s}
	o, err := d.output()
	if err == nil {
		err = s.end()
	}
	if err != nil {
		return nil, err
	}
	if err := o.CheckShape(); err != nil {
		return nil, err
	}
	return o, nil
}

// decoder parses the schema. Domain slices are carved out of large chunks
// (one allocation per chunk, not per slice); every slice is capped at its
// length so that an append by a caller never runs into its neighbour.
type decoder struct {
	s *scanner

	doms     []hash.Domain // the free tail of the current chunk
	elems    []PathElement
	scratchD []hash.Domain
	scratchE []PathElement
}

const (
	minChunk = 1 << 10
	maxChunk = 1 << 16
)

func (d *decoder) keepDomains(src []hash.Domain) []hash.Domain {
	if len(src) == 0 {
		return nil
	}
	if len(d.doms) < len(src) {
		n := max(min(2*cap(d.doms), maxChunk), minChunk, len(src))
		d.doms = make([]hash.Domain, n)
	}
	out := d.doms[:len(src):len(src)]
	copy(out, src)
	d.doms = d.doms[len(src):]
	return out
}

func (d *decoder) keepElems(src []PathElement) []PathElement {
	if len(src) == 0 {
		return nil
	}
	if len(d.elems) < len(src) {
		n := max(min(2*cap(d.elems), maxChunk/8), minChunk/8, len(src))
		d.elems = make([]PathElement, n)
	}
	out := d.elems[:len(src):len(src)]
	copy(out, src)
	d.elems = d.elems[len(src):]
	return out
}

// fields tracks which known keys of one object were seen: serde rejects a
// duplicate and a missing field.
type fields struct {
	names []string
	seen  uint32
}

// see marks key i; it is an error the second time.
func (f *fields) see(d *decoder, i int) error {
	if f.seen&(1<<i) != 0 {
		return at(d.s.errorf("duplicate field"), f.names[i])
	}
	f.seen |= 1 << i
	return nil
}

// missing names the first required key not seen.
func (f *fields) missing(d *decoder) error {
	for i, n := range f.names {
		if f.seen&(1<<i) == 0 {
			return d.s.errorf("missing field %q", n)
		}
	}
	return nil
}

// object parses one object of the schema: field i is parsed by parse(i)
// when the key equals names[i]; other keys are skipped. All names are
// required.
func (d *decoder) object(names []string, parse func(i int) error) error {
	f := fields{names: names}
	err := d.s.object(func(key []byte) error {
		for i, n := range names {
			if string(key) == n {
				if err := f.see(d, i); err != nil {
					return err
				}
				return at(parse(i), n)
			}
		}
		return d.s.skip(0)
	})
	if err != nil {
		return err
	}
	return f.missing(d)
}

// maxPartitions and maxChallenges are the most any registered proof has;
// the decoder stops at them before CheckShape knows the proof (the
// registered_proof key may come last), so that an array of empty
// partitions cannot grow without bound.
var maxPartitions, maxChallenges = func() (p, c int) {
	for _, sp := range filecoin.SealProofs() {
		if info, err := sp.Info(); err == nil {
			p, c = max(p, info.Partitions), max(c, info.Challenges)
		}
	}
	return p, c
}()

var outputFields = []string{"registered_proof", "vanilla_proofs", "comm_r", "comm_d", "replica_id", "seed", "ticket"}

func (d *decoder) output() (*Output, error) {
	o := &Output{}
	err := d.object(outputFields, func(i int) error {
		switch i {
		case 0:
			name, long, err := d.s.string(64)
			if err != nil {
				return err
			}
			if long {
				return d.s.errorf("proof name longer than 64 bytes")
			}
			o.RegisteredProof = string(name)
			return nil
		case 1:
			return d.vanillaProofs(o)
		case 2:
			return d.s.domain((*[32]byte)(&o.CommR))
		case 3:
			return d.s.domain((*[32]byte)(&o.CommD))
		case 4:
			return d.s.domain((*[32]byte)(&o.ReplicaID))
		case 5:
			return d.s.domain((*[32]byte)(&o.Seed))
		default:
			return d.s.domain((*[32]byte)(&o.Ticket))
		}
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

// vanillaProofs reads the externally tagged VanillaSealProof: an object
// with exactly one key, the variant, holding partitions × challenges proofs.
func (d *decoder) vanillaProofs(o *Output) error {
	n := 0
	err := d.s.object(func(key []byte) error {
		if n++; n > 1 {
			return d.s.errorf("more than one variant")
		}
		if key == nil {
			return d.s.errorf("variant name too long")
		}
		o.VanillaKey = string(key)
		return d.s.array(func(k int) error {
			if k >= maxPartitions {
				return d.s.errorf("more than %d partitions", maxPartitions)
			}
			var part []Proof
			err := d.s.array(func(i int) error {
				if i >= maxChallenges {
					return d.s.errorf("partition %d: more than %d challenges", k, maxChallenges)
				}
				part = append(part, Proof{})
				return atChallenge(d.proof(&part[i]), k, i)
			})
			o.Partitions = append(o.Partitions, part)
			return err
		})
	})
	if err != nil {
		return err
	}
	if n == 0 {
		return d.s.errorf("no variant")
	}
	return nil
}

var proofFields = []string{"comm_d_proofs", "comm_r_last_proof", "replica_column_proofs", "labeling_proofs", "encoding_proof"}

func (d *decoder) proof(p *Proof) error {
	return d.object(proofFields, func(i int) error {
		switch i {
		case 0:
			return d.merkleProof(&p.CommDProofs)
		case 1:
			return d.merkleProof(&p.CommRLastProof)
		case 2:
			return d.replicaColumnProofs(&p.ReplicaColumnProofs)
		case 3:
			p.LabelingProofs = make([]LabelingProof, 0, 11)
			return d.s.array(func(j int) error {
				p.LabelingProofs = append(p.LabelingProofs, LabelingProof{})
				return atIndex(d.labelingProof(&p.LabelingProofs[j]), j)
			})
		default:
			return d.labelingProof(&p.EncodingProof)
		}
	})
}

var (
	merkleFields = []string{"data"}
	pathFields   = []string{"path"}
	elemFields   = []string{"hashes", "index"}
)

// merkleProof reads {"data": {"Single"|"Sub"|"Top": {...}}}.
func (d *decoder) merkleProof(m *MerkleProof) error {
	return d.object(merkleFields, func(int) error {
		n := 0
		err := d.s.object(func(key []byte) error {
			if n++; n > 1 {
				return d.s.errorf("more than one variant")
			}
			for k := range variants {
				if kind := ProofKind(k); string(key) == kind.String() {
					m.Kind = kind
					return at(d.variant(m, &variants[k]), kind.String())
				}
			}
			return d.s.errorf("unknown variant %q, want Single, Sub or Top", key)
		})
		if err != nil {
			return err
		}
		if n == 0 {
			return d.s.errorf("no variant")
		}
		return nil
	})
}

// variant reads the fields of m's variant v.
func (d *decoder) variant(m *MerkleProof, v *variant) error {
	return d.object(v.fields, func(i int) error {
		s := v.slots[i]
		if s.isPath() {
			return d.inclusionPath(m.path(s))
		}
		return d.s.domain((*[32]byte)(m.domain(s)))
	})
}

// inclusionPath reads {"path": [{"hashes": [...], "index": n}, ...]}.
func (d *decoder) inclusionPath(out *[]PathElement) error {
	return d.object(pathFields, func(int) error {
		d.scratchE = d.scratchE[:0]
		err := d.s.array(func(l int) error {
			var e PathElement
			err := d.object(elemFields, func(i int) error {
				if i == 0 {
					hs, err := d.domains()
					e.Siblings = hs
					return err
				}
				v, err := d.s.uint(math.MaxInt32)
				e.Index = int(v)
				return err
			})
			d.scratchE = append(d.scratchE, e)
			return atIndex(err, l)
		})
		*out = d.keepElems(d.scratchE)
		return err
	})
}

// domains reads an array of domains.
func (d *decoder) domains() ([]hash.Domain, error) {
	d.scratchD = d.scratchD[:0]
	err := d.s.array(func(i int) error {
		d.scratchD = append(d.scratchD, hash.Domain{})
		return atIndex(d.s.domain((*[32]byte)(&d.scratchD[i])), i)
	})
	return d.keepDomains(d.scratchD), err
}

var (
	replicaColumnFields = []string{"c_x", "drg_parents", "exp_parents"}
	columnProofFields   = []string{"column", "inclusion_proof"}
	columnFields        = []string{"index", "rows", "_h"}
	labelingFields      = []string{"parents", "layer_index", "node"}
)

func (d *decoder) replicaColumnProofs(r *ReplicaColumnProofs) error {
	columns := func(out *[]ColumnProof, want int) error {
		*out = make([]ColumnProof, 0, want)
		return d.s.array(func(j int) error {
			*out = append(*out, ColumnProof{})
			return atIndex(d.columnProof(&(*out)[j]), j)
		})
	}
	return d.object(replicaColumnFields, func(i int) error {
		switch i {
		case 0:
			return d.columnProof(&r.CX)
		case 1:
			return columns(&r.DRGParents, 6)
		default:
			return columns(&r.ExpParents, 8)
		}
	})
}

// columnProof reads {"column": {"index", "rows", "_h": null},
// "inclusion_proof"}; _h is serde's PhantomData, which must be null.
func (d *decoder) columnProof(c *ColumnProof) error {
	return d.object(columnProofFields, func(i int) error {
		if i == 1 {
			return d.merkleProof(&c.Inclusion)
		}
		return d.object(columnFields, func(j int) error {
			switch j {
			case 0:
				v, err := d.s.uint(math.MaxUint32)
				c.Index = uint32(v)
				return err
			case 1:
				rows, err := d.domains()
				c.Rows = rows
				return err
			default:
				return d.s.null()
			}
		})
	})
}

// labelingProof reads {"parents", "layer_index", "node"} (the labeling and
// the encoding proof alike; their PhantomData is skipped by serde).
func (d *decoder) labelingProof(l *LabelingProof) error {
	return d.object(labelingFields, func(i int) error {
		switch i {
		case 0:
			ps, err := d.domains()
			l.Parents = ps
			return err
		case 1:
			v, err := d.s.uint(math.MaxUint32)
			l.LayerIndex = uint32(v)
			return err
		default:
			v, err := d.s.uint(math.MaxUint64)
			l.Node = v
			return err
		}
	})
}
