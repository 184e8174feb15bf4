// Package tlstest makes a throwaway PKI for tests: a CA, a server
// certificate for 127.0.0.1 and localhost, and a client certificate, as
// PEM files in a test's temporary directory. Never for production keys.
package tlstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// PKI is a CA with a server and a client certificate, generated per
// test and written as PEM files.
type PKI struct {
	dir                   string
	caCert                *x509.Certificate
	caKey                 *ecdsa.PrivateKey
	CA, Cert, Key         string // files
	ClientCert, ClientKey string
}

func New(t testing.TB) *PKI {
	t.Helper()
	p := &PKI{dir: t.TempDir()}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "cuzk test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	p.caCert, _ = x509.ParseCertificate(der)
	p.caKey = key
	p.CA = p.write(t, "ca.pem", "CERTIFICATE", der)
	p.Cert, p.Key = p.Issue(t, "server", 2, x509.ExtKeyUsageServerAuth)
	p.ClientCert, p.ClientKey = p.Issue(t, "client", 3, x509.ExtKeyUsageClientAuth)
	return p
}

// Issue signs a leaf certificate for 127.0.0.1 and localhost.
func (p *PKI) Issue(t testing.TB, name string, serial int64, usage x509.ExtKeyUsage) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.caCert, &key.PublicKey, p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return p.write(t, name+".pem", "CERTIFICATE", der), p.write(t, name+".key", "EC PRIVATE KEY", kb)
}

func (p *PKI) write(t testing.TB, name, typ string, der []byte) string {
	t.Helper()
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// ClientTLS trusts the CA and, with mTLS, presents the client certificate.
func (p *PKI) ClientTLS(t testing.TB, withCert bool) *tls.Config {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(p.caCert)
	c := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}
	if withCert {
		cert, err := tls.LoadX509KeyPair(p.ClientCert, p.ClientKey)
		if err != nil {
			t.Fatal(err)
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c
}
