package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/backendsim"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
)

// The conformance kit's namespace, admitted by one environment per backend of its own.
const (
	conformanceNamespace = "conformance"
	// conformanceRunLabel is the label the kit puts on what it creates.
	conformanceRunLabel = backendsim.ConformanceRunLabel
)

// conformanceBackend is one backend the kit is run against.
type conformanceBackend struct {
	backend     string // as backendsim and the environments name it
	example     string // the example environment it is made from
	environment string
	// catalog replaces the example's offered minors where it is set.
	catalog []any
	// nodes is what node-zones reports about the workload's nodes.
	nodes string
}

var conformanceBackends = []conformanceBackend{
	{backend: backendsim.BackendGardener, example: "gardener-regionone.yaml", environment: "gardener-conformance",
		catalog: []any{"1.33", "1.34"}, nodes: "2 nodes, each labelled topology.kubernetes.io/zone, in zones az1, az2"},
	{backend: backendsim.BackendClusterStack, example: "clusterstack-regionone.yaml", environment: "clusterstack-conformance",
		nodes: "2 nodes, each labelled topology.kubernetes.io/zone, in zones az1, az2"},
	{backend: backendsim.BackendMagnum, example: "magnum-regionone.yaml", environment: "magnum-conformance",
		nodes: "1 node, labelled topology.kubernetes.io/zone, in zone nova"},
}

// TestConformance runs `kubectl scs conformance` as built from clients/kubectl-scs, with a
// team's kubeconfig (a ServiceAccount token that may use SCSClusters and read Secrets in its
// namespace, nothing else), against each backend, whose controllers package backendsim
// plays for the kit's clusters (as make demo's playground does).
//
// A local kube-apiserver stands in for every cluster the kit creates: one with Nodes in
// az1 and az2 for Gardener and Cluster Stacks, one with a Node in nova for Magnum. The
// kubeconfigs the backends deliver reach them (gardener-apiserver's shoots/adminkubeconfig,
// the KubeadmControlPlane's kubeconfig Secret, provider-openstack's connection secret), so
// the kit's kubeconfig and version checks talk to a real API server. It is the locally built
// Kubernetes 1.34; the kit tests 1.34 (--minors) and upgrades a cluster from 1.33. The
// stand-ins run no kubelet: their Nodes are objects labelled as kubelets label themselves.
func TestConformance(t *testing.T) {
	if env == nil {
		t.Skip("set SCS_KAAS_E2E=1 to run the end-to-end tests (make e2e; needs the pinned tools)")
	}
	if flavour == flavourMigration {
		t.Skip("the conformance kit runs on the legacy and namespaced flavours")
	}
	ctx := testContext(t)
	dir := t.TempDir()

	bin := filepath.Join(dir, "kubectl-scs")
	start := time.Now()
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	build.Dir = filepath.Join(repoRoot, "clients", "kubectl-scs")
	// Static, as released: kubectl-scs does not link with cgo (see the Makefile).
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building kubectl-scs: %v\n%s", err, out)
	}
	measure(t, "building kubectl-scs", start)

	start = time.Now()
	zoned, err := backendsim.StartWorkload(ctx, env, "conformance-workload-az", "az1", "az2")
	if err != nil {
		t.Fatal(err)
	}
	nova, err := backendsim.StartWorkload(ctx, env, "conformance-workload-nova", "nova")
	if err != nil {
		t.Fatal(err)
	}
	measure(t, "two workload API servers", start)
	for _, b := range conformanceBackends {
		conformanceEnvironmentConfig(ctx, t, b)
	}
	kubeconfig := teamKubeconfig(ctx, t, dir)
	assertTeamBoundary(ctx, t, kubeconfig)
	sim := &backendsim.Simulator{
		Crossplane: backendsim.Clients{Kube: cp.Client, Dynamic: cp.Dynamic},
		Garden:     backendsim.Clients{Kube: garden.Client, Dynamic: garden.Dynamic},
		Workloads: backendsim.Workloads{backendsim.BackendGardener: zoned, backendsim.BackendClusterStack: zoned,
			backendsim.BackendMagnum: nova},
		Selector: conformanceRunLabel,
		Logf:     logf,
	}
	simulate(t, sim)

	kit := func(ctx context.Context, environment, report string, extra ...string) *exec.Cmd {
		args := append([]string{"conformance", "--kubeconfig", kubeconfig, "-n", conformanceNamespace,
			"--environment", environment, "--minors", "1.34", "--machine-type", "SCS-2V-4",
			"--timeout", faultDeadline.String(), "--report", report}, extra...)
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = append(os.Environ(), "KUBECONFIG=/nonexistent")
		return cmd
	}

	for _, b := range conformanceBackends {
		t.Run(b.backend, func(t *testing.T) {
			if b.backend == backendsim.BackendClusterStack {
				needClusterStack(t)
			}
			report := filepath.Join(dir, b.backend+".yaml")
			cmd := kit(ctx, b.environment, report)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			err := cmd.Run()
			measure(t, "kubectl scs conformance, "+b.backend+" simulated, one minor and an upgrade", start)
			t.Logf("progress:\n%s", stderr.String())
			t.Logf("summary:\n%s", stdout.String())
			data, rerr := os.ReadFile(report)
			if rerr != nil {
				t.Fatalf("no report: %v", rerr)
			}
			t.Logf("report:\n%s", data)
			if err != nil {
				t.Fatalf("kubectl scs conformance: %v", err)
			}
			assertNoKubeconfig(t, stdout.String()+stderr.String()+string(data))
			assertReportPasses(t, data, b.environment)
			for _, want := range []string{
				"answers with v1.34.2",
				b.nodes,
				"upgraded from 1.33 to 1.34",
				"spec.kubernetes.version cannot be downgraded from 1.34 to 1.33",
			} {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("summary lacks %q", want)
				}
			}
			assertNoConformanceClusters(ctx, t)
		})
	}

	// An interrupt while the first cluster is being built: the kit deletes it before it exits.
	t.Run("interrupted", func(t *testing.T) {
		cmd := kit(ctx, conformanceBackends[0].environment, filepath.Join(dir, "interrupted.yaml"))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		waitFor(ctx, t, deadline, "the kit's first SCSCluster", func(ctx context.Context) (bool, error) {
			list, err := claimsIn(conformanceNamespace).List(ctx, metav1.ListOptions{LabelSelector: conformanceRunLabel})
			if err != nil {
				return false, err
			}
			return len(list.Items) > 0, errors.New("none yet")
		})
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		var err error
		select {
		case err = <-done:
		case <-time.After(faultDeadline):
			t.Fatalf("the kit did not exit within %s of SIGINT:\n%s", faultDeadline, stderr.String())
		}
		t.Logf("summary:\n%s", stdout.String())
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Errorf("interrupted kit: %v, want exit code 1\n%s", err, stderr.String())
		}
		for _, want := range []string{"FAILED  create-ready-1.34", "interrupted", "SKIPPED upgrade-minor", "PASSED  delete-cleanup"} {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("the interrupted run's summary lacks %q:\n%s", want, stdout.String())
			}
		}
		assertNoConformanceClusters(ctx, t)
	})
}

// assertReportPasses checks the kit's report: one invocation for the environment, with
// every check passed.
func assertReportPasses(t *testing.T, data []byte, environment string) {
	t.Helper()
	var r struct {
		Subject string
		Run     struct {
			Invocations map[string]struct {
				RC      int            `json:"rc"`
				Results map[string]int `json:"results"`
			}
		}
	}
	if err := yaml.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if r.Subject != environment || len(r.Run.Invocations) != 1 {
		t.Fatalf("report: subject %q, %d invocations", r.Subject, len(r.Run.Invocations))
	}
	for _, inv := range r.Run.Invocations {
		want := []string{"environment-offers", "create-ready-1.34", "kubeconfig-version-1.34", "node-zones-1.34",
			"scale-pool", "upgrade-minor", "refused-change", "delete-cleanup"}
		for _, id := range want {
			if inv.Results[id] != 1 {
				t.Errorf("report: %s = %d, want 1 (passed)", id, inv.Results[id])
			}
		}
		if len(inv.Results) != len(want) || inv.RC != 0 {
			t.Errorf("report: rc %d, results %v", inv.RC, inv.Results)
		}
	}
}

// simulate runs the simulator until the test ends.
func simulate(t *testing.T, sim *backendsim.Simulator) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		sim.Run(ctx, time.Second)
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// conformanceEnvironmentConfig installs an example environment under another name, for the
// conformance namespace only.
func conformanceEnvironmentConfig(ctx context.Context, t *testing.T, b conformanceBackend) {
	t.Helper()
	objs, err := controlplane.ReadManifests(filepath.Join(repoRoot, "examples", "environments", b.example))
	if err != nil || len(objs) != 1 {
		t.Fatalf("reading the example environment: %v", err)
	}
	cfg := objs[0]
	cfg.SetName(b.environment)
	cfg.SetLabels(map[string]string{"kaas.scs.community/environment": b.environment})
	set := map[string]any{"access": map[string]any{"namespaces": []any{conformanceNamespace}}}
	if b.catalog != nil {
		set["catalog.kubernetesVersions"] = b.catalog
	}
	for path, v := range set {
		if err := unstructured.SetNestedField(cfg.Object, v, append([]string{"data"}, strings.Split(path, ".")...)...); err != nil {
			t.Fatal(err)
		}
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: conformanceNamespace}}
	if _, err := cp.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if err := cp.ApplyObjects(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Whatever a failed run left, then the environment.
		ctx, cancel := context.WithTimeout(context.Background(), faultDeadline)
		defer cancel()
		_ = claimsIn(conformanceNamespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: conformanceRunLabel})
		_ = controlplane.WaitFor(ctx, faultDeadline, "the kit's clusters gone", func(ctx context.Context) (bool, error) {
			list, err := claimsIn(conformanceNamespace).List(ctx, metav1.ListOptions{})
			return err == nil && len(list.Items) == 0, err
		})
		_ = cp.Dynamic.Resource(envGVR).Delete(ctx, b.environment, metav1.DeleteOptions{})
	})
}

// teamKubeconfig is what a provider's customer has: a token of a ServiceAccount that may use
// SCSClusters and read Secrets in its namespace, and nothing else (not EnvironmentConfigs).
func teamKubeconfig(ctx context.Context, t *testing.T, dir string) string {
	t.Helper()
	const sa = "conformance-kit"
	kube := cp.Client
	if _, err := kube.CoreV1().ServiceAccounts(conformanceNamespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	// The role the project ships for teams, as a platform team binds it.
	data, err := os.ReadFile(filepath.Join(repoRoot, "package", "team-rbac.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.ClusterRole{}
	if err := yaml.UnmarshalStrict(data, role); err != nil {
		t.Fatalf("package/team-rbac.yaml: %v", err)
	}
	if _, err := kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: sa},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa, Namespace: conformanceNamespace}}}
	if _, err := kube.RbacV1().RoleBindings(conformanceNamespace).Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	seconds := int64(3600)
	tok, err := kube.CoreV1().ServiceAccounts(conformanceNamespace).CreateToken(ctx, sa,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a token for the team: %v", err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["provider"] = &clientcmdapi.Cluster{Server: cp.URL, CertificateAuthorityData: cp.Config.CAData}
	cfg.AuthInfos["team"] = &clientcmdapi.AuthInfo{Token: tok.Status.Token}
	cfg.Contexts["team"] = &clientcmdapi.Context{Cluster: "provider", AuthInfo: "team", Namespace: conformanceNamespace}
	cfg.CurrentContext = "team"
	path := filepath.Join(dir, "team.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// assertTeamBoundary asks the API server, as the team, what the shipped team role allows
// (docs/security.md): its SCSClusters and its Secrets, but not their status, which the
// function trusts for names and placement, nor the managed resources of its namespace,
// nor EnvironmentConfigs.
func assertTeamBoundary(ctx context.Context, t *testing.T, kubeconfig string) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	team, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		group, resource, subresource, verb string
		allowed                            bool
	}{
		{"kaas.scs.community", "scsclusters", "", "create", true},
		{"", "secrets", "", "get", true},
		{"kaas.scs.community", "scsclusters", "status", "patch", false},
		{"kaas.scs.community", "scsclusters", "status", "update", false},
		{"kubernetes.m.crossplane.io", "objects", "", "create", false},
		{"containerinfra.openstack.m.crossplane.io", "clusterv1s", "", "create", false},
		{"gardener.m.kaas.scs.community", "adminkubeconfigs", "", "create", false},
		{"apiextensions.crossplane.io", "environmentconfigs", "", "list", false},
		{"", "secrets", "", "list", false},
	} {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: conformanceNamespace, Verb: c.verb,
				Group: c.group, Resource: c.resource, Subresource: c.subresource}}}
		got, err := team.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Status.Allowed != c.allowed {
			t.Errorf("the team may %s %s.%s/%s: %v, want %v (package/team-rbac.yaml)", c.verb, c.resource, c.group, c.subresource, got.Status.Allowed, c.allowed)
		}
	}
}

// assertNoConformanceClusters: nothing the kit created is left.
func assertNoConformanceClusters(ctx context.Context, t *testing.T) {
	t.Helper()
	list, err := claimsIn(conformanceNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range list.Items {
		names = append(names, c.GetName())
	}
	if len(names) > 0 {
		t.Errorf("SCSClusters left in %s after the kit exited: %v", conformanceNamespace, names)
	}
}

// assertNoKubeconfig: what the kit printed and reported holds no credential of the clusters'
// kubeconfigs (their client certificates are PEM blocks, base64 in a kubeconfig).
func assertNoKubeconfig(t *testing.T, out string) {
	t.Helper()
	for _, marker := range []string{"client-certificate-data", "client-key-data", "BEGIN", "LS0tLS1CRUdJTi"} {
		if strings.Contains(out, marker) {
			t.Errorf("the kit's output holds %q: a kubeconfig leaked", marker)
		}
	}
}
