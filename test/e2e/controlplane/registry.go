package controlplane

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Registry is the control plane's local OCI registry: the helper in test/e2e/cmd/registry,
// served over TLS with a certificate of its own CA, so that pushing to it and installing
// from it take the same path as with a public registry, and nothing is insecure by
// exception. Clients trust CAFile (crossplane-cli through SSL_CERT_FILE, Crossplane's package
// manager through its CA bundle).
type Registry struct {
	// Address is host:port, the prefix of the registry's image references.
	Address string
	// CAFile is the PEM CA of the registry's serving certificate.
	CAFile string
	// Client trusts the registry.
	Client *http.Client
}

// StartRegistry builds the registry helper from the e2e module and starts it as a process
// of the control plane, its blobs in the run directory.
func (e *Env) StartRegistry(ctx context.Context) (*Registry, error) {
	dir := filepath.Join(e.RunDir, "registry")
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, "bin", "registry")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/registry")
	build.Dir = filepath.Join(e.opts.RepoRoot, "test", "e2e")
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building the registry helper: %w\n%s", err, out)
	}
	ca, err := newCA("registry-ca")
	if err != nil {
		return nil, err
	}
	serving, err := ca.issue(certSpec{cn: "registry", server: true})
	if err != nil {
		return nil, err
	}
	tlsDir := filepath.Join(dir, "tls")
	if err := writeTLSDir(tlsDir, ca, serving); err != nil {
		return nil, err
	}
	ports, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	r := &Registry{Address: "127.0.0.1:" + strconv.Itoa(ports[0]), CAFile: filepath.Join(tlsDir, "ca.crt")}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca.certPEM)
	r.Client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	p, err := e.startProcess("registry", bin, []string{
		"--address=" + r.Address,
		"--tls-cert=" + filepath.Join(tlsDir, "tls.crt"),
		"--tls-key=" + filepath.Join(tlsDir, "tls.key"),
		"--blobs-dir=" + filepath.Join(dir, "blobs"),
	}, nil)
	if err != nil {
		return nil, err
	}
	// The registry API's base endpoint answers 200 once it serves.
	if err := waitFor(ctx, 60*time.Second, "registry /v2/", p.exited, HTTPOK(r.Client, "https://"+r.Address+"/v2/")); err != nil {
		return nil, err
	}
	return r, nil
}

// pushAttempts and pushTimeout bound one push: a push takes 2-3 s here, but once one hung
// for 18 minutes with the registry waiting for the rest of a blob that crossplane-cli never
// sent over HTTP/2, until the test binary's own deadline. A push is idempotent: try again.
const (
	pushAttempts = 3
	pushTimeout  = 2 * time.Minute
)

// Push pushes the package file to repository:tag of the registry with crossplane-cli's
// `xpkg push`, trusting the registry's CA, and returns the full reference.
func (r *Registry) Push(ctx context.Context, crossplaneCLI, file, repository, tag string) (string, error) {
	ref := r.Address + "/" + repository + ":" + tag
	var errs []error
	for range pushAttempts {
		attempt, cancel := context.WithTimeout(ctx, pushTimeout)
		cmd := exec.CommandContext(attempt, crossplaneCLI, "xpkg", "push", "-f", file, ref)
		cmd.Env = append(os.Environ(), "SSL_CERT_FILE="+r.CAFile)
		out, err := cmd.CombinedOutput()
		cancel()
		if err == nil {
			return ref, nil
		}
		errs = append(errs, fmt.Errorf("crossplane xpkg push %s: %w\n%s", ref, err, out))
		if ctx.Err() != nil {
			break
		}
	}
	return "", errors.Join(errs...)
}

// Digest returns the digest of the manifest repository:tag points at, as a package manager
// resolves a tag before it fetches (sha256:...).
func (r *Registry) Digest(ctx context.Context, repository, tag string) (string, error) {
	ref, err := name.NewTag(r.Address + "/" + repository + ":" + tag)
	if err != nil {
		return "", err
	}
	desc, err := remote.Head(ref, r.RemoteOptions(ctx)...)
	if err != nil {
		return "", err
	}
	return desc.Digest.String(), nil
}

// RemoteOptions are go-containerregistry's options to reach the registry, trusting its CA.
func (r *Registry) RemoteOptions(ctx context.Context) []remote.Option {
	return []remote.Option{remote.WithTransport(r.Client.Transport), remote.WithContext(ctx)}
}
