// Package pgtest starts a throwaway PostgreSQL server for tests: initdb in
// a temporary directory, the server on a unix socket in it (no TCP), and
// stopped and removed when the test ends.
//
// It finds initdb and pg_ctl on PATH, in /usr/lib/postgresql/*/bin or
// /usr/local/bin; when they are missing and the test runs as root with
// apt-get, it installs Debian's postgresql package. Otherwise the test is
// skipped with the reason. PostgreSQL refuses to run as root: as root the
// server runs as the postgres user (or nobody).
package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Server is a running test server.
type Server struct {
	dir  string
	user string // the database superuser (the OS user running it)
	n    atomic.Int32

	bin, data, opts string
	run             func(name string, args ...string) *exec.Cmd
}

// Start starts a server for t and stops it when t ends; t is skipped
// when no server can be had.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := findBin()
	if err != nil {
		t.Skipf("no PostgreSQL: %v", err)
	}
	dir, err := os.MkdirTemp("", "cuzkpg") // short: the socket path has ~100 bytes
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{dir: dir}
	run, owner, err := runAs(dir)
	if err != nil {
		os.RemoveAll(dir)
		t.Skipf("no PostgreSQL: %v", err)
	}
	s.user, s.run, s.bin = owner, run, bin
	data := filepath.Join(dir, "data")
	s.data = data
	if out, err := run(filepath.Join(bin, "initdb"), "-D", data, "-U", owner, "-A", "trust", "-E", "UTF8", "--no-sync").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	s.opts = fmt.Sprintf("-k %s -c listen_addresses='' -F -c full_page_writes=off -c max_connections=200", dir)
	if err := s.start(); err != nil {
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if out, err := run(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop").CombinedOutput(); err != nil {
			t.Logf("pg_ctl stop: %v\n%s", err, out)
		}
		os.RemoveAll(dir)
	})
	return s
}

// Stop stops the server at once (pg_ctl stop -m immediate: every
// connection is cut, as when the database's machine dies); Restart starts
// it again on the same data and socket. For tests of an outage.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	if out, err := s.run(filepath.Join(s.bin, "pg_ctl"), "-D", s.data, "-m", "immediate", "-w", "stop").CombinedOutput(); err != nil {
		t.Fatalf("pg_ctl stop: %v\n%s", err, out)
	}
}

// Restart starts a server that Stop stopped.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
}

func (s *Server) start() error {
	if out, err := s.run(filepath.Join(s.bin, "pg_ctl"), "-D", s.data, "-o", s.opts, "-l", filepath.Join(s.dir, "log"), "-w", "-t", "60", "start").CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
		return fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	return nil
}

// URL is the connection string of database db ("" = postgres).
func (s *Server) URL(db string) string {
	if db == "" {
		db = "postgres"
	}
	return fmt.Sprintf("host=%s port=5432 user=%s dbname=%s sslmode=disable", s.dir, s.user, db)
}

// NewDB creates an empty database and returns its connection string.
func (s *Server) NewDB(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("t%d", s.n.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.URL(""))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	return s.URL(name)
}

// Dir is the server's directory (its socket, its log).
func (s *Server) Dir() string { return s.dir }

var installOnce sync.Once

// findBin returns the directory of initdb and pg_ctl, installing them
// when it may.
func findBin() (string, error) {
	if dir, ok := lookBin(); ok {
		return dir, nil
	}
	var ierr error
	installOnce.Do(func() { ierr = install() })
	if ierr != nil {
		return "", ierr
	}
	if dir, ok := lookBin(); ok {
		return dir, nil
	}
	return "", fmt.Errorf("initdb and pg_ctl not found after installing postgresql")
}

func lookBin() (string, bool) {
	var dirs []string
	if p, err := exec.LookPath("initdb"); err == nil {
		dirs = append(dirs, filepath.Dir(p))
	}
	versions, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(versions, func(i, j int) bool { return pgVersion(versions[i]) > pgVersion(versions[j]) })
	dirs = append(dirs, versions...)
	dirs = append(dirs, "/usr/local/bin")
	for _, d := range dirs {
		if isExec(filepath.Join(d, "initdb")) && isExec(filepath.Join(d, "pg_ctl")) {
			return d, true
		}
	}
	return "", false
}

func pgVersion(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func isExec(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

func install() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("initdb/pg_ctl not found and not root (install Debian's postgresql package)")
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		return fmt.Errorf("initdb/pg_ctl not found and no apt-get to install postgresql")
	}
	env := append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	for _, args := range [][]string{{"update"}, {"install", "-y", "--no-install-recommends", "postgresql"}} {
		cmd := exec.Command("apt-get", args...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("apt-get %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// runAs returns how to run a PostgreSQL program on dir and the OS user
// it runs as: the current user, or as root the postgres user (nobody
// without one), which gets dir.
func runAs(dir string) (func(name string, args ...string) *exec.Cmd, string, error) {
	if os.Geteuid() != 0 {
		u, err := user.Current()
		if err != nil {
			return nil, "", err
		}
		return exec.Command, u.Username, nil
	}
	var u *user.User
	for _, name := range []string{"postgres", "nobody"} {
		if v, err := user.Lookup(name); err == nil {
			u = v
			break
		}
	}
	if u == nil {
		return nil, "", fmt.Errorf("running as root and no postgres or nobody user to run the server as")
	}
	runuser, err := exec.LookPath("runuser")
	if err != nil {
		return nil, "", fmt.Errorf("running as root and no runuser: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, "", err
	}
	return func(name string, args ...string) *exec.Cmd {
		return exec.Command(runuser, append([]string{"-u", u.Username, "--", name}, args...)...)
	}, u.Username, nil
}
