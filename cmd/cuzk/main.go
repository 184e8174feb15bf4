// Command cuzk is the single binary of the project: the daemon, the
// in-process prover and verifier, the benchmark client and the operator
// commands. Each subcommand lives in its own file as a constructor that
// returns its *cobra.Command with the flags bound to an options struct of
// its own; newRootCmd assembles them, so every run (main, or a test) gets
// fresh flag values.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// newRootCmd assembles the cuzk command tree.
func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "cuzk",
		Short:         "Persistent, pipelined Groth16 proving engine for Filecoin",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(
		newSetupCmd(),
		newProveCmd(),
		newVerifyCmd(),
		newAggregateCmd(),
		newGenVanillaCmd(),
		newCheckCmd(),
		newBenchCmd(),
		newDaemonCmd(),
		newStatusCmd(),
		newMetricsCmd(),
		newCancelCmd(),
		newPreloadCmd(),
		newEvictCmd(),
		newTimelineCmd(),
		newAuthCmd(),
		newClusterCmd(),
		newVersionCmd(),
	)
	return root
}

// exitError carries a process exit code out of a subcommand.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

func main() {
	if err := newRootCmd().Execute(); err != nil {
		if e, ok := err.(exitError); ok {
			os.Exit(e.code)
		}
		fmt.Fprintln(os.Stderr, "cuzk:", err)
		os.Exit(2)
	}
}
