package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/cuzk-project/cuzk/groth16"
)

// setupOptions are the flags of `cuzk setup`.
type setupOptions struct {
	circuit   circuitFlags
	out       string
	setupSeed string
}

func newSetupCmd() *cobra.Command {
	o := &setupOptions{}
	cmd := &cobra.Command{
		Use:   "setup",
		Short: "Generate development parameters (.params and .vk) for a circuit; NOT for production",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.OutOrStdout())
		},
	}
	o.circuit.register(cmd)
	cmd.Flags().StringVar(&o.out, "out", "dev.params", "output .params path (the .vk goes beside it)")
	cmd.Flags().StringVar(&o.setupSeed, "setup-seed", "cuzk-dev", "seed of the toxic waste (dev only)")
	return cmd
}

func (o *setupOptions) run(w io.Writer) error {
	c, err := o.circuit.build()
	if err != nil {
		return err
	}
	start := time.Now()
	p, err := groth16.Setup(c, []byte(o.setupSeed))
	if err != nil {
		return err
	}
	if err := groth16.WriteParams(o.out, p); err != nil {
		return err
	}
	if err := groth16.WriteVerifyingKey(vkPath(o.out), &p.VK); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s and %s in %v (dev parameters: not for production)\n",
		o.out, vkPath(o.out), time.Since(start).Round(time.Millisecond))
	return nil
}
