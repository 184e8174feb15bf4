package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuzk-project/cuzk/auth"
	"github.com/cuzk-project/cuzk/server/tlstest"
)

// grpcurl, a client nobody here wrote, reaches the TLS port with
// -cacert and -H "authorization: Bearer …", through server reflection. It
// runs when grpcurl is on PATH or in $GRPCURL
// (go install github.com/fullstorydev/grpcurl/cmd/grpcurl@latest).
func TestGrpcurl(t *testing.T) {
	bin := os.Getenv("GRPCURL")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("grpcurl"); err != nil {
			if home, herr := os.UserHomeDir(); herr == nil {
				if p := filepath.Join(home, "go", "bin", "grpcurl"); fileExists(p) {
					bin, err = p, nil
				}
			}
			if err != nil {
				t.Skip("grpcurl not found (go install github.com/fullstorydev/grpcurl/cmd/grpcurl@latest, or set GRPCURL)")
			}
		}
	}
	pki := tlstest.New(t)
	secret, _ := auth.NewSecret()
	s := serveOpts(t, newFakeEngine(), Options{Listen: "127.0.0.1:0", TLS: &TLSFiles{Cert: pki.Cert, Key: pki.Key}, Secret: secret})
	addr := s.Addr().String()
	read := mustToken(t, secret, auth.Read)
	admin := mustToken(t, secret, auth.Admin)
	cases := []struct {
		name string
		args []string
		ok   bool
		want string
	}{
		{"list with a token", []string{"-cacert", pki.CA, "-H", "authorization: Bearer " + read, addr, "list"}, true, "cuzk.v1.ProvingEngine"},
		{"GetStatus with a read token", []string{"-cacert", pki.CA, "-H", "authorization: Bearer " + read, addr, "cuzk.v1.ProvingEngine/GetStatus"}, true, "{"},
		{"EvictSRS with a read token", []string{"-cacert", pki.CA, "-H", "authorization: Bearer " + read, "-d", `{"circuit_id":"synthetic"}`, addr, "cuzk.v1.ProvingEngine/EvictSRS"}, false, "PermissionDenied"},
		{"EvictSRS with an admin token", []string{"-cacert", pki.CA, "-H", "authorization: Bearer " + admin, "-d", `{"circuit_id":"synthetic"}`, addr, "cuzk.v1.ProvingEngine/EvictSRS"}, true, "{"},
		{"no token", []string{"-cacert", pki.CA, addr, "list"}, false, "Unauthenticated"},
		{"plaintext", []string{"-plaintext", addr, "list"}, false, ""},
	}
	for _, c := range cases {
		out, err := exec.Command(bin, c.args...).CombinedOutput()
		if (err == nil) != c.ok || !strings.Contains(string(out), c.want) {
			t.Errorf("%s: grpcurl %v: %v\n%s", c.name, c.args, err, out)
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
