package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gardensim"
)

// The conformance kit's environment: Gardener, simulated, admitting one namespace of its own.
const (
	conformanceNamespace   = "conformance"
	conformanceEnvironment = "gardener-conformance"
	// conformanceRunLabel is the label the kit puts on what it creates.
	conformanceRunLabel = "kaas.scs.community/conformance-run"
)

// TestConformance runs `kubectl scs conformance` as built from clients/kubectl-scs, with a
// team's kubeconfig (a ServiceAccount token that may use SCSClusters and read Secrets in its
// namespace, nothing else), against the Gardener backend with simulated status.
//
// One local kube-apiserver stands in for every cluster the kit creates: the simulated
// gardenlet advertises its URL for each Shoot and publishes its CA and a client CA it trusts,
// so the admin kubeconfigs the garden's gardener-apiserver issues reach it, and the kit's
// kubeconfig and version checks talk to a real API server.
// That API server is the locally built Kubernetes 1.34; the environment offers 1.33 and 1.34,
// and the kit tests 1.34 (--minors) and upgrades a cluster from 1.33 to 1.34. The stand-in
// has no kubelet: the test creates two Nodes labelled as kubelets in az1 and az2 label
// themselves.
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
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building kubectl-scs: %v\n%s", err, out)
	}
	measure(t, "building kubectl-scs", start)

	workload := conformanceWorkload(ctx, t)
	conformanceEnvironmentConfig(ctx, t)
	kubeconfig := teamKubeconfig(ctx, t, dir)
	stop := simulateGardenerIn(t, conformanceNamespace, gardensim.WithCluster(workload))
	defer stop()

	kit := func(ctx context.Context, report string, extra ...string) *exec.Cmd {
		args := append([]string{"conformance", "--kubeconfig", kubeconfig, "-n", conformanceNamespace,
			"--environment", conformanceEnvironment, "--minors", "1.34", "--machine-type", "SCS-2V-4",
			"--timeout", faultDeadline.String(), "--report", report}, extra...)
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = append(os.Environ(), "KUBECONFIG=/nonexistent")
		return cmd
	}

	t.Run("passes", func(t *testing.T) {
		report := filepath.Join(dir, "report.yaml")
		cmd := kit(ctx, report)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		err := cmd.Run()
		measure(t, "kubectl scs conformance, Gardener simulated, one minor and an upgrade", start)
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
		if r.Subject != conformanceEnvironment || len(r.Run.Invocations) != 1 {
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
		for _, want := range []string{
			"answers with v1.34.2",
			"2 nodes, each labelled topology.kubernetes.io/zone, in zones az1, az2",
			"upgraded from 1.33 to 1.34",
			"spec.kubernetes.version cannot be downgraded from 1.34 to 1.33",
		} {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("summary lacks %q", want)
			}
		}
		assertNoConformanceClusters(ctx, t)
	})

	// An interrupt while the first cluster is being built: the kit deletes it before it exits.
	t.Run("interrupted", func(t *testing.T) {
		cmd := kit(ctx, filepath.Join(dir, "interrupted.yaml"))
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

// conformanceWorkload starts the API server that stands in for the kit's clusters, with
// two Nodes labelled the way kubelets in zones az1 and az2 label themselves, and returns it
// as the cluster behind every Shoot: its URL, its CA, and a client CA (RSA, as Gardener
// makes them) that it trusts and that gardener-apiserver signs admin kubeconfigs with.
func conformanceWorkload(ctx context.Context, t *testing.T) gardensim.Cluster {
	t.Helper()
	clientCA, clientKey, err := gardensim.NewClientCA("conformance-workload-client-ca")
	if err != nil {
		t.Fatal(err)
	}
	workload, err := env.StartCluster(ctx, "conformance-workload", clientCA)
	if err != nil {
		t.Fatalf("starting the API server that stands in for the kit's clusters: %v", err)
	}
	for _, zone := range []string{"az1", "az2"} {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-" + zone, Labels: map[string]string{
			"kubernetes.io/hostname":           "worker-" + zone,
			"kubernetes.io/os":                 "linux",
			"topology.kubernetes.io/region":    "RegionOne",
			"topology.kubernetes.io/zone":      zone,
			"node.kubernetes.io/instance-type": "SCS-2V-4",
		}}}
		if _, err := workload.Client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// Gardener makes the holders of admin kubeconfigs cluster admins in every Shoot; the
	// group depends on the requester's rights in the garden.
	admins := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "gardener.cloud:admins"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects: []rbacv1.Subject{
			{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "gardener.cloud:system:admins"},
			{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "gardener.cloud:project:admins"},
		},
	}
	if _, err := workload.Client.RbacV1().ClusterRoleBindings().Create(ctx, admins, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	caCert, _, err := workload.CA()
	if err != nil {
		t.Fatal(err)
	}
	return gardensim.Cluster{APIServerURL: workload.URL, CACert: caCert, ClientCACert: clientCA, ClientCAKey: clientKey}
}

// conformanceEnvironmentConfig installs the example Gardener environment under another name,
// for the conformance namespace only, offering 1.33 and 1.34.
func conformanceEnvironmentConfig(ctx context.Context, t *testing.T) {
	t.Helper()
	objs, err := controlplane.ReadManifests(filepath.Join(repoRoot, "examples", "environments", "gardener-regionone.yaml"))
	if err != nil || len(objs) != 1 {
		t.Fatalf("reading the example environment: %v", err)
	}
	cfg := objs[0]
	cfg.SetName(conformanceEnvironment)
	cfg.SetLabels(map[string]string{"kaas.scs.community/environment": conformanceEnvironment})
	for path, v := range map[string]any{
		"access":                     map[string]any{"namespaces": []any{conformanceNamespace}},
		"catalog.kubernetesVersions": []any{"1.33", "1.34"},
	} {
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
		_ = cp.Dynamic.Resource(envGVR).Delete(ctx, conformanceEnvironment, metav1.DeleteOptions{})
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
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: sa}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"kaas.scs.community"}, Resources: []string{"scsclusters"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}},
	}}
	if _, err := kube.RbacV1().Roles(conformanceNamespace).Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: sa},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: sa},
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

// simulateGardenerIn plays Gardener for the Shoots of the SCSClusters of a namespace: each
// Shoot not yet reconciled at its generation gets the status of a healthy, reconciled Shoot.
// It returns a function that stops it.
func simulateGardenerIn(t *testing.T, namespace string, opts ...gardensim.Option) func() {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			list, err := claimsIn(namespace).List(ctx, metav1.ListOptions{})
			if err != nil {
				continue
			}
			for _, c := range list.Items {
				native := str(&c, "status", "backend", "name")
				if native == "" {
					continue
				}
				s, err := shoots().Get(ctx, native, metav1.GetOptions{})
				if err != nil || s.GetDeletionTimestamp() != nil {
					continue
				}
				observed, _, _ := unstructured.NestedInt64(s.Object, "status", "observedGeneration")
				if observed == s.GetGeneration() && str(s, "status", "lastOperation", "state") == "Succeeded" {
					continue
				}
				if _, err := gardensim.Write(ctx, garden.Client, garden.Dynamic, gardenNamespace, native, gardensim.Healthy, opts...); err != nil && ctx.Err() == nil {
					logf("simulated Gardener: %v", err)
				}
			}
		}
	}()
	stop := sync.OnceFunc(func() { cancel(); wg.Wait() })
	t.Cleanup(stop)
	return stop
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
