package auth

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestAllows(t *testing.T) {
	cases := []struct {
		allow []Permission
		need  Permission
		want  bool
	}{
		{UpTo(Read), Read, true},
		{UpTo(Read), Write, false},
		{UpTo(Read), Admin, false},
		{UpTo(Write), Read, true},
		{UpTo(Write), Write, true},
		{UpTo(Write), Admin, false},
		{UpTo(Admin), Admin, true},
		{[]Permission{Admin}, Read, true}, // a stronger permission implies the weaker ones
		{[]Permission{"sign"}, Read, false},
		{nil, Read, false},
		{UpTo(Admin), "bogus", false},
	}
	for _, c := range cases {
		if got := Allows(c.allow, c.need); got != c.want {
			t.Errorf("Allows(%v, %s) = %v, want %v", c.allow, c.need, got, c.want)
		}
	}
}

func TestParsePermission(t *testing.T) {
	for in, want := range map[string]Permission{"read": Read, "WRITE": Write, " admin ": Admin} {
		if got, err := ParsePermission(in); err != nil || got != want {
			t.Errorf("ParsePermission(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "sign", "root"} {
		if _, err := ParsePermission(in); err == nil {
			t.Errorf("ParsePermission(%q) accepted", in)
		}
	}
}

func TestSecretFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "secret")
	s, err := Init(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != SecretFileMode {
		t.Errorf("secret file mode %#o, want %#o", fi.Mode().Perm(), SecretFileMode)
	}
	got, err := ReadSecret(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(s) {
		t.Error("ReadSecret returned another secret than Init wrote")
	}
	if _, err := Init(path); !errors.Is(err, ErrSecretExists) {
		t.Errorf("Init over an existing file: %v, want ErrSecretExists", err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSecret(path); err == nil {
		t.Error("ReadSecret accepted a group-readable secret")
	}
	short := filepath.Join(dir, "short")
	if err := os.WriteFile(short, []byte("abcd\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSecret(short); err == nil {
		t.Error("ReadSecret accepted a 2-byte secret")
	}
	if _, err := ReadSecret(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing secret file: %v", err)
	}
}

func TestTokens(t *testing.T) {
	s, _ := NewSecret()
	other, _ := NewSecret()
	for _, p := range Permissions {
		tok, err := NewToken(s, p)
		if err != nil {
			t.Fatal(err)
		}
		allow, err := Verify(s, tok)
		if err != nil {
			t.Fatalf("%s token: %v", p, err)
		}
		if !Allows(allow, p) {
			t.Errorf("%s token allows %v", p, allow)
		}
		if _, err := Verify(other, tok); !errors.Is(err, ErrBadToken) {
			t.Errorf("%s token under another secret: %v, want ErrBadToken", p, err)
		}
	}
	expired, _ := Sign(s, Payload{Allow: UpTo(Admin), RegisteredClaims: jwt.RegisteredClaims{ExpiresAt: jwt.NewNumericDate(time.Now().Add(-time.Hour))}})
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, Payload{Allow: UpTo(Admin)}).SignedString(jwt.UnsafeAllowNoneSignatureType)
	hs512, _ := jwt.NewWithClaims(jwt.SigningMethodHS512, Payload{Allow: UpTo(Admin)}).SignedString([]byte(s))
	for name, tok := range map[string]string{"expired": expired, "alg none": none, "HS512": hs512, "garbage": "a.b.c", "empty": ""} {
		if _, err := Verify(s, tok); !errors.Is(err, ErrBadToken) {
			t.Errorf("%s token: %v, want ErrBadToken", name, err)
		}
	}
	if _, err := NewToken(s, "sign"); err == nil {
		t.Error("NewToken made a token of an unknown permission")
	}
}

// A token issued by lotus's scheme (its payload lists every permission up
// to the granted one, "sign" included) is accepted.
func TestLotusShapedToken(t *testing.T) {
	s, _ := NewSecret()
	tok, err := Sign(s, Payload{Allow: []Permission{"read", "write", "sign", "admin"}})
	if err != nil {
		t.Fatal(err)
	}
	allow, err := Verify(s, tok)
	if err != nil || !Allows(allow, Admin) {
		t.Fatalf("lotus-shaped admin token: %v %v", allow, err)
	}
}

func TestParseAPIInfo(t *testing.T) {
	s, _ := NewSecret()
	tok, _ := NewToken(s, Read)
	cases := []struct {
		in, token, addr string
		bad             bool
	}{
		{in: tok + ":127.0.0.1:9820", token: tok, addr: "127.0.0.1:9820"},
		{in: tok + ":unix:///run/cuzk.sock", token: tok, addr: "unix:///run/cuzk.sock"},
		{in: tok + ":/ip4/10.0.0.2/tcp/9820/http", token: tok, addr: "10.0.0.2:9820"},
		{in: "host.example.com:9820", addr: "host.example.com:9820"},
		{in: "unix:///run/cuzk.sock", addr: "unix:///run/cuzk.sock"},
		{in: "/run/cuzk.sock", addr: "/run/cuzk.sock"},
		{in: tok + ":", bad: true},
		{in: "", bad: true},
	}
	for _, c := range cases {
		token, addr, err := ParseAPIInfo(c.in)
		if c.bad {
			if err == nil {
				t.Errorf("ParseAPIInfo(%q) accepted", c.in)
			}
			continue
		}
		if err != nil || token != c.token || addr != c.addr {
			t.Errorf("ParseAPIInfo(%q) = %q, %q, %v; want %q, %q", c.in, token, addr, err, c.token, c.addr)
		}
	}
}

func FuzzParseAPIInfo(f *testing.F) {
	f.Add("a.b.c:host:1")
	f.Add("/ip4/1.2.3.4/tcp/1")
	f.Fuzz(func(t *testing.T, s string) { _, _, _ = ParseAPIInfo(s) })
}

func FuzzVerify(f *testing.F) {
	s, _ := NewSecret()
	tok, _ := NewToken(s, Admin)
	f.Add(tok)
	f.Fuzz(func(t *testing.T, tok string) { _, _ = Verify(s, tok) })
}
