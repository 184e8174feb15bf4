package config

import (
	"strings"
	"testing"
)

func TestSecuritySections(t *testing.T) {
	c, err := Parse([]byte(`
[daemon]
listen = "10.0.0.5:9820"
max_connections = 64
max_streams = 32
max_message_size = "64MiB"
idle_timeout = "90s"
[daemon.tls]
cert = "/etc/cuzk/cert.pem"
key = "/etc/cuzk/key.pem"
client_ca = "/etc/cuzk/ca.pem"
[daemon.auth]
secret_file = "/etc/cuzk/secret"
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Daemon.TLS.Cert != "/etc/cuzk/cert.pem" || c.Daemon.TLS.ClientCA != "/etc/cuzk/ca.pem" || c.Daemon.Auth.SecretFile != "/etc/cuzk/secret" ||
		c.Daemon.MaxConnections != 64 || c.Daemon.MaxStreams != 32 || c.Daemon.MaxMessageSize != 64<<20 || c.Daemon.IdleTimeout.D().Seconds() != 90 {
		t.Errorf("parsed %+v", c.Daemon)
	}
	for _, tc := range []struct{ toml, key string }{
		{"[daemon.tls]\ncert = \"/c.pem\"", "daemon.tls"},
		{"[daemon.tls]\nclient_ca = \"/ca.pem\"", "daemon.tls.client_ca"},
		{"[daemon]\nmax_connections = -1", "daemon.max_connections"},
		{"[daemon]\nmax_streams = -1", "daemon.max_streams"},
		{"[daemon]\nmax_message_size = \"1KiB\"", "daemon.max_message_size"},
		{"[daemon]\nmax_message_size = \"4GiB\"", "daemon.max_message_size"},
		{"[daemon.auth]\nsecret = \"inline\"", "daemon.auth.secret"},
	} {
		if _, err := Parse([]byte(tc.toml)); err == nil || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("%q: %v, want an error naming %s", tc.toml, err, tc.key)
		}
	}
}
