package apiserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis"
	namespaced "github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/namespaced/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/v1alpha1"
)

const (
	crossplaneNS = "crossplane-system"
	projectNS    = "garden-team1"
	// tenantNS is a namespace of the Crossplane cluster where namespaced AdminKubeconfigs live,
	// as a namespaced composite resource's composition would create them.
	tenantNS = "team1"
	// lifetime is what the fake garden grants whatever is asked, so that a renewal happens
	// within seconds: the provider renews when a third of it is left.
	lifetime = 8 * time.Second
	// patience bounds every wait for the provider; it is not a timing assertion.
	patience = 90 * time.Second
)

// world is the API server with the fake garden and the provider running against it.
type world struct {
	t           *testing.T
	env         *envtest.Environment
	kube        client.Client
	dir         string
	adminKC     string
	apiURL      string
	servingCA   []byte
	ca          *clientCA
	fakeBin     string
	providerBin string
	fakeURL     string
	fakeCA      []byte
	logFiles    []string
	issued      map[string]bool // every kubeconfig seen in a connection secret, for the leak check
}

func TestProviderAgainstARealAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver, etcd and two processes")
	}
	kubeDir, etcdDir := toolDir(t, "kubernetes", "kube-apiserver"), toolDir(t, "etcd", "etcd")
	if kubeDir == "" || etcdDir == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("kube-apiserver or etcd is not built; make test builds them first (make tools-kubernetes tools-etcd)")
		}
		t.Skip("kube-apiserver or etcd is not built: run `make tools-kubernetes tools-etcd` (hack/tools/build.sh kubernetes etcd)")
	}
	w := start(t, kubeDir, etcdDir)

	t.Run("the CRDs refuse what the provider cannot serve and fill in defaults", w.admission)
	t.Run("the namespaced CRDs refuse what the provider cannot serve and fill in defaults", w.namespacedAdmission)
	w.setUpGarden()
	t.Run("the examples are accepted", w.examples)
	w.startFakeGarden()
	w.startProvider()

	t.Run("issues a kubeconfig that works and renews it before it expires", w.issueAndRenew)
	t.Run("a missing Shoot is named in Synced", func(t *testing.T) {
		w.create(t, "prod-admin", "prod", "default")
		w.waitSynced(t, "prod-admin", `create failed: ShootNotFound: cannot issue an admin kubeconfig for Shoot garden-team1/prod: shoots.core.gardener.cloud "prod" not found`)
	})
	t.Run("missing RBAC in the garden is named in Synced", func(t *testing.T) {
		w.create(t, "dev-viewer", "dev", "viewer")
		w.waitSynced(t, "dev-viewer", `create failed: PermissionDenied: cannot issue an admin kubeconfig for Shoot garden-team1/dev: the ProviderConfig's credentials may not create shoots/adminkubeconfig: shoots.core.gardener.cloud "dev" is forbidden: User "garden-viewer" cannot create resource "shoots/adminkubeconfig"`)
	})
	t.Run("a namespaced AdminKubeconfig with the default ClusterProviderConfig gets its kubeconfig into a Secret in its own namespace", w.namespacedWithClusterProviderConfig)
	t.Run("a namespaced AdminKubeconfig with a ProviderConfig of its namespace gets a kubeconfig", w.namespacedWithProviderConfig)
	t.Run("a namespaced ProviderConfig pointing at another namespace's Secret is refused", w.namespacedCrossNamespaceRefused)
	t.Run("deletion releases the resource", w.deletion)
	t.Run("no secret in events or logs", w.noSecrets)
}

func start(t *testing.T, kubeDir, etcdDir string) *world {
	t.Helper()
	w := &world{t: t, dir: t.TempDir(), issued: map[string]bool{}}
	bin := filepath.Join(w.dir, "bin")
	w.providerBin, w.fakeBin = buildCommand(t, bin, "./cmd/provider"), buildCommand(t, bin, "./test/fakegarden/cmd/fake-garden-auth")
	var err error
	if w.ca, err = newClientCA(); err != nil {
		t.Fatal(err)
	}
	w.env = &envtest.Environment{
		CRDDirectoryPaths:     []string{"../../package/crds", filepath.Join(repoRoot, "hack", "shootcrd", "crds")},
		ErrorIfCRDPathMissing: true,
		ControlPlane: envtest.ControlPlane{
			APIServer: &envtest.APIServer{Path: filepath.Join(kubeDir, "kube-apiserver"), SecureServing: envtest.SecureServing{Authn: w.ca}},
			Etcd:      &envtest.Etcd{Path: filepath.Join(etcdDir, "etcd")},
		},
	}
	cfg, err := w.env.Start()
	if err != nil {
		t.Fatalf("starting kube-apiserver and etcd: %v", err)
	}
	t.Cleanup(func() { _ = w.env.Stop() })
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apis.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	if w.kube, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		t.Fatal(err)
	}
	w.apiURL, w.servingCA = cfg.Host, w.env.ControlPlane.APIServer.CA
	w.adminKC = w.writeKubeconfig("admin", w.userKubeconfig("admin", []string{"system:masters"}, w.apiURL, w.servingCA))
	return w
}

// userKubeconfig returns a kubeconfig for a user of the API server (a client certificate of
// the test's client CA) at the given server.
func (w *world) userKubeconfig(name string, groups []string, server string, ca []byte) []byte {
	w.t.Helper()
	u, err := w.env.AddUser(envtest.User{Name: name, Groups: groups}, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	rc := u.Config()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	cfg.AuthInfos["u"] = &clientcmdapi.AuthInfo{ClientCertificateData: rc.CertData, ClientKeyData: rc.KeyData}
	cfg.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	cfg.CurrentContext = "c"
	b, err := clientcmd.Write(*cfg)
	if err != nil {
		w.t.Fatal(err)
	}
	return b
}

func (w *world) writeKubeconfig(name string, b []byte) string {
	w.t.Helper()
	p := filepath.Join(w.dir, name+".kubeconfig")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		w.t.Fatal(err)
	}
	return p
}

func (w *world) apply(objs ...client.Object) {
	w.t.Helper()
	for _, o := range objs {
		if err := w.kube.Create(context.Background(), o); err != nil {
			w.t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
	}
}

func adminKubeconfig(name, shoot, providerConfig string, mutate ...func(*v1alpha1.AdminKubeconfig)) *v1alpha1.AdminKubeconfig {
	cr := &v1alpha1.AdminKubeconfig{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.AdminKubeconfigSpec{
			ClusterManagedResourceSpec: xpv2.ClusterManagedResourceSpec{
				ProviderConfigReference:          &xpv2.Reference{Name: providerConfig},
				WriteConnectionSecretToReference: &xpv2.SecretReference{Namespace: crossplaneNS, Name: name + "-kubeconfig"},
			},
			ForProvider: v1alpha1.AdminKubeconfigParameters{Namespace: projectNS, ShootName: shoot},
		},
	}
	for _, m := range mutate {
		m(cr)
	}
	return cr
}

func (w *world) admission(t *testing.T) {
	ctx := context.Background()
	for name, tc := range map[string]struct {
		obj  client.Object
		want string
	}{
		"no connection secret": {adminKubeconfig("x1", "dev", "default", func(cr *v1alpha1.AdminKubeconfig) { cr.Spec.WriteConnectionSecretToReference = nil }),
			"writeConnectionSecretToRef is required"},
		"lifetime below Gardener's minimum": {adminKubeconfig("x2", "dev", "default", func(cr *v1alpha1.AdminKubeconfig) { cr.Spec.ForProvider.ExpirationSeconds = ptr.To(int64(60)) }),
			"should be greater than or equal to 600"},
		"no Shoot name": {adminKubeconfig("x3", "", "default"), "spec.forProvider.shootName"},
		// Sent untyped: metav1.Duration cannot even hold such a value, which is the point.
		"renewBefore that is no Go duration": {&unstructured.Unstructured{Object: map[string]any{
			"apiVersion": v1alpha1.SchemeGroupVersion.String(), "kind": v1alpha1.AdminKubeconfigKind, "metadata": map[string]any{"name": "x6"},
			"spec": map[string]any{
				"forProvider":                map[string]any{"namespace": projectNS, "shootName": "dev", "renewBefore": "8 hours"},
				"writeConnectionSecretToRef": map[string]any{"namespace": crossplaneNS, "name": "x6"},
			},
		}}, "spec.forProvider.renewBefore"},
		"Secret source without secretRef": {&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "x4"},
			Spec: v1alpha1.ProviderConfigSpec{Credentials: v1alpha1.ProviderCredentials{Source: xpv2.CredentialsSourceSecret}}},
			"secretRef is required when source is Secret"},
		"another credentials source": {&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "x5"},
			Spec: v1alpha1.ProviderConfigSpec{Credentials: v1alpha1.ProviderCredentials{Source: xpv2.CredentialsSourceInjectedIdentity}}},
			"Unsupported value"},
	} {
		err := w.kube.Create(ctx, tc.obj)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: created or refused for another reason (%v), want %q", name, err, tc.want)
		}
	}

	// Defaults: what a composition may leave out.
	cr := adminKubeconfig("defaults", "dev", "", func(cr *v1alpha1.AdminKubeconfig) { cr.Spec.ProviderConfigReference = nil })
	if err := w.kube.Create(ctx, cr); err != nil {
		t.Fatal(err)
	}
	got := &v1alpha1.AdminKubeconfig{}
	if err := w.kube.Get(ctx, types.NamespacedName{Name: "defaults"}, got); err != nil {
		t.Fatal(err)
	}
	s := got.Spec
	if s.ProviderConfigReference == nil || s.ProviderConfigReference.Name != "default" || ptr.Deref(s.ForProvider.ExpirationSeconds, 0) != 86400 ||
		s.DeletionPolicy != xpv2.DeletionDelete || len(s.ManagementPolicies) != 1 || s.ManagementPolicies[0] != xpv2.ManagementActionAll {
		t.Errorf("defaults: providerConfigRef %v, expirationSeconds %v, deletionPolicy %q, managementPolicies %v",
			s.ProviderConfigReference, s.ForProvider.ExpirationSeconds, s.DeletionPolicy, s.ManagementPolicies)
	}
	if err := w.kube.Delete(ctx, got); err != nil {
		t.Fatal(err)
	}
}

// examples submits every object of examples/ in a server-side dry run.
func (w *world) examples(t *testing.T) {
	files, err := filepath.Glob("../../examples/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(raw, &u.Object); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := w.kube.Create(context.Background(), u, client.DryRunAll); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// setUpGarden creates the project namespace, a Shoot whose advertised address and cluster CA
// are this API server's, and the provider's garden users: one allowed to create
// shoots/adminkubeconfig, one not.
func (w *world) setUpGarden() {
	ctx := context.Background()
	w.apply(
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: crossplaneNS}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: projectNS}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: projectNS, Name: "dev.ca-cluster"}, Data: map[string]string{"ca.crt": string(w.servingCA)}},
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: projectNS, Name: "adminkubeconfig"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{"core.gardener.cloud"}, Resources: []string{"shoots/adminkubeconfig"}, Verbs: []string{"create"}}}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: projectNS, Name: "garden-provider"},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "adminkubeconfig"},
			Subjects: []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: "garden-provider"}}},
	)
	shoot := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot",
		"metadata": map[string]any{"namespace": projectNS, "name": "dev"},
		"spec":     map[string]any{"kubernetes": map[string]any{"version": "1.34"}, "provider": map[string]any{"type": "openstack"}, "region": "RegionOne"},
	}}
	if err := w.kube.Create(ctx, shoot); err != nil {
		w.t.Fatalf("creating the Shoot: %v", err)
	}
	// Gardener writes the advertised addresses once the control plane runs; here the test does.
	shoot.Object["status"] = map[string]any{
		"uid": string(shoot.GetUID()), "technicalID": "shoot--team1--dev", "hibernated": false,
		"gardener":            map[string]any{"id": "test", "name": "test", "version": "v1.149.3"},
		"advertisedAddresses": []any{map[string]any{"name": "external", "url": w.apiURL}},
	}
	if err := w.kube.Status().Update(ctx, shoot); err != nil {
		w.t.Fatalf("writing the Shoot's status: %v", err)
	}
}

// startFakeGarden runs fake-garden-auth against the garden, signing kubeconfigs with the CA
// the API server trusts.
func (w *world) startFakeGarden() {
	addr, servingCA, written := filepath.Join(w.dir, "fake.addr"), filepath.Join(w.dir, "fake-ca.crt"), filepath.Join(w.dir, "written.kubeconfig")
	w.run("fake-garden-auth", w.fakeBin, nil,
		"--garden-kubeconfig="+w.adminKC, "--client-ca-file="+w.ca.certFile,
		"--signing-cert-file="+w.ca.certFile, "--signing-key-file="+w.ca.keyFile,
		"--max-expiration="+lifetime.String(), "--address-file="+addr, "--serving-ca-file="+servingCA,
		"--write-provider-kubeconfig="+written)
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, patience, true, func(context.Context) (bool, error) {
		b, err := os.ReadFile(addr)
		w.fakeURL = strings.TrimSpace(string(b))
		return err == nil && w.fakeURL != "", nil
	})
	if err != nil {
		w.t.Fatalf("fake-garden-auth did not start: %v\n%s", err, w.tail())
	}
	if w.fakeCA, err = os.ReadFile(servingCA); err != nil {
		w.t.Fatal(err)
	}
	// --write-provider-kubeconfig points the garden's user at the fake, with its CA.
	cfg, err := clientcmd.LoadFromFile(written)
	if err != nil {
		w.t.Fatal(err)
	}
	if c := cfg.Clusters[cfg.Contexts[cfg.CurrentContext].Cluster]; c.Server != w.fakeURL || !bytes.Equal(c.CertificateAuthorityData, w.fakeCA) {
		w.t.Errorf("--write-provider-kubeconfig wrote server %q", c.Server)
	}
}

// startProvider runs the provider against the API server as a plain process, with a
// ProviderConfig per garden user; for the namespaced AdminKubeconfigs a ClusterProviderConfig
// default (the garden-provider user, Secret in crossplane-system), a ProviderConfig garden in
// the tenant namespace with its own copy of that Secret, and a ProviderConfig sneaky in the
// tenant namespace that names the Secret in crossplane-system.
func (w *world) startProvider() {
	for _, pc := range []struct{ name, user string }{{"default", "garden-provider"}, {"viewer", "garden-viewer"}} {
		kc := w.userKubeconfig(pc.user, nil, w.fakeURL, w.fakeCA)
		w.apply(
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: crossplaneNS, Name: pc.user}, Data: map[string][]byte{"kubeconfig": kc}},
			&v1alpha1.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: pc.name}, Spec: v1alpha1.ProviderConfigSpec{Credentials: v1alpha1.ProviderCredentials{
				Source:    xpv2.CredentialsSourceSecret,
				SecretRef: &xpv2.SecretKeySelector{SecretReference: xpv2.SecretReference{Namespace: crossplaneNS, Name: pc.user}, Key: "kubeconfig"},
			}}},
		)
	}
	kc := w.userKubeconfig("garden-provider", nil, w.fakeURL, w.fakeCA)
	w.apply(
		&namespaced.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: credentialsIn(crossplaneNS, "garden-provider")},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "garden-credentials"}, Data: map[string][]byte{"kubeconfig": kc}},
		&namespaced.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "garden"}, Spec: credentialsIn(tenantNS, "garden-credentials")},
		&namespaced.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "sneaky"}, Spec: credentialsIn(crossplaneNS, "garden-provider")},
	)
	// The poll interval is far longer than the kubeconfigs live: renewals must not depend on it.
	w.run("provider", w.providerBin, []string{"KUBECONFIG=" + w.adminKC},
		"--debug", "--poll=1h", "--metrics-bind-address=0", "--health-probe-bind-addr=0")
}

// run starts a process that the test stops at its end; its output goes to a log file.
func (w *world) run(name, bin string, env []string, args ...string) {
	w.t.Helper()
	logPath := filepath.Join(w.dir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		w.t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// If the test binary dies, the child goes with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	w.logFiles = append(w.logFiles, logPath)
	w.t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		_ = logFile.Close()
	})
}

// tail returns the end of every log, for failure messages.
func (w *world) tail() string {
	var b strings.Builder
	for _, p := range w.logFiles {
		data, _ := os.ReadFile(p)
		if len(data) > 3000 {
			data = data[len(data)-3000:]
		}
		fmt.Fprintf(&b, "--- %s\n%s\n", filepath.Base(p), data)
	}
	return b.String()
}

func (w *world) create(t *testing.T, name, shoot, providerConfig string) {
	t.Helper()
	if err := w.kube.Create(context.Background(), adminKubeconfig(name, shoot, providerConfig)); err != nil {
		t.Fatal(err)
	}
}

func (w *world) get(t *testing.T, name string) *v1alpha1.AdminKubeconfig {
	t.Helper()
	cr := &v1alpha1.AdminKubeconfig{}
	if err := w.kube.Get(context.Background(), types.NamespacedName{Name: name}, cr); err != nil {
		t.Fatal(err)
	}
	return cr
}

// waitFor polls until cond holds; it fails the test with the provider's log otherwise.
func (w *world) waitFor(t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, patience, true, func(context.Context) (bool, error) {
		return cond()
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v\n%s", what, err, w.tail())
	}
}

func (w *world) waitSynced(t *testing.T, name, message string) {
	t.Helper()
	var last xpv2.Condition
	w.waitFor(t, name+" to report "+message, func() (bool, error) {
		last = w.get(t, name).GetCondition(xpv2.TypeSynced)
		return last.Status == corev1.ConditionFalse && strings.Contains(last.Message, message), nil
	})
}

func (w *world) secret(t *testing.T, name string) *corev1.Secret {
	t.Helper()
	return w.secretIn(t, crossplaneNS, name)
}

func (w *world) secretIn(t *testing.T, namespace, name string) *corev1.Secret {
	t.Helper()
	s := &corev1.Secret{}
	err := w.kube.Get(context.Background(), types.NamespacedName{Namespace: namespace, Name: name}, s)
	if kerrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if kc := s.Data["kubeconfig"]; len(kc) > 0 {
		w.issued[string(kc)] = true
	}
	return s
}

func (w *world) issueAndRenew(t *testing.T) {
	w.create(t, "dev-admin", "dev", "default")
	var first []byte
	w.waitFor(t, "dev-admin to be Ready with a kubeconfig", func() (bool, error) {
		ready := w.get(t, "dev-admin").GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue
		s := w.secret(t, "dev-admin-kubeconfig")
		if s != nil {
			first = s.Data["kubeconfig"]
		}
		return ready && len(first) > 0, nil
	})
	s := w.secret(t, "dev-admin-kubeconfig")
	if string(s.Data["endpoint"]) != w.apiURL || !bytes.Equal(s.Data["ca.crt"], w.servingCA) {
		t.Errorf("connection secret: endpoint %q (want the Shoot's advertised address %q), ca.crt from the Shoot's ConfigMap: %v",
			s.Data["endpoint"], w.apiURL, bytes.Equal(s.Data["ca.crt"], w.servingCA))
	}

	// The kubeconfig works: the Shoot's API server (here the same one) knows its user.
	if user := whoAmI(t, first); user != "garden-provider" {
		t.Errorf("the issued kubeconfig authenticates as %q, want the garden user who requested it", user)
	}

	// The garden granted 8 seconds whatever was asked; the provider planned on that.
	at := w.get(t, "dev-admin").Status.AtProvider
	if at.IssuedAt == nil || at.ExpirationTimestamp == nil || at.ExpirationTimestamp.Sub(at.IssuedAt.Time) > lifetime+time.Second {
		t.Fatalf("status.atProvider %+v, want a lifetime of %v", at, lifetime)
	}

	// Renewal: a new kubeconfig arrives before the first expires, with a poll interval of an
	// hour. Wait for it without asserting when: only that it came, and came from a renewal,
	// which the status records as a later issuedAt. The provider publishes the Secret
	// before it writes the status, so the two are awaited together: reading the status as
	// soon as the Secret changed raced with that write (seen once in CI).
	var renewed *v1alpha1.AdminKubeconfig
	w.waitFor(t, "a renewed kubeconfig, issued after the first", func() (bool, error) {
		s := w.secret(t, "dev-admin-kubeconfig")
		renewed = w.get(t, "dev-admin")
		issuedAt := renewed.Status.AtProvider.IssuedAt
		return s != nil && len(s.Data["kubeconfig"]) > 0 && !bytes.Equal(s.Data["kubeconfig"], first) &&
			issuedAt != nil && issuedAt.After(at.IssuedAt.Time), nil
	})
	if c := renewed.GetCondition(xpv2.TypeReady); c.Status != corev1.ConditionTrue {
		t.Errorf("Ready after renewal: %+v", c)
	}
	pc := &v1alpha1.ProviderConfig{}
	if err := w.kube.Get(context.Background(), types.NamespacedName{Name: "default"}, pc); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, "the ProviderConfig to count its user", func() (bool, error) {
		err := w.kube.Get(context.Background(), types.NamespacedName{Name: "default"}, pc)
		return err == nil && pc.Status.Users >= 1, err
	})
}

func (w *world) deletion(t *testing.T) {
	ctx := context.Background()
	if err := w.kube.Delete(ctx, w.get(t, "dev-admin")); err != nil {
		t.Fatal(err)
	}
	if err := w.kube.Delete(ctx, w.getNS(t, "tenant-admin")); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, "dev-admin to be gone", func() (bool, error) {
		err := w.kube.Get(ctx, types.NamespacedName{Name: "dev-admin"}, &v1alpha1.AdminKubeconfig{})
		return kerrors.IsNotFound(err), nil
	})
	w.waitFor(t, "team1/tenant-admin to be gone", func() (bool, error) {
		err := w.kube.Get(ctx, types.NamespacedName{Namespace: tenantNS, Name: "tenant-admin"}, &namespaced.AdminKubeconfig{})
		return kerrors.IsNotFound(err), nil
	})
}

// noSecrets reads every event and both processes' logs and fails on any issued kubeconfig,
// key or client certificate in them.
func (w *world) noSecrets(t *testing.T) {
	var texts []string
	events := &corev1.EventList{}
	if err := w.kube.List(context.Background(), events); err != nil {
		t.Fatal(err)
	}
	if len(events.Items) == 0 {
		t.Error("no events at all: the check would prove nothing")
	}
	for _, e := range events.Items {
		texts = append(texts, "event "+e.Reason+": "+e.Message)
	}
	for _, p := range w.logFiles {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, strings.Split(string(b), "\n")...)
	}
	needles := map[string]string{"PRIVATE KEY": "a private key", "client-key-data": "a client key", "client-certificate-data": "a client certificate"}
	for kc := range w.issued {
		needles[kc] = "an issued kubeconfig"
		needles[base64.StdEncoding.EncodeToString([]byte(kc))] = "an issued kubeconfig, base64"
	}
	if len(w.issued) < 2 {
		t.Errorf("only %d kubeconfigs seen: the check would prove little", len(w.issued))
	}
	for _, line := range texts {
		for n, what := range needles {
			if i := strings.Index(line, n); i >= 0 {
				t.Errorf("%s leaked after %.120q", what, line[:i])
			}
		}
	}
}
