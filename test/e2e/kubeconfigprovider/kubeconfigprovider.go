// Package kubeconfigprovider adds the project's provider-gardener-kubeconfig to a running
// local control plane (package controlplane), so that Gardener clusters get their admin
// kubeconfig as they would in production.
//
// The provider runs for real, as a plain process against the Crossplane cluster, and calls
// the real shoots/adminkubeconfig subresource of the garden's gardener-apiserver, as a garden
// user that may do that and nothing else. The kubeconfigs reach the address and carry the CAs
// that gardenlet (here package gardensim) published for the Shoot.
package kubeconfigprovider

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"sigs.k8s.io/yaml"

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
	credentialSecret = "garden-adminkubeconfig-credentials"
	// GardenUser is the provider's user in the garden.
	GardenUser = "scs-kaas:provider-gardener-kubeconfig"
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

// Start builds the provider into the run directory, gives it a garden user that may create
// shoots/adminkubeconfig (a ClusterRole and its binding in the garden), a ProviderConfig
// with that user's kubeconfig, and starts it. The process belongs to env: env.Stop (or
// controlplane.StopRun) stops it.
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
	opts.Logf("built %s (%.1fs)", ProviderProcess, time.Since(t).Seconds())

	kubeconfig, err := gardenUser(ctx, env.Garden, opts.RepoRoot)
	if err != nil {
		return err
	}
	if err := configure(ctx, env.Crossplane, opts.ProviderConfigName, kubeconfig); err != nil {
		return err
	}
	if err := startProvider(ctx, env, dir); err != nil {
		return err
	}
	opts.Logf("ready: %s (ProviderConfig %s) for the garden's shoots/adminkubeconfig", ProviderProcess, opts.ProviderConfigName)
	return nil
}

// build compiles the provider; warm, this takes seconds.
func build(ctx context.Context, repoRoot, dir string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(dir, "provider"), "./cmd/provider")
	cmd.Dir = filepath.Join(repoRoot, ModuleDir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building %s: %w\n%s", ModuleDir, err, out.String())
	}
	return nil
}

// GardenRBAC is the ClusterRole the project ships for the provider's garden identity,
// relative to the repository root: the e2e grants exactly that.
const GardenRBAC = ModuleDir + "/examples/garden-rbac.yaml"

// gardenUser grants GardenUser what the provider needs in the garden, the shipped
// ClusterRole (create shoots/adminkubeconfig; no read of Shoots or Secrets), and returns
// its kubeconfig.
func gardenUser(ctx context.Context, garden *controlplane.Cluster, repoRoot string) ([]byte, error) {
	data, err := os.ReadFile(filepath.Join(repoRoot, GardenRBAC))
	if err != nil {
		return nil, err
	}
	role := &rbacv1.ClusterRole{}
	if err := yaml.UnmarshalStrict(data, role); err != nil {
		return nil, fmt.Errorf("%s: %w", GardenRBAC, err)
	}
	name := role.Name
	if _, err := garden.Client.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: GardenUser}},
	}
	if _, err := garden.Client.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	return garden.UserKubeconfig(GardenUser)
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
	}, nil, 2*time.Minute, controlplane.HTTPOK(nil, readyz))
}
