package config

import (
	"errors"
	"fmt"
	"time"
)

// TLS is [daemon.tls]: the daemon's certificate for a TCP listener.
// ClientCA turns on mutual TLS. The files are read again on SIGHUP.
type TLS struct {
	Cert     string `toml:"cert"`
	Key      string `toml:"key"`
	ClientCA string `toml:"client_ca"`
}

// Enabled reports whether a certificate is configured.
func (t TLS) Enabled() bool { return t.Cert != "" || t.Key != "" }

// Auth is [daemon.auth]: the secret that API tokens are signed with
// (`cuzk auth init --secret FILE`). With it, a TCP listener and an HTTP
// listener off loopback require a token; the unix socket never does.
type Auth struct {
	SecretFile string `toml:"secret_file"`
}

// Defaults of the connection bounds.
const (
	DefaultMaxConnections = 1024
	DefaultMaxStreams     = 256
	DefaultMaxMessageSize = 256 << 20
	DefaultIdleTimeout    = 5 * time.Minute
)

// The message limits accepted.
const (
	// minMessageSize guards against a unit left out ("256" for
	// "256MiB"): Filecoin's requests need tens of MB (a 32 GiB PoRep's
	// is about 51 MB).
	minMessageSize = 1 << 20
	// maxMessageSize is the largest protobuf message (2 GiB).
	maxMessageSize = 2<<30 - 1
)

// validateSecurity checks [daemon.tls], [daemon.auth] and the connection
// bounds; Validate calls it.
func (c *Config) validateSecurity() []error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	}
	t := c.Daemon.TLS
	if t.Enabled() && (t.Cert == "" || t.Key == "") {
		bad("daemon.tls", "cert and key go together (cert %q, key %q)", t.Cert, t.Key)
	}
	if t.ClientCA != "" && !t.Enabled() {
		bad("daemon.tls.client_ca", "needs daemon.tls.cert and key")
	}
	if c.Daemon.MaxConnections < 0 {
		bad("daemon.max_connections", "%d is negative", c.Daemon.MaxConnections)
	}
	if c.Daemon.MaxStreams < 0 {
		bad("daemon.max_streams", "%d is negative", c.Daemon.MaxStreams)
	}
	if m := c.Daemon.MaxMessageSize; m != 0 && (m < minMessageSize || m > maxMessageSize) {
		bad("daemon.max_message_size", "%s is outside %s to %s", m.Human(), Size(minMessageSize).Human(), Size(maxMessageSize).Human())
	}
	if c.Daemon.IdleTimeout < 0 {
		bad("daemon.idle_timeout", "negative")
	}
	return errs
}

// ErrBudgetOverMemory refuses an explicit memory.total_budget larger than
// the machine's memory: the budget could never be honoured and the kernel
// would kill the daemon first.
var ErrBudgetOverMemory = errors.New("memory.total_budget exceeds the machine's memory")

// checkBudget refuses an explicit budget above m's usable memory
// (MemTotal less Shmem).
func checkBudget(budget uint64, m Meminfo) error {
	if budget <= m.Usable() {
		return nil
	}
	if m.Shmem == 0 {
		return fmt.Errorf("%w: %s > MemTotal %s; lower it or use \"auto\"", ErrBudgetOverMemory, Size(budget).Human(), Size(m.Total).Human())
	}
	return fmt.Errorf("%w: %s > MemTotal %s less the %s that shared memory holds (Shmem: RAM disks such as /dev/shm); lower it, free the RAM disk, or use \"auto\"",
		ErrBudgetOverMemory, Size(budget).Human(), Size(m.Total).Human(), Size(m.Shmem).Human())
}
