package main

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"google.golang.org/grpc"

	"github.com/cuzk-project/cuzk/auth"
	"github.com/cuzk-project/cuzk/client"
)

// connFlags are how a client command reaches a daemon's TCP listener:
// a token (--token, else the token of $CUZK_API_INFO) and TLS.
type connFlags struct {
	token             string
	caFile            string
	certFile, keyFile string
}

func (f *connFlags) register(c *cobra.Command) { f.registerOn(c.Flags()) }

func (f *connFlags) registerOn(fl *pflag.FlagSet) {
	fl.StringVar(&f.token, "token", "", "API token for a daemon's TCP listener (default: the token of $"+auth.APIInfoEnv+"=TOKEN:ADDR)")
	fl.StringVar(&f.caFile, "cacert", "", "dial over TLS, trusting this PEM CA bundle")
	fl.StringVar(&f.certFile, "cert", "", "with --cacert: client certificate (mutual TLS)")
	fl.StringVar(&f.keyFile, "key", "", "with --cert: its key")
}

// token is --token, else the token of $CUZK_API_INFO.
func (f *connFlags) tokenOrEnv() string {
	if f.token != "" {
		return f.token
	}
	if tok, _, err := auth.ParseAPIInfo(os.Getenv(auth.APIInfoEnv)); err == nil {
		return tok
	}
	return ""
}

func (f *connFlags) dialOptions() ([]grpc.DialOption, error) {
	var opts []grpc.DialOption
	if tok := f.tokenOrEnv(); tok != "" {
		opts = append(opts, client.WithToken(tok))
	}
	if f.caFile == "" && f.certFile == "" {
		return append(opts, client.WithPlaintextCheck("give --cacert with the CA that signed its certificate")), nil
	}
	cfg, err := client.TLSConfig(f.caFile, f.certFile, f.keyFile)
	if err != nil {
		return nil, err
	}
	return append(opts, client.WithTLS(cfg)), nil
}
