package sdr

import (
	"encoding/binary"
	"runtime"
	"sync"

	"golang.org/x/crypto/blake2b"
)

// feistelRounds is storage-proofs-core's FEISTEL_ROUNDS: keys 0, 1 and 2 of
// the four derived ones are used.
const feistelRounds = 3

// feistel is the keyed pseudo-random permutation of [0, n) behind the
// expander (storage-proofs-core crypto/feistel.rs): a balanced Feistel
// network over the smallest domain 4^h ≥ n (h ≥ 1), with cycle walking.
//
// The round function F(R, k) is the first 8 bytes, read big-endian, of
// Blake2b-512(u64_be(R) ‖ u64_be(k)), masked to h bits. R always has h ≤ 18
// bits, so the whole round function fits a table of 3·2^h values (1.5 MiB
// for 32 and 64 GiB sectors), built on first use; a permutation then costs a
// few table reads instead of Blake2b compressions.
type feistel struct {
	n         uint64 // permuted range [0, n)
	halfBits  uint
	rightMask uint64
	keys      [feistelRounds]uint64

	once  sync.Once
	table [feistelRounds][]uint32 // table[r][R] = F(R, keys[r])
}

func newFeistel(n uint64, keys [4]uint64) *feistel {
	h := uint(1)
	for pow4 := uint64(4); pow4 < n; pow4 *= 4 {
		h++
	}
	f := &feistel{n: n, halfBits: h, rightMask: 1<<h - 1}
	copy(f.keys[:], keys[:feistelRounds])
	return f
}

// roundF computes F(right, key) with Blake2b.
func (f *feistel) roundF(right, key uint64) uint64 {
	var in [16]byte
	binary.BigEndian.PutUint64(in[0:], right)
	binary.BigEndian.PutUint64(in[8:], key)
	sum := blake2b.Sum512(in[:])
	return binary.BigEndian.Uint64(sum[:8]) & f.rightMask
}

// buildTable fills the round-function table, spread over the CPUs.
func (f *feistel) buildTable() {
	size := uint64(1) << f.halfBits
	for r := range f.table {
		f.table[r] = make([]uint32, size)
	}
	workers := uint64(runtime.GOMAXPROCS(0))
	chunk := (size + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := uint64(0); lo < size; lo += chunk {
		hi := min(lo+chunk, size)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range f.table {
				for x := lo; x < hi; x++ {
					f.table[r][x] = uint32(f.roundF(x, f.keys[r]))
				}
			}
		}()
	}
	wg.Wait()
}

// encode is one pass of the network over the 4^h domain.
func (f *feistel) encode(index uint64) uint64 {
	left := (index >> f.halfBits) & f.rightMask
	right := index & f.rightMask
	for r := range f.table {
		left, right = right, left^uint64(f.table[r][right])
	}
	return left<<f.halfBits | right
}

// permute maps index (< n) to its image in [0, n), re-encoding outputs that
// fall in [n, 4^h).
func (f *feistel) permute(index uint64) uint64 {
	f.once.Do(f.buildTable)
	u := f.encode(index)
	for u >= f.n {
		u = f.encode(u)
	}
	return u
}

// permuteDirect is permute without the table, for tests and one-off use.
func (f *feistel) permuteDirect(index uint64) uint64 {
	enc := func(index uint64) uint64 {
		left := (index >> f.halfBits) & f.rightMask
		right := index & f.rightMask
		for _, k := range f.keys {
			left, right = right, left^f.roundF(right, k)
		}
		return left<<f.halfBits | right
	}
	u := enc(index)
	for u >= f.n {
		u = enc(u)
	}
	return u
}
