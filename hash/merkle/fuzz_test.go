package merkle

import (
	"encoding/binary"
	"testing"

	"github.com/cuzk-project/cuzk/hash"
)

// FuzzProofVerify feeds arbitrary paths (outside input: proofs arrive in C1
// JSON and vanilla proofs) to Verify and CheckShape; they must return an
// error or nil, never panic.
func FuzzProofVerify(f *testing.F) {
	tree, err := NewPoseidon(Shape880, randomLeaves(512, 9))
	if err != nil {
		f.Fatal(err)
	}
	p, _ := tree.Prove(100)
	f.Add(encodeProof(p))
	f.Add([]byte{0, 1, 2, 3, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		p := decodeProof(data)
		for _, h := range []Hasher{Poseidon{}, Sha254{}} {
			_ = p.Verify(h)
		}
		_ = p.CheckShape(Shape880, 512)
		_ = p.LeafIndex()
	})
}

// encodeProof / decodeProof are a compact test encoding: per level a
// signed 32-bit index, a sibling count byte and the siblings; leaf and root
// first.
func encodeProof(p *Proof) []byte {
	out := append([]byte(nil), p.Leaf[:]...)
	out = append(out, p.Root[:]...)
	for _, e := range p.Path {
		out = binary.LittleEndian.AppendUint32(out, uint32(int32(e.Index)))
		out = append(out, byte(len(e.Siblings)))
		for _, s := range e.Siblings {
			out = append(out, s[:]...)
		}
	}
	return out
}

func decodeProof(b []byte) *Proof {
	p := &Proof{}
	take := func(n int) []byte {
		if len(b) < n {
			r := make([]byte, n)
			copy(r, b)
			b = nil
			return r
		}
		r := b[:n]
		b = b[n:]
		return r
	}
	copy(p.Leaf[:], take(32))
	copy(p.Root[:], take(32))
	for len(b) > 0 && len(p.Path) < 64 {
		idx := int(int32(binary.LittleEndian.Uint32(take(4))))
		n := int(take(1)[0]) % 40
		e := PathElement{Index: idx, Siblings: make([]hash.Domain, n)}
		for i := range e.Siblings {
			copy(e.Siblings[i][:], take(32))
		}
		p.Path = append(p.Path, e)
	}
	return p
}
