// Command function-scs-kaas is the composition function of the SCS cluster API, a thin
// adapter around package model.
package main

import (
	"os"
	"runtime/debug"
	_ "time/tzdata" // hibernation schedules name IANA time zones; the runtime image has no zoneinfo

	"github.com/alecthomas/kong"

	"github.com/crossplane/function-sdk-go"
)

// CLI holds the conventional flags of a Crossplane composition function.
type CLI struct {
	Debug bool `help:"Emit debug logs in addition to info logs." short:"d"`

	Network            string `default:"tcp"                                                                                      help:"Network on which to listen for gRPC connections."`
	Address            string `default:":9443"                                                                                    help:"Address at which to listen for gRPC connections."`
	TLSServerCertsDir  string `env:"TLS_SERVER_CERTS_DIR"                                                                         help:"Directory containing server certs (tls.key, tls.crt) and the CA used to verify client certificates (ca.crt)."`
	Insecure           bool   `help:"Run without mTLS credentials. If you supply this flag --tls-server-certs-dir will be ignored."`
	MaxRecvMessageSize int    `default:"4"                                                                                        help:"Maximum size of received messages in MB."`
	MetricsAddress     string `default:":8080"                                                                                    help:"Address of the Prometheus metrics endpoint; empty turns it off."`
}

// Run serves the function until it fails.
func (c *CLI) Run() error {
	log, err := function.NewLogger(c.Debug)
	if err != nil {
		return err
	}
	setGCPercent(os.LookupEnv)
	f := NewFunction(log)
	return function.Serve(f,
		function.Listen(c.Network, c.Address),
		function.MTLSCertificates(c.TLSServerCertsDir),
		function.Insecure(c.Insecure),
		function.MaxRecvMessageSize(c.MaxRecvMessageSize*1024*1024),
		function.WithMetricsServer(c.MetricsAddress),
		function.WithMetricsRegistry(f.metrics.registry))
}

// gcPercent trades a few MiB of peak memory for less CPU per call: the live heap is small
// next to what a call allocates (docs/performance.md#what-bounds-it).
const gcPercent = 200

// setGCPercent sets gcPercent unless GOGC is set: an operator's choice wins.
func setGCPercent(lookupEnv func(string) (string, bool)) {
	if _, set := lookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
}

func main() {
	ctx := kong.Parse(&CLI{}, kong.Description("The SCS cluster API composition function."))
	ctx.FatalIfErrorf(ctx.Run())
}
