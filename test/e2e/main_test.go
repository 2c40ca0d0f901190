// Package e2e tests the SCS cluster API on a live local control plane: real
// kube-apiservers, Crossplane core, provider-kubernetes, provider-gardener-kubeconfig, the
// composition function and Cluster API (core, kubeadm control plane and bootstrap managers
// with the SCS scs2 ClusterClass), started once for the whole package (see package
// controlplane). No Gardener controller runs, nor does the Cluster Stack operator, an
// OpenStack provider or a kubelet; tests named Test<Backend>Simulated_* write the status
// those would write.
//
// The tests run only with SCS_KAAS_E2E=1 (make e2e sets it): they need the pinned tools,
// whose first build takes half an hour.
package e2e

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/kubeconfigprovider"
)

const (
	// claimNamespace is where the tests' claims live, as in examples/claims.
	claimNamespace = "team1"
	// otherTeamNamespace is a second team the example environments admit; labNamespace
	// a namespace admitted by its labels (examples/environments/clusterstack-remote.yaml);
	// outsiderNamespace one that no environment admits.
	otherTeamNamespace = "team2"
	labNamespace       = "lab"
	outsiderNamespace  = "outsider"
	// gardenProject is the Gardener project of the example environment; Shoots live in
	// its namespace in the garden cluster.
	gardenProject   = "team1"
	gardenNamespace = "garden-" + gardenProject
	// exampleEnvironment is the EnvironmentConfig examples/environments installs.
	exampleEnvironment = "gardener-regionone"
	// managementClusterName is the remote Cluster API management cluster of the
	// clusterstack-remote environment, and its provider-kubernetes ProviderConfig.
	managementClusterName = "capi-mgmt"
)

// The one control plane all tests share; nil when the tests are skipped.
var (
	env      *controlplane.Env
	cp       *controlplane.Cluster // the Crossplane cluster, also a Cluster API management cluster
	garden   *controlplane.Cluster // the cluster playing Gardener's garden
	mgmt     *controlplane.Cluster // the remote Cluster API management cluster (legacy flavour)
	repoRoot string
	// runDir holds this run's logs and the binaries it built.
	runDir string
	// clusterStackErr says why the scs2 ClusterClass is not installed (needClusterStack).
	clusterStackErr error
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	if os.Getenv("SCS_KAAS_E2E") == "" {
		// Every test skips through needEnv.
		return m.Run()
	}
	// Crossplane's v1 XRD and its claims warn on every request; once is enough.
	rest.SetDefaultWarningHandler(rest.NewWarningWriter(os.Stderr, rest.WarningWriterOptions{Deduplicate: true}))

	flavour = e2eFlavour(os.Getenv("SCS_KAAS_E2E_FLAVOUR"))
	if flavour == "" {
		flavour = flavourLegacy
	}
	var err error
	if repoRoot, err = controlplane.FindRepoRoot("."); err != nil {
		return fail("finding the repository: %v", err)
	}
	runDir, err = makeRunDir()
	if err != nil {
		return fail("%v", err)
	}
	// Generous: the first run on a machine builds the missing tools.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Minute)
	defer cancel()

	fnBin, err := functionBinary(ctx, runDir)
	if err != nil {
		return fail("%v", err)
	}
	crds := controlplane.BackendCRDs(logf, repoRoot)
	// The remote management cluster serves the legacy flavour's remote environment.
	// The remote management cluster serves the legacy flavour's Cluster Stacks tests, and
	// the recovery's on both flavours.
	flag.Parse()
	management := ""
	if flavour == flavourLegacy || recoveryPass() {
		management = managementClusterName
	}
	// The project is installed as docs/install.md has a platform install it air-gapped:
	// its packages pushed to the control plane's registry, the mirror's ImageConfigs and the
	// flavour's Configuration (the migration starts from the legacy one); the package
	// manager installs the Function and the Providers. What a Configuration cannot carry,
	// the admission policy and Crossplane's RBAC, is applied beside it. Every package is
	// signed when pushed and Crossplane installs it only once its signature verifies
	// (examples/install/verification.yaml; TestPackageSignatureVerification).
	install, err := controlplane.ProjectInstall(repoRoot, flavour.configuration())
	if err != nil {
		return fail("%v", err)
	}
	install.Verify = true
	start := time.Now()
	env, err = controlplane.Start(ctx, controlplane.Options{
		RunDir:         runDir,
		RepoRoot:       repoRoot,
		FunctionBinary: fnBin,
		GardenProjects: []string{gardenProject},
		Packages:       install,
		Manifests: append([]string{
			filepath.Join(repoRoot, "examples", "environments"),
			filepath.Join(repoRoot, "package", "deletion-protection.yaml"),
			filepath.Join(repoRoot, "package", "rbac.yaml"),
		}, crds...),
		ClusterAPI:        true,
		ManagementCluster: management,
		Logf:              logf,
	})
	if err != nil {
		return fail("starting the control plane (logs in %s/logs): %v", runDir, err)
	}
	cp, garden, mgmt = env.Crossplane, env.Garden, env.Management

	code := func() int {
		if err := prepareCrossplane(ctx, true); err != nil {
			return fail("%v", err)
		}
		logf("MEASURE control plane start to ready: %.1fs", time.Since(start).Seconds())
		return m.Run()
	}()

	if code != 0 {
		dumpLogs(runDir)
	}
	if err := env.Stop(); err != nil {
		logf("stopping the control plane: %v", err)
		code = 1
	}
	if code == 0 && os.Getenv("SCS_KAAS_E2E_KEEP") == "" {
		_ = os.RemoveAll(runDir)
	} else {
		logf("run directory kept for inspection: %s", runDir)
	}
	return code
}

// prepareCrossplane makes the Crossplane cluster what every test expects beside what Start
// installs: provider-gardener-kubeconfig, the teams' namespaces and the scs2 Cluster Stack.
// It runs after Start and again after RebuildCrossplane (first false: the remote management
// cluster keeps its Cluster Stack).
func prepareCrossplane(ctx context.Context, first bool) error {
	// Gardener clusters get their kubeconfig from the project's own provider.
	if err := kubeconfigprovider.Start(ctx, env, kubeconfigprovider.Options{RepoRoot: repoRoot, Logf: logf}); err != nil {
		return fmt.Errorf("starting provider-gardener-kubeconfig: %w", err)
	}
	// The teams' namespaces (team1 and team2 are admitted by name to the example
	// environments, the lab by label to the remote Cluster Stacks one, the outsider to
	// none), and the Cluster Stacks environment's namespace for Clusters.
	for name, labels := range map[string]map[string]string{
		claimNamespace: nil, otherTeamNamespace: nil, outsiderNamespace: nil, clusterStackNamespace: nil,
		labNamespace: {"kaas.scs.community/clusterstack-remote": "true"},
	} {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
		if _, err := cp.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating namespace %s: %w", name, err)
		}
	}
	clusters := []*controlplane.Cluster{cp}
	if first {
		clusters = append(clusters, mgmt)
	}
	if err := installClusterStacks(ctx, clusters...); err != nil {
		if os.Getenv("CI") == "true" || !errors.Is(err, controlplane.ErrNoClusterStack) {
			return fmt.Errorf("installing the scs2 Cluster Stack: %w", err)
		}
		// A user's clone without ../shared and without a network: the Cluster Stacks
		// tests skip and say why; everything else runs.
		clusterStackErr = err
		logf("NOTE: %v; the Cluster Stacks tests skip in this run", err)
	}
	return nil
}

// installClusterStacks installs what the Cluster Stack operator would keep in each Cluster
// API management cluster for the examples' environments: the ClusterStackReleases of
// examples/render/clusterstack/required/releases.yaml with the status the operator writes,
// and the ClusterClass and templates of each release, rendered from the SCS scs2 chart.
func installClusterStacks(ctx context.Context, clusters ...*controlplane.Cluster) error {
	releases, err := controlplane.ReadManifests(filepath.Join(repoRoot, "examples", "render", "clusterstack", "required", "releases.yaml"))
	if err != nil {
		return err
	}
	var names []string
	for _, r := range releases {
		names = append(names, r.GetName())
	}
	chart, err := controlplane.SCS2Chart(ctx, repoRoot, logf)
	if err != nil {
		return err
	}
	for _, c := range clusters {
		if c == nil {
			continue
		}
		if c == mgmt {
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: clusterStackNamespace}}
			if _, err := c.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
				return err
			}
			if err := c.Apply(ctx, controlplane.BackendCRDs(nil, repoRoot)...); err != nil {
				return err
			}
		}
		if err := c.ApplyWithStatus(ctx, managerCSO, releases...); err != nil {
			return fmt.Errorf("the ClusterStackReleases in %s: %w", c.Name, err)
		}
		if err := controlplane.InstallClusterStack(ctx, c, chart, clusterStackNamespace, names...); err != nil {
			return fmt.Errorf("the ClusterClasses in %s: %w", c.Name, err)
		}
	}
	logf("installed the scs2 ClusterClasses %v from %s", names, chart)
	return nil
}

// needClusterStack skips a test that needs the scs2 ClusterClass where it could not be
// installed (only outside CI: there a missing ClusterClass fails the run).
func needClusterStack(t *testing.T) {
	t.Helper()
	if clusterStackErr != nil {
		t.Skipf("skipped: %v (../shared/upstream is missing and the pinned upstream could not be fetched)", clusterStackErr)
	}
}

// makeRunDir returns a fresh run directory: SCS_KAAS_E2E_RUN_DIR, or a new directory under
// _output/e2e so that CI can keep the logs of a failed run and parallel runs never share
// one (Start stops whatever an earlier run left in its directory).
func makeRunDir() (string, error) {
	if d := os.Getenv("SCS_KAAS_E2E_RUN_DIR"); d != "" {
		return filepath.Abs(d) // the binaries built into it run from other directories
	}
	parent := filepath.Join(repoRoot, "_output", "e2e")
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	return os.MkdirTemp(parent, "run-")
}

// functionBinary is SCS_KAAS_E2E_FUNCTION (make e2e builds it), or else built from the
// repository, so that `go test` alone works too.
func functionBinary(ctx context.Context, runDir string) (string, error) {
	if bin := os.Getenv("SCS_KAAS_E2E_FUNCTION"); bin != "" {
		return filepath.Abs(bin)
	}
	bin := filepath.Join(runDir, "function-scs-kaas")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./functions/function-scs-kaas")
	cmd.Dir = repoRoot
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building the function: %w", err)
	}
	return bin, nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05.000")}, args...)...)
}

func fail(format string, args ...any) int {
	logf("FAIL: "+format, args...)
	return 1
}

// needEnv skips a test when the control plane is not running.
func needEnv(t *testing.T) {
	t.Helper()
	needFlavour(t, flavourLegacy)
}

// needFlavour skips a test when there is no control plane, or when it serves another
// flavour of the API than the test is for: one cluster installs one flavour (both serve
// SCSCluster), so make e2e runs the package once per flavour (SCS_KAAS_E2E_FLAVOUR).
func needFlavour(t *testing.T, f e2eFlavour) {
	t.Helper()
	if env == nil {
		t.Skip("set SCS_KAAS_E2E=1 to run the end-to-end tests (make e2e; needs the pinned tools)")
	}
	if flavour != f {
		t.Skipf("a test of the %s flavour; this control plane serves the %s one (SCS_KAAS_E2E_FLAVOUR)", f, flavour)
	}
}

// e2eFlavour is what the control plane of a run serves.
type e2eFlavour string

const (
	// flavourLegacy: claims of cluster-scoped composites (apis/xrd/legacy).
	flavourLegacy e2eFlavour = "legacy"
	// flavourNamespaced: the Crossplane v2 namespaced composites (apis/xrd/namespaced).
	flavourNamespaced e2eFlavour = "namespaced"
	// flavourMigration starts legacy and moves to namespaced composites (docs/migration.md).
	flavourMigration e2eFlavour = "migration"
)

// configuration is the manifest of examples/install that installs the flavour's
// Configuration.
func (f e2eFlavour) configuration() string {
	if f == flavourNamespaced {
		return "configuration.yaml"
	}
	return "configuration-claims.yaml"
}

// flavour is the flavour of this run.
var flavour e2eFlavour

// dumpLogs prints the end of every process log after a failure, lines cut short: the
// provider logs whole objects per line.
func dumpLogs(runDir string) {
	logs, _ := filepath.Glob(filepath.Join(runDir, "logs", "*.log"))
	for _, l := range logs {
		data, err := os.ReadFile(l)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if len(lines) > 25 {
			lines = lines[len(lines)-25:]
		}
		for i, line := range lines {
			if len(line) > 400 {
				lines[i] = line[:400] + " ..."
			}
		}
		fmt.Fprintf(os.Stderr, "--- %s (last lines)\n    %s\n", filepath.Base(l), strings.Join(lines, "\n    "))
	}
}
