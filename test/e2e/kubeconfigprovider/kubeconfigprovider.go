// Package kubeconfigprovider adds the project's provider-gardener-kubeconfig to a running
// local control plane (package controlplane), so that Gardener clusters get their admin
// kubeconfig as they would in production.
//
// The provider runs for real, as a plain process against the Crossplane cluster. What it
// calls, gardener-apiserver's shoots/adminkubeconfig subresource, cannot exist in the local
// garden (a CRD cannot serve custom subresources): the provider's fake-garden-auth stands in
// for it, looking Shoots up in the local garden cluster and delegating authentication and
// authorization to it. The kubeconfigs it issues are signed by a made-up CA and work
// nowhere, since no cluster runs behind a Shoot here.
package kubeconfigprovider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
)

// ModuleDir is the provider's Go module, relative to the repository root.
const ModuleDir = "providers/provider-gardener-kubeconfig"

// CRDDir holds the provider's CRDs, relative to the repository root. Install them with the
// control plane's manifests, before Crossplane composes AdminKubeconfigs (and before
// kube-controller-manager starts, so that its garbage collector knows the kinds).
const CRDDir = ModuleDir + "/package/crds"

// Process names in the control plane's run directory.
const (
	ProviderProcess  = "provider-gardener-kubeconfig"
	FakeAuthProcess  = "fake-garden-auth"
	credentialSecret = "garden-adminkubeconfig-credentials"
)

// Options configure Start.
type Options struct {
	// RepoRoot is the scs-kaas checkout the binaries are built from.
	RepoRoot string
	// ProviderConfigName is the provider's ProviderConfig; the function points
	// AdminKubeconfigs at the environment's gardener.gardenCluster. Default: "garden".
	ProviderConfigName string
	// Logf receives progress messages. Default: discard.
	Logf func(format string, args ...any)
}

// Start builds the provider and fake-garden-auth into the run directory, starts
// fake-garden-auth for the garden cluster, gives the provider a ProviderConfig whose
// credentials reach the garden through it, and starts the provider. The processes belong
// to env: env.Stop (or controlplane.StopRun) stops them.
func Start(ctx context.Context, env *controlplane.Env, opts Options) error {
	if opts.ProviderConfigName == "" {
		opts.ProviderConfigName = "garden"
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	dir := filepath.Join(env.RunDir, ProviderProcess)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	t := time.Now()
	if err := build(ctx, opts.RepoRoot, dir); err != nil {
		return err
	}
	opts.Logf("built %s and %s (%.1fs)", ProviderProcess, FakeAuthProcess, time.Since(t).Seconds())

	kubeconfig, err := startFakeAuth(ctx, env, dir)
	if err != nil {
		return err
	}
	if err := configure(ctx, env.Crossplane, opts.ProviderConfigName, kubeconfig); err != nil {
		return err
	}
	if err := startProvider(ctx, env, dir); err != nil {
		return err
	}
	opts.Logf("ready: %s (ProviderConfig %s) with %s for the garden", ProviderProcess, opts.ProviderConfigName, FakeAuthProcess)
	return nil
}

// build compiles both commands; warm, this takes seconds.
func build(ctx context.Context, repoRoot, dir string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", dir+string(filepath.Separator), "./cmd/provider", "./cmd/fake-garden-auth")
	cmd.Dir = filepath.Join(repoRoot, ModuleDir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building %s: %w\n%s", ModuleDir, err, out.String())
	}
	return nil
}

// startFakeAuth runs fake-garden-auth against the garden cluster and returns the kubeconfig
// it wrote for the provider: the garden's admin user, aimed at fake-garden-auth.
func startFakeAuth(ctx context.Context, env *controlplane.Env, dir string) ([]byte, error) {
	// The garden's CA signed its admin client certificate; fake-garden-auth verifies client
	// certificates against it like an aggregated API server would.
	cfg, err := clientcmd.LoadFromFile(env.Garden.Kubeconfig)
	if err != nil {
		return nil, err
	}
	kctx := cfg.Contexts[cfg.CurrentContext]
	if kctx == nil || cfg.Clusters[kctx.Cluster] == nil {
		return nil, fmt.Errorf("%s has no current cluster", env.Garden.Kubeconfig)
	}
	clientCA := filepath.Join(dir, "garden-client-ca.crt")
	if err := os.WriteFile(clientCA, cfg.Clusters[kctx.Cluster].CertificateAuthorityData, 0o644); err != nil {
		return nil, err
	}
	ports, err := controlplane.FreePorts(1)
	if err != nil {
		return nil, err
	}
	addressFile := filepath.Join(dir, "fake-garden-auth.address")
	providerKubeconfig := filepath.Join(dir, "provider-garden.kubeconfig")
	for _, f := range []string{addressFile, providerKubeconfig} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	err = env.StartProcess(ctx, FakeAuthProcess, filepath.Join(dir, "fake-garden-auth"), []string{
		"--garden-kubeconfig=" + env.Garden.Kubeconfig,
		"--listen=127.0.0.1:" + strconv.Itoa(ports[0]),
		"--client-ca-file=" + clientCA,
		"--address-file=" + addressFile,
		"--write-provider-kubeconfig=" + providerKubeconfig,
	}, nil, time.Minute, func(context.Context) (bool, error) {
		// Written once it listens, after the provider kubeconfig.
		_, err := os.Stat(addressFile)
		return err == nil, err
	})
	if err != nil {
		return nil, err
	}
	return os.ReadFile(providerKubeconfig)
}

// configure stores the kubeconfig in a Secret and points the provider's ProviderConfig and
// ClusterProviderConfig at it.
func configure(ctx context.Context, c *controlplane.Cluster, name string, kubeconfig []byte) error {
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: credentialSecret, Namespace: controlplane.CrossplaneNamespace},
		Data:       map[string][]byte{"kubeconfig": kubeconfig},
	}
	secrets := c.Client.CoreV1().Secrets(controlplane.CrossplaneNamespace)
	if _, err := secrets.Create(ctx, secret, metav1.CreateOptions{}); apierrors.IsAlreadyExists(err) {
		if _, err := secrets.Update(ctx, secret, metav1.UpdateOptions{}); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	// One garden credential, two shapes: the legacy cluster-scoped ProviderConfig and the
	// ClusterProviderConfig that namespaced AdminKubeconfigs of v2 composites name.
	providerConfig := func(apiVersion, kind string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": apiVersion,
			"kind":       kind,
			"metadata":   map[string]any{"name": name},
			"spec": map[string]any{"credentials": map[string]any{
				"source": "Secret",
				"secretRef": map[string]any{
					"namespace": controlplane.CrossplaneNamespace, "name": credentialSecret, "key": "kubeconfig",
				},
			}},
		}}
	}
	return c.ApplyObjects(ctx,
		providerConfig("gardener.kaas.scs.community/v1alpha1", "ProviderConfig"),
		providerConfig("gardener.m.kaas.scs.community/v1alpha1", "ClusterProviderConfig"))
}

// startProvider runs the provider against the Crossplane cluster, without leader election
// (one process) and without metrics, and waits for /readyz.
func startProvider(ctx context.Context, env *controlplane.Env, dir string) error {
	ports, err := controlplane.FreePorts(1)
	if err != nil {
		return err
	}
	readyz := "http://127.0.0.1:" + strconv.Itoa(ports[0]) + "/readyz"
	return env.StartProcess(ctx, ProviderProcess, filepath.Join(dir, "provider"), []string{
		"--kubeconfig=" + env.Crossplane.Kubeconfig,
		"--debug",
		"--metrics-bind-address=0",
		"--health-probe-bind-addr=127.0.0.1:" + strconv.Itoa(ports[0]),
	}, nil, 2*time.Minute, func(ctx context.Context) (bool, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, readyz, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false, err
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, fmt.Errorf("readyz: %s", resp.Status)
	})
}
