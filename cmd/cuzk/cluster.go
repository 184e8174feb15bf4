package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/cuzk-project/cuzk/circuits"
	"github.com/cuzk-project/cuzk/client"
	"github.com/cuzk-project/cuzk/cluster"
	"github.com/cuzk-project/cuzk/config"
	"github.com/cuzk-project/cuzk/engine"
	"github.com/cuzk-project/cuzk/memory"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
	"github.com/cuzk-project/cuzk/server"
	"github.com/cuzk-project/cuzk/timeline"
)

// runClusterDaemon is runDaemon in cluster mode: the server answers
// through the cluster (the shared queue), whose worker, with
// cluster.worker, proves on this daemon's engine. A frontend builds no
// engine. Shutdown: the server stops taking requests, the worker hands
// back what it has not finished within daemon.shutdown_grace, then the
// engine closes.
func runClusterDaemon(ctx context.Context, cfg config.Config, log *slog.Logger, hup <-chan os.Signal, r *reloader, heap *memory.HeapLimit) error {
	opts, err := clusterOptions(cfg, log)
	if err != nil {
		return err
	}
	var (
		eng      *engine.Engine
		rec      *timeline.Recorder
		requests *memory.Budget
	)
	if cfg.Cluster.Worker {
		if eng, rec, requests, err = newDaemonEngine(cfg, log, heap); err != nil {
			return err
		}
		defer func() {
			if err := eng.Close(); err != nil {
				log.Warn("closing engine", "err", err)
			}
		}()
		opts.Local = eng
		opts.Devices = len(eng.Status().Devices)
		if opts.Capacity == 0 {
			opts.Capacity = opts.Devices * cfg.GPUs.GPUWorkersPerDevice
		}
	}
	cl, err := cluster.New(ctx, opts)
	if err != nil {
		return err
	}
	if err := cl.Start(ctx); err != nil {
		cl.Close(time.Second)
		return err
	}
	defer func() {
		t0 := time.Now()
		if err := cl.Close(cfg.Daemon.ShutdownGrace.D()); err != nil {
			log.Warn("closing cluster", "err", err)
		}
		log.Info("left the cluster", "took", time.Since(t0).Round(time.Millisecond))
	}()
	return serveEngine(ctx, cfg, log, cl, rec, requests, hup, r)
}

// clusterOptions translates the [cluster] section.
func clusterOptions(cfg config.Config, log *slog.Logger) (cluster.Options, error) {
	c := cfg.Cluster
	o := cluster.Options{
		DatabaseURL:  c.DatabaseURL,
		Migrate:      c.Migrate,
		Queue:        c.Queue,
		Capacity:     c.Capacity,
		MaxAttempts:  c.MaxAttempts,
		PollInterval: c.PollInterval.D(),
		DeadAfter:    c.DeadAfter.D(),
		RideOut:      c.RideOut.D(),
		ResultTTL:    cfg.Engine.ResultTTL.D(),
		Log:          log,
		Timeouts: map[engine.ProofKind]time.Duration{
			engine.KindPoRepSealCommit:     c.Timeouts.PoRep.D(),
			engine.KindSnapDealsUpdate:     c.Timeouts.SnapDeals.D(),
			engine.KindWindowPoStPartition: c.Timeouts.WindowPoSt.D(),
			engine.KindWinningPoSt:         c.Timeouts.WinningPoSt.D(),
		},
	}
	// The frontend plans what it queues, as a daemon on its own does at
	// submit: a malformed request is refused there, not failed on a worker.
	var planner engine.Planner = circuits.New()
	if !cfg.Daemon.Dev {
		planner = productionPlanner{planner}
	}
	o.Planner = planner
	o.Queues = c.Queues
	for name, q := range c.Routes {
		k, ok := cluster.ParseKind(name)
		if !ok {
			return o, fmt.Errorf("cluster.routes: %q is not a proof kind", name)
		}
		if o.Routes == nil {
			o.Routes = map[engine.ProofKind]string{}
		}
		o.Routes[k] = q
	}
	for _, name := range c.LocalKinds {
		k, ok := cluster.ParseKind(name)
		if !ok {
			return o, fmt.Errorf("cluster.local_kinds: %q is not a proof kind", name)
		}
		o.LocalKinds = append(o.LocalKinds, k)
	}
	return o, nil
}

func newClusterCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "Cluster mode: the shared job queue in PostgreSQL (River)",
	}
	var configPath, url string
	migrate := &cobra.Command{
		Use:   "migrate [--config cuzk.toml | --database-url URL]",
		Short: "Create or upgrade River's tables (rivermigrate) and the cuzk tables",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if url == "" {
				cfg, err := config.Load(configPath)
				if err != nil {
					return err
				}
				url = cfg.Cluster.DatabaseURL
			}
			if url == "" {
				return errors.New("no database: give --database-url or a --config with cluster.database_url")
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 10*time.Minute)
			defer cancel()
			pool, err := pgxpool.New(ctx, url)
			if err != nil {
				return fmt.Errorf("database: %w", err)
			}
			defer pool.Close()
			if err := cluster.Migrate(ctx, pool); err != nil {
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), "migrated")
			return err
		},
	}
	migrate.Flags().StringVarP(&configPath, "config", "c", "", "TOML configuration file with a [cluster] section")
	migrate.Flags().StringVar(&url, "database-url", "", "PostgreSQL connection string (overrides cluster.database_url)")
	cmd.AddCommand(migrate)
	return cmd
}

// clusterStatus asks a daemon for GetStatus and the cluster status its
// response header carries (nil from a daemon on its own).
func clusterStatus(ctx context.Context, c *client.Client) (*cuzkv1.GetStatusResponse, *server.ClusterJSON, error) {
	var md metadata.MD
	st, err := c.Raw().GetStatus(ctx, &cuzkv1.GetStatusRequest{}, grpc.Header(&md))
	if err != nil {
		return nil, nil, fmt.Errorf("cuzk GetStatus: %w", err)
	}
	v := md.Get(server.ClusterHeader)
	if len(v) == 0 {
		return st, nil, nil
	}
	var doc server.ClusterJSON
	if err := json.Unmarshal([]byte(v[0]), &doc); err != nil {
		return st, nil, fmt.Errorf("cluster status header: %w", err)
	}
	return st, &doc, nil
}

// writeClusterStatus prints the cluster part of `cuzk status`.
func writeClusterStatus(w io.Writer, c *server.ClusterJSON) error {
	fmt.Fprintf(w, "\ncluster: queues %s, this daemon %s\n", strings.Join(c.Queues, ", "), c.Self)
	switch {
	case c.Database == "unreachable":
		fmt.Fprintf(w, "DATABASE UNREACHABLE for %.0fs: the figures below are the last read (%s)\n", c.DatabaseDownSeconds, c.Error)
	case c.Error != "":
		fmt.Fprintf(w, "cluster status incomplete: %s\n", c.Error)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKER\tHOST\tRUNNING / CAPACITY\tDEVICES\tLAST SEEN")
	for _, wk := range c.Workers {
		seen := fmt.Sprintf("%.0fs ago", wk.LastSeenSeconds)
		if !wk.Alive {
			seen += " (gone?)"
		}
		role := fmt.Sprintf("%d / %d", wk.Running, wk.Capacity)
		if wk.Capacity == 0 {
			role = "frontend"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", wk.ID, dash(wk.Host), role, wk.Devices, seen)
	}
	fmt.Fprintln(tw, "\nWAITING\tJOBS")
	for _, p := range c.Pending {
		fmt.Fprintf(tw, "%s\t%d\n", p.Priority, p.Count)
	}
	if len(c.Pending) == 0 {
		fmt.Fprintln(tw, "(none)")
	}
	states := make([]string, 0, len(c.Jobs))
	for s := range c.Jobs {
		states = append(states, s)
	}
	sort.Strings(states)
	fmt.Fprintln(tw, "\nSTATE\tJOBS")
	for _, s := range states {
		fmt.Fprintf(tw, "%s\t%d\n", s, c.Jobs[s])
	}
	return tw.Flush()
}
