package c1

import (
	"strconv"

	"github.com/cuzk-project/cuzk/hash"
)

// MarshalJSON writes o byte for byte as serde_json::to_vec writes a
// SealCommitPhase1Output: fields in declaration order, no whitespace,
// domains as arrays of 32 integers, "_h":null in every column (a PhantomData
// serde does not skip) and none in labeling and encoding proofs (skipped).
// It fails only on a MerkleProof of unknown kind.
func (o *Output) MarshalJSON() ([]byte, error) {
	return o.AppendJSON(make([]byte, 0, o.sizeHint()))
}

// AppendJSON appends MarshalJSON's bytes to dst.
func (o *Output) AppendJSON(dst []byte) ([]byte, error) {
	e := encoder{b: dst}
	e.output(o)
	return e.b, e.err
}

// sizeHint estimates the encoding's length: about 115 bytes per domain.
func (o *Output) sizeHint() int {
	n := 0
	for _, part := range o.Partitions {
		for i := range part {
			p := &part[i]
			n += merkleDomains(&p.CommDProofs) + merkleDomains(&p.CommRLastProof)
			r := &p.ReplicaColumnProofs
			n += len(r.CX.Rows) + merkleDomains(&r.CX.Inclusion)
			for _, cols := range [2][]ColumnProof{r.DRGParents, r.ExpParents} {
				for j := range cols {
					n += len(cols[j].Rows) + merkleDomains(&cols[j].Inclusion)
				}
			}
			for j := range p.LabelingProofs {
				n += len(p.LabelingProofs[j].Parents)
			}
			n += len(p.EncodingProof.Parents)
		}
	}
	return 1024 + 120*n
}

func merkleDomains(m *MerkleProof) int {
	n := 2
	for _, part := range [3][]PathElement{m.Base, m.Sub, m.Top} {
		for _, e := range part {
			n += len(e.Siblings)
		}
	}
	return n
}

type encoder struct {
	b   []byte
	err error
}

func (e *encoder) raw(s string) { e.b = append(e.b, s...) }

// key writes `"name":`, preceded by a comma unless first.
func (e *encoder) key(name string, first bool) {
	if !first {
		e.b = append(e.b, ',')
	}
	e.b = append(e.b, '"')
	e.b = append(e.b, name...)
	e.b = append(e.b, '"', ':')
}

// byteText holds the decimal text of every byte value.
var byteText = func() (t [256]string) {
	for i := range t {
		t[i] = strconv.Itoa(i)
	}
	return t
}()

func (e *encoder) domain(d *hash.Domain) {
	e.b = append(e.b, '[')
	for i, v := range d {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = append(e.b, byteText[v]...)
	}
	e.b = append(e.b, ']')
}

// array writes [item(0),item(1),…,item(n−1)].
func (e *encoder) array(n int, item func(i int)) {
	e.b = append(e.b, '[')
	for i := range n {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		item(i)
	}
	e.b = append(e.b, ']')
}

func (e *encoder) domains(ds []hash.Domain) {
	e.array(len(ds), func(i int) { e.domain(&ds[i]) })
}

// str writes a JSON string as serde_json escapes it. Proof names are plain
// ASCII; anything else is escaped the same way.
func (e *encoder) str(s string) {
	e.b = append(e.b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			e.b = append(e.b, '\\', c)
		case c == '\n':
			e.raw(`\n`)
		case c == '\r':
			e.raw(`\r`)
		case c == '\t':
			e.raw(`\t`)
		case c == '\b':
			e.raw(`\b`)
		case c == '\f':
			e.raw(`\f`)
		case c < 0x20:
			const hex = "0123456789abcdef"
			e.b = append(e.b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			e.b = append(e.b, c)
		}
	}
	e.b = append(e.b, '"')
}

func (e *encoder) output(o *Output) {
	e.raw(`{"registered_proof":`)
	e.str(o.RegisteredProof)
	e.raw(`,"vanilla_proofs":{`)
	e.str(o.VanillaKey)
	e.b = append(e.b, ':')
	e.array(len(o.Partitions), func(k int) {
		part := o.Partitions[k]
		e.array(len(part), func(i int) { e.proof(&part[i]) })
	})
	e.b = append(e.b, '}')
	for _, f := range []struct {
		name string
		d    *hash.Domain
	}{{"comm_r", &o.CommR}, {"comm_d", &o.CommD}, {"replica_id", &o.ReplicaID}, {"seed", &o.Seed}, {"ticket", &o.Ticket}} {
		e.key(f.name, false)
		e.domain(f.d)
	}
	e.b = append(e.b, '}')
}

func (e *encoder) proof(p *Proof) {
	e.raw(`{"comm_d_proofs":`)
	e.merkleProof(&p.CommDProofs)
	e.raw(`,"comm_r_last_proof":`)
	e.merkleProof(&p.CommRLastProof)
	e.raw(`,"replica_column_proofs":{"c_x":`)
	r := &p.ReplicaColumnProofs
	e.columnProof(&r.CX)
	e.raw(`,"drg_parents":`)
	e.columnProofs(r.DRGParents)
	e.raw(`,"exp_parents":`)
	e.columnProofs(r.ExpParents)
	e.raw(`},"labeling_proofs":`)
	e.array(len(p.LabelingProofs), func(j int) { e.labelingProof(&p.LabelingProofs[j]) })
	e.raw(`,"encoding_proof":`)
	e.labelingProof(&p.EncodingProof)
	e.b = append(e.b, '}')
}

func (e *encoder) merkleProof(m *MerkleProof) {
	if int(m.Kind) >= len(variants) {
		if e.err == nil {
			e.err = bad("merkle proof of unknown kind %d", m.Kind)
		}
		e.raw(`null`)
		return
	}
	v := &variants[m.Kind]
	e.raw(`{"data":{"`)
	e.raw(m.Kind.String())
	e.raw(`":{`)
	for i, s := range v.slots {
		e.key(v.fields[i], i == 0)
		if s.isPath() {
			e.inclusionPath(*m.path(s))
		} else {
			e.domain(m.domain(s))
		}
	}
	e.raw(`}}}`)
}

func (e *encoder) inclusionPath(path []PathElement) {
	e.raw(`{"path":`)
	e.array(len(path), func(l int) {
		e.raw(`{"hashes":`)
		e.domains(path[l].Siblings)
		e.raw(`,"index":`)
		e.b = strconv.AppendInt(e.b, int64(path[l].Index), 10)
		e.b = append(e.b, '}')
	})
	e.b = append(e.b, '}')
}

func (e *encoder) columnProofs(cols []ColumnProof) {
	e.array(len(cols), func(j int) { e.columnProof(&cols[j]) })
}

func (e *encoder) columnProof(c *ColumnProof) {
	e.raw(`{"column":{"index":`)
	e.b = strconv.AppendUint(e.b, uint64(c.Index), 10)
	e.raw(`,"rows":`)
	e.domains(c.Rows)
	e.raw(`,"_h":null},"inclusion_proof":`)
	e.merkleProof(&c.Inclusion)
	e.b = append(e.b, '}')
}

func (e *encoder) labelingProof(l *LabelingProof) {
	e.raw(`{"parents":`)
	e.domains(l.Parents)
	e.raw(`,"layer_index":`)
	e.b = strconv.AppendUint(e.b, uint64(l.LayerIndex), 10)
	e.raw(`,"node":`)
	e.b = strconv.AppendUint(e.b, l.Node, 10)
	e.b = append(e.b, '}')
}
