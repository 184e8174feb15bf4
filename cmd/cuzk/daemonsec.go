package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cuzk-project/cuzk/auth"
	"github.com/cuzk-project/cuzk/config"
	"github.com/cuzk-project/cuzk/memory"
	"github.com/cuzk-project/cuzk/server"
)

// The daemon's security and operations: TLS and tokens on TCP, the fd
// limit, SIGHUP reload, the exit code of a drain that cut RPCs off.

// exitCutOff is the daemon's exit code when the shutdown grace period
// ended with RPCs still running (their clients saw Unavailable).
const exitCutOff = 3

// daemonSecurityFlags override [daemon.tls], [daemon.auth] and
// daemon.insecure_allow_unauthenticated.
type daemonSecurityFlags struct {
	tlsCert, tlsKey, tlsClientCA string
	authSecret                   string
	insecure                     bool
}

func (f *daemonSecurityFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.tlsCert, "tls-cert", "", "PEM certificate for the TCP listener (daemon.tls.cert); re-read on SIGHUP")
	fl.StringVar(&f.tlsKey, "tls-key", "", "PEM key of --tls-cert (daemon.tls.key)")
	fl.StringVar(&f.tlsClientCA, "tls-client-ca", "", "PEM CA bundle: require client certificates it signed (mutual TLS; daemon.tls.client_ca)")
	fl.StringVar(&f.authSecret, "auth-secret", "", "token secret file (cuzk auth init): TCP callers need a token (daemon.auth.secret_file)")
	fl.BoolVar(&f.insecure, "insecure-allow-unauthenticated", false,
		"let a TCP listener run without --auth-secret: anyone who reaches it may prove, cancel, preload and evict (Curio's current client sends no token)")
}

func (f *daemonSecurityFlags) apply(cmd *cobra.Command, cfg *config.Config) {
	ch := cmd.Flags().Changed
	if ch("tls-cert") {
		cfg.Daemon.TLS.Cert = f.tlsCert
	}
	if ch("tls-key") {
		cfg.Daemon.TLS.Key = f.tlsKey
	}
	if ch("tls-client-ca") {
		cfg.Daemon.TLS.ClientCA = f.tlsClientCA
	}
	if ch("auth-secret") {
		cfg.Daemon.Auth.SecretFile = f.authSecret
	}
	if ch("insecure-allow-unauthenticated") {
		cfg.Daemon.InsecureAllowUnauthenticated = f.insecure
	}
}

// securityOptions fills the server options of [daemon.tls], [daemon.auth]
// and the connection bounds, reading the secret file.
func securityOptions(cfg config.Config, o *server.Options) error {
	if cfg.Daemon.TLS.Enabled() {
		o.TLS = &server.TLSFiles{Cert: cfg.Daemon.TLS.Cert, Key: cfg.Daemon.TLS.Key, ClientCA: cfg.Daemon.TLS.ClientCA}
	}
	if f := cfg.Daemon.Auth.SecretFile; f != "" {
		s, err := auth.ReadSecret(f)
		if err != nil {
			return fmt.Errorf("daemon.auth.secret_file: %w", err)
		}
		o.Secret = s
	}
	o.InsecureAllowUnauthenticated = cfg.Daemon.InsecureAllowUnauthenticated
	o.MaxConnections = cfg.Daemon.MaxConnections
	o.MaxStreams = cfg.Daemon.MaxStreams
	o.MaxMessageBytes = int(cfg.Daemon.MaxMessageSize)
	o.IdleTimeout = cfg.Daemon.IdleTimeout.D()
	return nil
}

// requestMemoryShare is the part of the memory budget set aside for
// requests being received and decoded: an eighth, at most 1 GiB (about
// six 50 MB PoRep requests decoding at once, each costing 3× its size).
func requestMemoryShare(limit uint64) uint64 { return min(limit/8, 1<<30) }

// splitBudget carves the request memory out of the budget.
func splitBudget(limit uint64) (engine, requests *memory.Budget) {
	r := requestMemoryShare(limit)
	return memory.New(limit - r), memory.New(r)
}

// raiseFDLimit lifts the soft RLIMIT_NOFILE to the hard limit: each
// client connection, parameter file and socket is a descriptor.
func raiseFDLimit(log *slog.Logger) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		log.Warn("reading the open-file limit", "err", err)
		return
	}
	if lim.Cur < lim.Max {
		old := lim.Cur
		lim.Cur = lim.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			log.Warn("raising the open-file limit", "soft", old, "hard", lim.Max, "err", err)
			return
		}
	}
	log.Debug("open-file limit", "soft", lim.Cur, "hard", lim.Max)
}

// parseLevel reads logging.level (validated by config).
func parseLevel(s string) slog.Level {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug
	case "warn", "warning":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}

// reloader is what SIGHUP does: reread the TLS files and the log level.
type reloader struct {
	configPath string // "" = no file to reread
	levelFlag  bool   // --log-level given: it wins over the file
	level      *slog.LevelVar
}

func (r *reloader) logLevel(log *slog.Logger) {
	if r == nil || r.configPath == "" || r.levelFlag || r.level == nil {
		return
	}
	cfg, err := config.Load(r.configPath)
	if err != nil {
		log.Warn("SIGHUP: configuration not reloaded", "err", err)
		return
	}
	if l := parseLevel(cfg.Logging.Level); l != r.level.Level() {
		r.level.Set(l)
		log.Info("SIGHUP: log level changed", "level", l.String())
	}
}

// serveReloads runs the reloads that hup asks for until ctx ends.
func serveReloads(ctx context.Context, hup <-chan os.Signal, srv *server.Server, r *reloader, log *slog.Logger) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			log.Info("SIGHUP: reloading")
			if err := srv.Reload(); err != nil {
				log.Error("SIGHUP: TLS certificates not reloaded; the old ones stay in use", "err", err)
			}
			r.logLevel(log)
		}
	}
}

// exitCode turns the daemon's end into the process's: ErrCutOff exits
// with exitCutOff.
func exitCode(err error) error {
	if errors.Is(err, server.ErrCutOff) {
		return exitError{code: exitCutOff}
	}
	return err
}
