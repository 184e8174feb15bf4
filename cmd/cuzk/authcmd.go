package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cuzk-project/cuzk/auth"
)

// `cuzk auth`: the secret API tokens are signed with, and the tokens.

func newAuthCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Create the daemon's token secret and its API tokens (read < write < admin)",
		Long: `The daemon's TCP listener, started with --auth-secret FILE (daemon.auth.secret_file),
wants "authorization: Bearer <token>" on every call; the unix socket wants none.
A token allows its permission and the weaker ones:
  read   GetStatus, GetMetrics, AwaitProof
  write  SubmitProof, Prove, CancelProof
  admin  PreloadSRS, EvictSRS
Clients take it with --token or CUZK_API_INFO=TOKEN:ADDR.`,
	}
	cmd.AddCommand(newAuthInitCmd(), newAuthCreateTokenCmd())
	return cmd
}

func newAuthInitCmd() *cobra.Command {
	var secret string
	cmd := &cobra.Command{
		Use:   "init --secret FILE",
		Short: "Write a new random secret to FILE (mode 0600; never overwrites)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if secret == "" {
				return errors.New("--secret FILE is required")
			}
			if _, err := auth.Init(secret); err != nil {
				return err
			}
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "wrote a new secret to %s (mode 0600); start the daemon with --auth-secret %s\n", secret, secret)
			return err
		},
	}
	cmd.Flags().StringVar(&secret, "secret", "", "secret file to create")
	return cmd
}

func newAuthCreateTokenCmd() *cobra.Command {
	var secret, perm string
	cmd := &cobra.Command{
		Use:   "create-token --secret FILE --perm read|write|admin",
		Short: "Print a token of a permission signed with the secret in FILE",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if secret == "" {
				return errors.New("--secret FILE is required")
			}
			p, err := auth.ParsePermission(perm)
			if err != nil {
				return err
			}
			s, err := auth.ReadSecret(secret)
			if err != nil {
				return err
			}
			tok, err := auth.NewToken(s, p)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), tok)
			return err
		},
	}
	cmd.Flags().StringVar(&secret, "secret", "", "secret file (cuzk auth init)")
	cmd.Flags().StringVar(&perm, "perm", "", "read, write or admin")
	return cmd
}
