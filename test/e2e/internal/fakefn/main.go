// Command fakefn is a tiny composition function that stands in for
// function-scs-kaas in the control plane's own smoke test: it composes one
// provider-kubernetes Object holding a ConfigMap for the garden cluster. It
// has the same flags and environment as a function-template-go function, so
// the control plane runs it exactly like the real one.
package main

import (
	"github.com/alecthomas/kong"
	"github.com/crossplane/function-sdk-go"
)

// cli mirrors the conventional flags of a Crossplane composition function.
type cli struct {
	Debug          bool   `help:"Emit debug logs." short:"d"`
	Network        string `default:"tcp" help:"Network on which to listen for gRPC connections."`
	Address        string `default:":9443" help:"Address at which to listen for gRPC connections."`
	TLSCertsDir    string `env:"TLS_SERVER_CERTS_DIR" help:"Directory with tls.crt, tls.key and the client CA ca.crt." name:"tls-server-certs-dir"`
	Insecure       bool   `help:"Serve without mTLS."`
	MetricsAddress string `default:":8080" help:"Address of the Prometheus metrics endpoint."`
}

func (c *cli) Run() error {
	log, err := function.NewLogger(c.Debug)
	if err != nil {
		return err
	}
	return function.Serve(&fn{log: log},
		function.Listen(c.Network, c.Address),
		function.MTLSCertificates(c.TLSCertsDir),
		function.Insecure(c.Insecure),
		function.WithMetricsServer(c.MetricsAddress))
}

func main() {
	ctx := kong.Parse(&cli{}, kong.Description("Stand-in composition function for the control plane smoke test."))
	ctx.FatalIfErrorf(ctx.Run())
}
