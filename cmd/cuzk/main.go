// Command cuzk is the single binary of the project: the daemon, the
// in-process prover and verifier, the benchmark client and the operator
// commands. Each subcommand lives in its own file and registers itself
// with rootCmd in an init function.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

var rootCmd = &cobra.Command{
	Use:           "cuzk",
	Short:         "Persistent, pipelined Groth16 proving engine for Filecoin",
	SilenceUsage:  true,
	SilenceErrors: true,
}

// exitError carries a process exit code out of a subcommand.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

func main() {
	if err := rootCmd.Execute(); err != nil {
		if e, ok := err.(exitError); ok {
			os.Exit(e.code)
		}
		fmt.Fprintln(os.Stderr, "cuzk:", err)
		os.Exit(2)
	}
}
