package filecoin

import (
	"encoding/base32"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cuzk-project/cuzk/hash/merkle"
)

// The comm_d of an empty (all-zero) sector of each size, as CIDs: curio
// harmony/harmonydb/sql/20240611-snap-pipeline.sql, table sectors_cc_values
// (commit e0294b0f). The bytes are the root of the all-zero SHA-254 tree.
var zeroCommDCIDs = []struct {
	proof SealProof
	cid   string
}{
	{StackedDrg2KiBV1, "baga6ea4seaqpy7usqklokfx2vxuynmupslkeutzexe2uqurdg5vhtebhxqmpqmy"},
	{StackedDrg8MiBV1, "baga6ea4seaqgl4u6lwmnerwdrm4iz7ag3mpwwaqtapc2fciabpooqmvjypweeha"},
	{StackedDrg512MiBV1, "baga6ea4seaqdsvqopmj2soyhujb72jza76t4wpq5fzifvm3ctz47iyytkewnubq"},
	{StackedDrg32GiBV1, "baga6ea4seaqao7s73y24kcutaosvacpdjgfe5pw76ooefnyqw4ynr3d2y6x2mpq"},
	{StackedDrg64GiBV1, "baga6ea4seaqomqafu276g53zko4k23xzh4h4uecjwicbmvhsuqi7o4bhthhm4aq"},
}

// comm_r CIDs of curio's golden 32 GiB sectors (extern/cuzk/cuzk-project.md,
// commdr.txt and update-commdr.txt).
var goldenCommRCIDs = []string{
	"bagboea4b5abcbx3jccdohrttzfneleehcpkmle4oltwuh4q3rcf5tpdodaoj6mtl",
	"bagboea4b5abcatbhenhvjwofejgf6tnb2rrcc75laoisrswubzey42d33npqn4ku",
}

func TestZeroCommDCIDs(t *testing.T) {
	for _, tc := range zeroCommDCIDs {
		info, _ := tc.proof.Info()
		d, err := merkle.EmptyDigests(merkle.Sha254{}, merkle.ShapeBinary, info.Nodes)
		if err != nil {
			t.Fatal(err)
		}
		root := [32]byte(d[len(d)-1])
		if got := CommDCID(root); got != tc.cid {
			t.Errorf("%v: CommDCID(zero root %x) = %s, want %s", tc.proof, root, got, tc.cid)
		}
		back, err := ParseCommDCID(tc.cid)
		if err != nil || back != root {
			t.Errorf("%v: ParseCommDCID = %x, %v; want %x", tc.proof, back, err, root)
		}
		if _, err := ParseCommRCID(tc.cid); !errors.Is(err, ErrBadCID) {
			t.Errorf("%v: comm_d CID parsed as comm_r: %v", tc.proof, err)
		}
	}
}

func TestCommRCID(t *testing.T) {
	for _, s := range goldenCommRCIDs {
		r, err := ParseCommRCID(s)
		if err != nil {
			t.Fatal(err)
		}
		if CommRCID(r) != s {
			t.Errorf("round trip %s → %x → %s", s, r, CommRCID(r))
		}
		if _, err := ParseCommDCID(s); !errors.Is(err, ErrBadCID) {
			t.Errorf("comm_r CID parsed as comm_d: %v", err)
		}
	}
}

// The binary layout: varint(1) varint(codec) varint(multihash) varint(32) digest.
func TestCIDBytes(t *testing.T) {
	var d [32]byte
	for i := range d {
		d[i] = byte(i)
	}
	for _, tc := range []struct {
		s      string
		prefix string
	}{
		{CommDCID(d), "0181e203922020"},
		{CommRCID(d), "0182e20381e80220"},
	} {
		if tc.s[0] != 'b' {
			t.Fatalf("%s: no multibase prefix", tc.s)
		}
		raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.ToUpper(tc.s[1:]))
		if err != nil {
			t.Fatal(err)
		}
		want := tc.prefix + hex.EncodeToString(d[:])
		if hex.EncodeToString(raw) != want {
			t.Errorf("%s: bytes %x, want %s", tc.s, raw, want)
		}
	}
}

// cidOf builds a CID string from raw fields, for the rejection table.
func cidOf(hexBytes string) string {
	b, err := hex.DecodeString(hexBytes)
	if err != nil {
		panic(err)
	}
	return "b" + base32Lower.EncodeToString(b)
}

func TestParseCIDRejects(t *testing.T) {
	digest := strings.Repeat("11", 32)
	good := cidOf("0181e203922020" + digest)
	if _, err := ParseCommDCID(good); err != nil {
		t.Fatalf("good CID rejected: %v", err)
	}
	tests := []struct {
		name, s, why string
	}{
		{"empty", "", "prefix"},
		{"upper multibase", "B" + strings.ToUpper(good[1:]), "prefix"},
		{"base58", "zb2rhe5P4gXftAwvA4eXQ5HJwsER2owDyS9sKaQRRVQPn93bA", "prefix"},
		{"bad base32", "baga6ea4sea!", "base32"},
		{"upper case body", "b" + strings.ToUpper(good[1:]), "base32"},
		{"newline", good[:20] + "\n" + good[20:], "canonical"},
		{"version 0", cidOf("0081e203922020" + digest), "version"},
		{"dag-cbor codec", cidOf("0171922020" + digest), "codec"},
		{"sealed codec", cidOf("0182e203922020" + digest), "codec"},
		{"sha2-256", cidOf("0181e2031220" + digest), "multihash code"},
		{"poseidon hash", cidOf("0181e20381e80220" + digest), "multihash code"},
		{"length 31", cidOf("0181e20392201f" + digest[2:]), "digest length"},
		{"short digest", cidOf("0181e203922020" + digest[2:]), "digest bytes"},
		{"long digest", cidOf("0181e203922020" + digest + "00"), "digest bytes"},
		{"overlong varint", cidOf("8100" + "81e203922020" + digest), "minimally"},
		{"truncated", cidOf("0181"), "truncated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCommDCID(tc.s)
			if !errors.Is(err, ErrBadCID) {
				t.Fatalf("error %v, want ErrBadCID", err)
			}
			if !strings.Contains(err.Error(), tc.why) {
				t.Errorf("error %q does not say %q", err, tc.why)
			}
		})
	}
}

func TestCIDJSON(t *testing.T) {
	d, _ := ParseCommDCID(zeroCommDCIDs[3].cid)
	c := UnsealedCID(d)
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"/":"` + zeroCommDCIDs[3].cid + `"}`; string(b) != want {
		t.Errorf("Marshal = %s, want %s", b, want)
	}
	var back CID
	if err := json.Unmarshal(b, &back); err != nil || back != c {
		t.Errorf("Unmarshal = %v, %v", back, err)
	}
	if got, err := back.CommD(); err != nil || got != d {
		t.Errorf("CommD = %x, %v", got, err)
	}
	if _, err := back.CommR(); !errors.Is(err, ErrBadCID) {
		t.Errorf("CommR of a comm_d CID: %v", err)
	}

	var zero CID
	if b, _ := json.Marshal(zero); string(b) != "null" {
		t.Errorf("zero CID marshals to %s", b)
	}
	back = c
	if err := json.Unmarshal([]byte("null"), &back); err != nil || back.Defined() {
		t.Errorf("null: %v, %v", back, err)
	}
	for _, bad := range []string{`{}`, `{"/":""}`, `{"/":"bafy2bzacea"}`, `"` + zeroCommDCIDs[0].cid + `"`, `{"/":5}`, `[]`} {
		if err := json.Unmarshal([]byte(bad), &back); !errors.Is(err, ErrBadCID) {
			t.Errorf("Unmarshal(%s): %v, want ErrBadCID", bad, err)
		}
	}
}

func FuzzParseCommitmentCID(f *testing.F) {
	for _, tc := range zeroCommDCIDs {
		f.Add(tc.cid)
	}
	for _, s := range goldenCommRCIDs {
		f.Add(s)
	}
	f.Add("b")
	f.Add(cidOf("0181e203922020"))
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := ParseCommDCID(s); err == nil && CommDCID(d) != s {
			t.Fatalf("comm_d %q parses but re-encodes as %q", s, CommDCID(d))
		}
		if r, err := ParseCommRCID(s); err == nil && CommRCID(r) != s {
			t.Fatalf("comm_r %q parses but re-encodes as %q", s, CommRCID(r))
		}
	})
}

func FuzzCIDUnmarshalJSON(f *testing.F) {
	f.Add([]byte(`{"/":"` + zeroCommDCIDs[0].cid + `"}`))
	f.Add([]byte(`{"/":"` + goldenCommRCIDs[0] + `"}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"/":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var c CID
		if err := json.Unmarshal(b, &c); err != nil {
			return
		}
		out, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var again CID
		if err := json.Unmarshal(out, &again); err != nil || again != c {
			t.Fatalf("%s → %v → %s → %v, %v", b, c, out, again, err)
		}
	})
}
