// Command registry is the local OCI registry of the control plane (test/e2e/controlplane):
// go-containerregistry's registry over TLS, its blobs on disk, its manifests in memory (a
// restart loses them: push again). Crossplane's package manager installs the project's
// packages from it as it would from ghcr.io or xpkg.crossplane.io, the way an air-gapped
// platform installs them from its own registry.
package main

import (
	"errors"
	"flag"
	"io"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
)

func main() {
	address := flag.String("address", "127.0.0.1:5000", "address to listen on")
	cert := flag.String("tls-cert", "", "PEM server certificate (required)")
	key := flag.String("tls-key", "", "PEM server key (required)")
	blobs := flag.String("blobs-dir", "", "directory for the blobs (required)")
	verbose := flag.Bool("v", false, "log every request")
	flag.Parse()
	if *cert == "" || *key == "" || *blobs == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := os.MkdirAll(*blobs, 0o755); err != nil {
		log.Fatal(err)
	}
	logger := log.New(io.Discard, "", 0)
	if *verbose {
		logger = log.New(os.Stderr, "registry: ", log.LstdFlags)
	}
	server := &http.Server{
		Addr:              *address,
		Handler:           registry.New(registry.Logger(logger), registry.WithBlobHandler(registry.NewDiskBlobHandler(*blobs))),
		ReadHeaderTimeout: 30 * time.Second,
	}
	log.Printf("serving an OCI registry at https://%s (blobs in %s)", *address, *blobs)
	if err := server.ListenAndServeTLS(*cert, *key); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}
