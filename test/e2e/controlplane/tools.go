package controlplane

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Tools names the directories of the pinned programs (see hack/tools). An
// empty field is taken from the environment variable in its comment, or else
// built (or found in the cache) by hack/tools/build.sh of the repository.
type Tools struct {
	KubeDir               string // SCS_KAAS_TOOL_KUBERNETES: kube-apiserver, kube-controller-manager, kubectl
	EtcdDir               string // SCS_KAAS_TOOL_ETCD: etcd
	CrossplaneDir         string // SCS_KAAS_TOOL_CROSSPLANE: crossplane (core) and crds/
	ProviderKubernetesDir string // SCS_KAAS_TOOL_PROVIDER_KUBERNETES: provider-kubernetes and crds/
	// SCS_KAAS_TOOL_FUNCTION_GO_TEMPLATING: function-go-templating, which composes the
	// example platform API (examples/platform).
	FunctionGoTemplatingDir string
	// SCS_KAAS_TOOL_CLUSTER_API: Cluster API's three managers, crds/ and webhooks/.
	ClusterAPIDir string
	// SCS_KAAS_TOOL_CLUSTER_API_PROVIDER_OPENSTACK: the OpenStack provider's crds/.
	ClusterAPIOpenStackDir string
	// SCS_KAAS_TOOL_GARDENER_APISERVER: gardener-apiserver, Gardener's API server, which the
	// garden cluster aggregates.
	GardenerAPIServerDir string
	// SCS_KAAS_TOOL_CROSSPLANE_CLI: crossplane-cli, which pushes packages
	// (Options.Packages); resolved only for a control plane that installs through them.
	CrossplaneCLIDir string
	// SCS_KAAS_TOOL_COSIGN: cosign, which signs the packages (PackageInstall.Verify);
	// resolved only for a control plane that verifies them.
	CosignDir string
}

// Cosign is the path of the pinned cosign.
func (t Tools) Cosign() string { return filepath.Join(t.CosignDir, "cosign") }

// CrossplaneCLI is the path of the pinned crossplane CLI.
func (t Tools) CrossplaneCLI() string { return filepath.Join(t.CrossplaneCLIDir, "crossplane-cli") }

// FunctionGoTemplating is the path of function-go-templating.
func (t Tools) FunctionGoTemplating() string {
	return filepath.Join(t.FunctionGoTemplatingDir, "function-go-templating")
}

func (t Tools) kube(bin string) string { return filepath.Join(t.KubeDir, bin) }
func (t Tools) etcd() string           { return filepath.Join(t.EtcdDir, "etcd") }
func (t Tools) crossplane() string     { return filepath.Join(t.CrossplaneDir, "crossplane") }
func (t Tools) provider() string {
	return filepath.Join(t.ProviderKubernetesDir, "provider-kubernetes")
}
func (t Tools) gardenerAPIServer() string {
	return filepath.Join(t.GardenerAPIServerDir, "gardener-apiserver")
}

// Kubectl is the path of the pinned kubectl, for tests and how-tos.
func (t Tools) Kubectl() string { return t.kube("kubectl") }

// resolve fills empty directories, building missing tools. The first build
// on a machine takes a long time (kube-apiserver alone ~15 min on 2 cores);
// later ones are cache hits that cost milliseconds.
func (t Tools) resolve(ctx context.Context, repoRoot string, packages *PackageInstall, logf func(string, ...any)) (Tools, error) {
	type field struct {
		dir  *string
		tool string
		env  string
	}
	fields := []field{
		{&t.KubeDir, "kubernetes", "SCS_KAAS_TOOL_KUBERNETES"},
		{&t.EtcdDir, "etcd", "SCS_KAAS_TOOL_ETCD"},
		{&t.CrossplaneDir, "crossplane", "SCS_KAAS_TOOL_CROSSPLANE"},
		{&t.ProviderKubernetesDir, "provider-kubernetes", "SCS_KAAS_TOOL_PROVIDER_KUBERNETES"},
		{&t.FunctionGoTemplatingDir, "function-go-templating", "SCS_KAAS_TOOL_FUNCTION_GO_TEMPLATING"},
		{&t.ClusterAPIDir, "cluster-api", "SCS_KAAS_TOOL_CLUSTER_API"},
		{&t.ClusterAPIOpenStackDir, "cluster-api-provider-openstack", "SCS_KAAS_TOOL_CLUSTER_API_PROVIDER_OPENSTACK"},
		{&t.GardenerAPIServerDir, "gardener-apiserver", "SCS_KAAS_TOOL_GARDENER_APISERVER"},
	}
	if packages != nil {
		fields = append(fields, field{&t.CrossplaneCLIDir, "crossplane-cli", "SCS_KAAS_TOOL_CROSSPLANE_CLI"})
	}
	if packages != nil && packages.Verify {
		fields = append(fields, field{&t.CosignDir, "cosign", "SCS_KAAS_TOOL_COSIGN"})
	}
	for _, f := range fields {
		if *f.dir != "" {
			continue
		}
		var err error
		if *f.dir, err = toolDir(ctx, repoRoot, f.tool, f.env, logf); err != nil {
			return t, err
		}
	}
	need := []string{t.kube("kube-apiserver"), t.kube("kube-controller-manager"), t.etcd(), t.crossplane(), t.provider(), t.FunctionGoTemplating(),
		filepath.Join(t.ClusterAPIOpenStackDir, "crds"), t.gardenerAPIServer()}
	for _, c := range capiComponents {
		need = append(need, filepath.Join(t.ClusterAPIDir, c.binary))
	}
	if packages != nil {
		need = append(need, t.CrossplaneCLI())
	}
	if packages != nil && packages.Verify {
		need = append(need, t.Cosign())
	}
	for _, p := range need {
		if _, err := os.Stat(p); err != nil {
			return t, fmt.Errorf("tool missing: %w", err)
		}
	}
	return t, nil
}

// toolDir is the directory of the pinned tool: the one the environment variable env names
// (make exports them), or the one hack/tools/build.sh of repoRoot builds or finds cached.
func toolDir(ctx context.Context, repoRoot, tool, env string, logf func(string, ...any)) (string, error) {
	if dir := os.Getenv(env); dir != "" {
		return dir, nil
	}
	if repoRoot == "" {
		return "", fmt.Errorf("no directory for %s: set %s or Options.RepoRoot", tool, env)
	}
	logf("resolving %s with hack/tools/build.sh (the first build on a machine takes minutes)", tool)
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, filepath.Join(repoRoot, "hack", "tools", "build.sh"), tool)
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building %s: %w", tool, err)
	}
	return strings.TrimSpace(out.String()), nil
}

// FindRepoRoot walks up from dir to the directory holding hack/tools/build.sh.
func FindRepoRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "hack", "tools", "build.sh")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no hack/tools/build.sh above the working directory")
		}
		dir = parent
	}
}
