package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/cuzk-project/cuzk/auth"
	"github.com/cuzk-project/cuzk/client"
	"github.com/cuzk-project/cuzk/config"
	cuzkv1 "github.com/cuzk-project/cuzk/proto/cuzk/v1"
)

// daemonAddrDefault is the address the operator commands dial when
// --addr is not given: the address of $CUZK_API_INFO, else $CUZK_ADDR,
// else the daemon's default socket ($XDG_RUNTIME_DIR/cuzk.sock or
// /tmp/cuzk.sock).
func daemonAddrDefault() string {
	if v := os.Getenv(auth.APIInfoEnv); v != "" {
		if _, addr, err := auth.ParseAPIInfo(v); err == nil {
			return addr
		}
	}
	if a := os.Getenv("CUZK_ADDR"); a != "" {
		return a
	}
	return config.DefaultListen()
}

// opsFlags are the flags every operator command shares.
type opsFlags struct {
	addr    string
	timeout time.Duration
	conn    connFlags
}

func (f *opsFlags) register(c *cobra.Command, timeout time.Duration) {
	c.Flags().StringVar(&f.addr, "addr", daemonAddrDefault(), "daemon address: unix:///path or host:port ($CUZK_API_INFO, $CUZK_ADDR)")
	c.Flags().DurationVar(&f.timeout, "timeout", timeout, "time limit for the call")
	f.conn.register(c)
}

// call dials the daemon and runs fn with a context bounded by --timeout.
func (f *opsFlags) call(parent context.Context, fn func(ctx context.Context, c *client.Client) error) error {
	opts, err := f.conn.dialOptions()
	if err != nil {
		return err
	}
	c, err := client.Dial(f.addr, opts...)
	if err != nil {
		return err
	}
	defer c.Close()
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithTimeout(parent, f.timeout)
	defer cancel()
	return daemonError(f.addr, fn(ctx, c))
}

// daemonError rewrites gRPC errors for an operator.
func daemonError(addr string, err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(errors.Unwrap(err))
	if !ok {
		st, ok = status.FromError(err)
	}
	if !ok {
		return err
	}
	switch st.Code() {
	case codes.Unavailable:
		return fmt.Errorf("no daemon answering at %s (is `cuzk daemon` running? see --addr): %s", addr, st.Message())
	case codes.DeadlineExceeded:
		return fmt.Errorf("daemon at %s did not answer in time (--timeout)", addr)
	case codes.NotFound, codes.InvalidArgument:
		return errors.New(st.Message())
	case codes.Unauthenticated, codes.PermissionDenied:
		return fmt.Errorf("daemon at %s refused the call: %s (see --token, %s, `cuzk auth create-token`)", addr, st.Message(), auth.APIInfoEnv)
	}
	return fmt.Errorf("daemon at %s: %s: %s", addr, st.Code(), st.Message())
}

// opsCommand makes an operator command that makes one call to the
// daemon: do gets the client, the arguments and the output. nargs is the
// exact number of arguments.
func opsCommand(use, short string, nargs int, timeout time.Duration,
	do func(ctx context.Context, c *client.Client, args []string, out io.Writer) error) (*cobra.Command, *opsFlags) {
	f := &opsFlags{}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(nargs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.call(cmd.Context(), func(ctx context.Context, c *client.Client) error {
				return do(ctx, c, args, cmd.OutOrStdout())
			})
		},
	}
	f.register(cmd, timeout)
	return cmd, f
}

func newStatusCmd() *cobra.Command {
	var asJSON bool
	var flags *opsFlags
	cmd, flags := opsCommand("status", "Show a daemon's devices, parameters, queues and memory", 0, 30*time.Second,
		func(ctx context.Context, c *client.Client, _ []string, out io.Writer) error {
			st, cl, err := clusterStatus(ctx, c)
			if err != nil {
				return err
			}
			if !asJSON {
				if err := writeStatus(out, flags.addr, st); err != nil || cl == nil {
					return err
				}
				return writeClusterStatus(out, cl)
			}
			b, err := protojson.MarshalOptions{Multiline: true, EmitUnpopulated: true}.Marshal(st)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(out, string(b))
			return err
		})
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the GetStatus response as JSON")
	return cmd
}

func newMetricsCmd() *cobra.Command {
	cmd, _ := opsCommand("metrics", "Print a daemon's Prometheus metrics", 0, 30*time.Second,
		func(ctx context.Context, c *client.Client, _ []string, out io.Writer) error {
			text, err := c.Metrics(ctx)
			if err != nil {
				return err
			}
			_, err = io.WriteString(out, text)
			return err
		})
	return cmd
}

func newCancelCmd() *cobra.Command {
	cmd, _ := opsCommand("cancel <job-id>", "Cancel a job: queued work is dropped, running work stops at the next stage boundary", 1, 30*time.Second,
		func(ctx context.Context, c *client.Client, args []string, out io.Writer) error {
			running, err := c.Cancel(ctx, args[0])
			if err != nil {
				return err
			}
			state := "was queued"
			if running {
				state = "was running"
			}
			_, err = fmt.Fprintf(out, "cancelled %s (%s)\n", args[0], state)
			return err
		})
	return cmd
}

func newPreloadCmd() *cobra.Command {
	// A 44 GiB parameter file takes minutes to load.
	cmd, _ := opsCommand("preload <circuit-id>", "Load a circuit's parameters ahead of the first proof (e.g. porep-32g)", 1, 10*time.Minute,
		func(ctx context.Context, c *client.Client, args []string, out io.Writer) error {
			already, took, err := c.Preload(ctx, args[0])
			if err != nil {
				return err
			}
			if already {
				_, err = fmt.Fprintf(out, "%s was already loaded\n", args[0])
			} else {
				_, err = fmt.Fprintf(out, "loaded %s in %v\n", args[0], took)
			}
			return err
		})
	return cmd
}

func newEvictCmd() *cobra.Command {
	cmd, _ := opsCommand("evict <circuit-id>", "Drop a circuit's parameters from memory if no proof is using them", 1, 30*time.Second,
		func(ctx context.Context, c *client.Client, args []string, out io.Writer) error {
			was, freed, err := c.Evict(ctx, args[0])
			if err != nil {
				return err
			}
			if was {
				_, err = fmt.Fprintf(out, "evicted %s, freed %s\n", args[0], config.Size(freed).Human())
			} else {
				_, err = fmt.Fprintf(out, "%s was not loaded\n", args[0])
			}
			return err
		})
	return cmd
}

// writeStatus prints a GetStatusResponse as tables.
func writeStatus(w io.Writer, addr string, st *cuzkv1.GetStatusResponse) error {
	up := (time.Duration(st.UptimeSeconds) * time.Second).String()
	fmt.Fprintf(w, "daemon %s: up %s, %d proofs completed, %d failed\n", addr, up, st.TotalProofsCompleted, st.TotalProofsFailed)
	if lim := st.PinnedMemoryLimitBytes; lim > 0 {
		fmt.Fprintf(w, "memory: %s of %s reserved (%.0f%%)\n", config.Size(st.PinnedMemoryBytes).Human(),
			config.Size(lim).Human(), 100*float64(st.PinnedMemoryBytes)/float64(lim))
	} else {
		fmt.Fprintf(w, "memory: %s reserved, no limit\n", config.Size(st.PinnedMemoryBytes).Human())
	}

	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nDEVICE\tNAME\tMEMORY FREE / TOTAL\tJOB\tKIND")
	for _, g := range st.Gpus {
		mem := "-"
		if g.VramTotalBytes > 0 {
			mem = config.Size(g.VramFreeBytes).Human() + " / " + config.Size(g.VramTotalBytes).Human()
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", g.Ordinal, dash(g.Name), mem, dash(g.CurrentJobId), dash(g.CurrentProofKind))
	}
	if len(st.Gpus) == 0 {
		fmt.Fprintln(tw, "(none)")
	}
	fmt.Fprintln(tw, "\nPARAMETERS\tTIER\tSIZE\tIN USE")
	for _, s := range st.LoadedSrs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", s.CircuitId, s.Tier, config.Size(s.SizeBytes).Human(), s.RefCount)
	}
	if len(st.LoadedSrs) == 0 {
		fmt.Fprintln(tw, "(none loaded)")
	}
	fmt.Fprintln(tw, "\nQUEUE\tPENDING\tIN PROGRESS")
	for _, q := range st.Queues {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", q.ProofKind, q.Pending, q.InProgress)
	}
	if len(st.Queues) == 0 {
		fmt.Fprintln(tw, "(empty)")
	}
	return tw.Flush()
}

func dash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}
