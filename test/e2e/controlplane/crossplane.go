package controlplane

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CrossplaneNamespace is where Crossplane keeps its secrets and where the
// provider-kubernetes credentials live.
const CrossplaneNamespace = "crossplane-system"

// initCrossplane runs `crossplane core init`: it installs the core CRDs from
// the module's cluster/crds, the TLS secrets and the package Lock. Until the
// CRDs are established it fails with `no matches for kind "Lock"`; it is
// idempotent, so it is simply run again.
func (e *Env) initCrossplane(ctx context.Context) error {
	c := e.Crossplane
	_, err := c.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: CrossplaneNamespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	logPath := filepath.Join(e.RunDir, "logs", "crossplane-init.log")
	attempt := 0
	return waitFor(ctx, 120*time.Second, "crossplane core init", nil, func(ctx context.Context) (bool, error) {
		attempt++
		log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return false, Permanent(err)
		}
		defer log.Close()
		fmt.Fprintf(log, "=== attempt %d\n", attempt)
		args := []string{"core", "init", "--namespace=" + CrossplaneNamespace, "--enable-webhooks=false"}
		if e.opts.Packages != nil {
			// provider-kubernetes declares SafeStart: its CRDs come as ManagedResourceDefinitions
			// that a policy must activate, as the Helm chart's default activations do.
			args = append(args, "--activation=*")
		}
		cmd := exec.CommandContext(ctx, e.tools.crossplane(), args...)
		// Kong mangles these flag names; the environment variables are stable.
		cmd.Env = append(os.Environ(),
			"KUBECONFIG="+c.Kubeconfig,
			"CRDS_PATH="+filepath.Join(e.tools.CrossplaneDir, "crds"),
			"TLS_CA_SECRET_NAME=crossplane-root-ca",
			"TLS_CLIENT_SECRET_NAME=crossplane-tls-client",
		)
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Run(); err != nil {
			return false, fmt.Errorf("crossplane core init: %w (see %s)", err, logPath)
		}
		return true, nil
	})
}

// startCrossplane runs Crossplane core with the External package runtime
// (no Deployments for packages, function endpoints left as we set them) and
// webhooks off (no Service to reach them through).
func (e *Env) startCrossplane(ctx context.Context) error {
	ports, err := freePorts(2)
	if err != nil {
		return err
	}
	dir := filepath.Join(e.RunDir, "crossplane")
	for _, d := range []string{"xpkg-cache", "xfn-cache"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	e.crossplaneHealth = ports[1]
	args := []string{
		"core", "start",
		"--namespace=" + CrossplaneNamespace,
		"--poll-interval=" + e.opts.PollInterval.String(),
		"--sync-interval=1h",
	}
	env := []string{
		"KUBECONFIG=" + e.Crossplane.Kubeconfig,
		"TLS_CLIENT_CERTS_DIR=" + e.crossplaneTLSDir(),
		"PACKAGE_RUNTIME=External",
		"ENABLE_WEBHOOKS=false",
		"METRICS_PORT=" + strconv.Itoa(ports[0]),
		"HEALTH_PROBE_PORT=" + strconv.Itoa(ports[1]),
		"XPKG_CACHE_DIR=" + filepath.Join(dir, "xpkg-cache"),
		"XFN_CACHE_DIR=" + filepath.Join(dir, "xfn-cache"),
	}
	if e.registry != nil {
		// The package fetcher trusts the registry's CA besides the system roots.
		env = append(env, "CA_BUNDLE_PATH="+e.registry.CAFile)
	}
	if e.signing != nil {
		// Verification reads its trust at start from the TUF root under the package cache
		// (Crossplane sets TUF_ROOT there itself), which sigstore's CDN fills unless it holds
		// a fresh root: ours. It reaches the registry through cosign's own client, which
		// knows only the system roots: SSL_CERT_FILE makes the registry's CA those (nothing
		// else Crossplane reaches relies on them).
		if err := e.signing.InitializeTUFRoot(ctx, filepath.Join(dir, "xpkg-cache", ".sigstore", "root")); err != nil {
			return err
		}
		args = append(args, "--enable-signature-verification")
		env = append(env, "SSL_CERT_FILE="+e.registry.CAFile)
	}
	p, err := e.startProcess("crossplane", e.tools.crossplane(), args, env)
	if err != nil {
		return err
	}
	url := "http://127.0.0.1:" + strconv.Itoa(ports[1]) + "/readyz"
	return waitFor(ctx, 120*time.Second, "crossplane /readyz", p.exited, HTTPOK(nil, url))
}

func (e *Env) crossplaneTLSDir() string { return filepath.Join(e.RunDir, "crossplane", "tls-client") }
