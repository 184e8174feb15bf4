package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cuzk-project/cuzk/engine"
)

// A payload is a request's content, everything but its id and priority,
// so that its sha256 is also the content hash two requests under one id
// are compared by. Layout, integers little-endian:
//
//	"cuzkreq1"
//	u32 kind, u64 sector size, u64 registered proof, u64 sector number,
//	u64 miner id, u32 partition index,
//	bytes vanilla proof, randomness, comm_r_old, comm_r_new, comm_d_new,
//	u32 count, count × bytes vanilla proofs
//
// where bytes is a u64 length and the bytes.
const payloadMagic = "cuzkreq1"

// ErrBadPayload is a payload that does not decode or does not match its
// hash.
var ErrBadPayload = errors.New("cluster: bad payload")

// encodeRequest returns r's payload.
func encodeRequest(r *engine.Request) []byte {
	n := len(payloadMagic) + 4 + 5*8 + 4 + 5*8 + 4
	n += len(r.VanillaProof) + len(r.Randomness) + len(r.CommROld) + len(r.CommRNew) + len(r.CommDNew)
	for _, v := range r.VanillaProofs {
		n += 8 + len(v)
	}
	b := make([]byte, 0, n)
	b = append(b, payloadMagic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(r.Kind))
	for _, v := range []uint64{r.SectorSize, r.RegisteredProof, r.SectorNumber, r.MinerID} {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	b = binary.LittleEndian.AppendUint32(b, r.PartitionIndex)
	for _, s := range [][]byte{r.VanillaProof, r.Randomness, r.CommROld, r.CommRNew, r.CommDNew} {
		b = appendBytes(b, s)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(r.VanillaProofs)))
	for _, v := range r.VanillaProofs {
		b = appendBytes(b, v)
	}
	return b
}

func appendBytes(b, s []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(s)))
	return append(b, s...)
}

// decodeRequest parses a payload; the slices of the request alias b. It
// never panics: b comes from the database, which other programs may
// write.
func decodeRequest(b []byte) (engine.Request, error) {
	d := decoder{b: b}
	if string(d.take(len(payloadMagic))) != payloadMagic {
		return engine.Request{}, fmt.Errorf("%w: no %q header", ErrBadPayload, payloadMagic)
	}
	var r engine.Request
	r.Kind = engine.ProofKind(d.u32())
	r.SectorSize, r.RegisteredProof, r.SectorNumber, r.MinerID = d.u64(), d.u64(), d.u64(), d.u64()
	r.PartitionIndex = d.u32()
	for _, s := range []*[]byte{&r.VanillaProof, &r.Randomness, &r.CommROld, &r.CommRNew, &r.CommDNew} {
		*s = d.bytes()
	}
	n := d.u32()
	if d.err == nil && uint64(n)*8 > uint64(len(d.b)) {
		d.err = fmt.Errorf("%d vanilla proofs in %d bytes", n, len(d.b))
	}
	if d.err == nil && n > 0 {
		r.VanillaProofs = make([][]byte, n)
		for i := range r.VanillaProofs {
			r.VanillaProofs[i] = d.bytes()
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%d bytes after the request", len(d.b))
	}
	if d.err != nil {
		return engine.Request{}, fmt.Errorf("%w: %w", ErrBadPayload, d.err)
	}
	return r, nil
}

// decoder reads a payload front to back; the first short read sets err
// and every later read returns zero values.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.err = fmt.Errorf("%d bytes wanted, %d left", n, len(d.b))
		return nil
	}
	s := d.b[:n:n]
	d.b = d.b[n:]
	return s
}

func (d *decoder) u32() uint32 {
	if s := d.take(4); s != nil {
		return binary.LittleEndian.Uint32(s)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if s := d.take(8); s != nil {
		return binary.LittleEndian.Uint64(s)
	}
	return 0
}

func (d *decoder) bytes() []byte {
	n := d.u64()
	if d.err == nil && n > uint64(len(d.b)) {
		d.err = fmt.Errorf("a field of %d bytes, %d left", n, len(d.b))
		return nil
	}
	s := d.take(int(n))
	if len(s) == 0 {
		return nil
	}
	return s
}
