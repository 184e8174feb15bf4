package server

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// SocketMode is the permission of a unix socket the daemon creates:
// owner and group may connect.
const SocketMode = 0o660

// maxSocketPath is the longest unix socket path Linux binds (sun_path is
// 108 bytes with the terminating NUL).
const maxSocketPath = 107

// ParseAddr splits a listen address into a network and an address:
// "unix:///abs/path", "unix://rel/path" or "unix:path" give ("unix", path);
// "tcp://host:port" or "host:port" give ("tcp", "host:port").
func ParseAddr(addr string) (network, address string, err error) {
	switch {
	case addr == "":
		return "", "", errors.New("empty listen address")
	case strings.HasPrefix(addr, "unix://"):
		address = strings.TrimPrefix(addr, "unix://")
		network = "unix"
	case strings.HasPrefix(addr, "unix:"):
		address = strings.TrimPrefix(addr, "unix:")
		network = "unix"
	case strings.HasPrefix(addr, "tcp://"):
		address = strings.TrimPrefix(addr, "tcp://")
		network = "tcp"
	case strings.Contains(addr, "://"):
		return "", "", fmt.Errorf("listen address %q: unsupported scheme (want unix:// or host:port)", addr)
	default:
		address, network = addr, "tcp"
	}
	if network == "unix" {
		if address == "" {
			return "", "", fmt.Errorf("listen address %q: empty socket path", addr)
		}
		return network, address, nil
	}
	if _, port, err := net.SplitHostPort(address); err != nil {
		return "", "", fmt.Errorf("listen address %q: %w", addr, err)
	} else if port == "" {
		return "", "", fmt.Errorf("listen address %q: missing port", addr)
	}
	return network, address, nil
}

// Listen opens a listener for a unix:// or host:port address. For a unix
// socket it creates the parent directory if needed, removes a stale
// socket left by a dead daemon (but refuses if a daemon still answers
// there, or if the path is not a socket), and sets SocketMode.
func Listen(addr string) (net.Listener, error) {
	network, address, err := ParseAddr(addr)
	if err != nil {
		return nil, err
	}
	if network == "tcp" {
		lis, err := net.Listen("tcp", address)
		if err != nil {
			return nil, fmt.Errorf("listening on %s: %w", address, err)
		}
		return lis, nil
	}
	if len(address) > maxSocketPath {
		return nil, fmt.Errorf("unix socket path %s is %d bytes long; the kernel allows %d", address, len(address), maxSocketPath)
	}
	if dir := filepath.Dir(address); dir != "" {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("creating socket directory: %w", err)
		}
	}
	if err := removeStaleSocket(address); err != nil {
		return nil, err
	}
	lis, err := net.Listen("unix", address)
	if err != nil {
		return nil, fmt.Errorf("listening on unix socket %s: %w", address, err)
	}
	if err := os.Chmod(address, SocketMode); err != nil {
		lis.Close()
		return nil, fmt.Errorf("setting mode of %s: %w", address, err)
	}
	return lis, nil
}

func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checking socket path: %w", err)
	}
	if fi.Mode()&fs.ModeSocket == 0 {
		return fmt.Errorf("socket path %s exists and is not a socket; refusing to remove it", path)
	}
	if c, err := net.DialTimeout("unix", path, 500*time.Millisecond); err == nil {
		c.Close()
		return fmt.Errorf("socket %s is in use by a running process", path)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing stale socket %s: %w", path, err)
	}
	return nil
}
