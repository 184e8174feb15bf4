package hash

import (
	"encoding/hex"
	"testing"
)

// NIST FIPS 180-2 example "abc".
func TestSha254(t *testing.T) {
	const abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	got := Sha256([]byte("abc"))
	if hex.EncodeToString(got[:]) != abc {
		t.Fatalf("sha256(abc) = %x", got)
	}
	d := Sha254([]byte("abc"))
	want, _ := hex.DecodeString(abc)
	want[31] &= 0x3f
	if hex.EncodeToString(d[:]) != hex.EncodeToString(want) {
		t.Fatalf("sha254(abc) = %s", d)
	}
	if _, err := d.Element(); err != nil {
		t.Fatalf("sha254 digest not canonical: %v", err)
	}
}

// Two 32-byte zero leaves hash to Filecoin's 64-byte zero commitment
// (filecoin-project/go-fil-commcid and lotus zerocomm level 1).
func TestSha254Node(t *testing.T) {
	var z Domain
	got := Sha254Node(&z, &z)
	if got.String() != "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb0b" {
		t.Fatalf("node(0, 0) = %s", got)
	}
}

func TestDomain(t *testing.T) {
	var bad Domain
	for i := range bad {
		bad[i] = 0xff
	}
	if _, err := bad.Element(); err == nil {
		t.Fatal("all-ones domain accepted")
	}
	d, err := ParseDomain("0100000000000000000000000000000000000000000000000000000000000000")
	if err != nil {
		t.Fatal(err)
	}
	e, err := d.Element()
	if err != nil || !e.IsOne() {
		t.Fatalf("LE 1 read as %v (%v)", e.String(), err)
	}
	if DomainOf(&e) != d {
		t.Fatal("DomainOf round trip")
	}
	if _, err := ParseDomain("00"); err == nil {
		t.Fatal("short domain accepted")
	}
}

func BenchmarkSha254(b *testing.B) {
	buf := make([]byte, 1<<20)
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		Sha254(buf)
	}
}

// BenchmarkSha254Node measures the tree-building case: 64-byte inputs.
func BenchmarkSha254Node(b *testing.B) {
	var l, r Domain
	b.SetBytes(64)
	for b.Loop() {
		l = Sha254Node(&l, &r)
	}
}
