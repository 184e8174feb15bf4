package server

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
)

// TLSFiles names the PEM files of the daemon's TLS identity. ClientCA,
// when set, turns on mutual TLS: a client must present a certificate that
// chains to it.
type TLSFiles struct {
	Cert     string
	Key      string
	ClientCA string
}

// tlsIdentity is the TLS configuration the files describe, replaced as a
// whole by reload: handshakes after a reload use the new certificate,
// connections already made keep theirs.
type tlsIdentity struct {
	files TLSFiles
	cur   atomic.Pointer[tls.Config]
}

func newTLSIdentity(f TLSFiles) (*tlsIdentity, error) {
	if f.Cert == "" || f.Key == "" {
		return nil, errors.New("TLS needs both a certificate and a key file")
	}
	id := &tlsIdentity{files: f}
	if err := id.reload(); err != nil {
		return nil, err
	}
	return id, nil
}

// reload reads the files again. On an error the identity in use stays.
func (id *tlsIdentity) reload() error {
	cert, err := tls.LoadX509KeyPair(id.files.Cert, id.files.Key)
	if err != nil {
		return fmt.Errorf("loading TLS certificate %s and key %s: %w", id.files.Cert, id.files.Key, err)
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}}
	if id.files.ClientCA != "" {
		pem, err := os.ReadFile(id.files.ClientCA)
		if err != nil {
			return fmt.Errorf("reading TLS client CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("TLS client CA %s holds no PEM certificate", id.files.ClientCA)
		}
		c.ClientCAs = pool
		c.ClientAuth = tls.RequireAndVerifyClientCert
	}
	id.cur.Store(c)
	return nil
}

// config is the tls.Config to serve with: each handshake takes the
// identity current at that moment.
func (id *tlsIdentity) config() *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			return id.cur.Load(), nil
		},
	}
}
