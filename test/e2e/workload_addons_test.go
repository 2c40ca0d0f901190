package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/backendsim"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/oidcissuer"
)

// The add-ons test's namespace, its clusters' label and the Flux kinds it reads.
const (
	addonsNamespace = "addons"
	addonsLabel     = "kaas.scs.community/addons-e2e"
)

var (
	kustomizationGVR = schema.GroupVersionResource{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations"}
	ociRepositoryGVR = schema.GroupVersionResource{Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "ocirepositories"}
)

// addonsCluster is one cluster of the test, on one backend.
type addonsCluster struct {
	backend, example, environment, claim string
	spec                                 func() map[string]any
}

// TestAddons (issue 44): the real source-controller and kustomize-controller of Flux install
// an environment's add-ons on a Ready cluster of every backend, with the kubeconfig each
// backend delivers, into a workload API server that stands in for the clusters. The
// add-ons are the project's examples (examples/addons), pushed as OCI artifacts to the
// control plane's TLS registry. It runs in both flavours; the workload runs no kubelet, so
// the test plays the Deployment controller and writes a Deployment's status as available.
//
// Its clusters are also the suite's clusters with long names: each claim's name has more
// than 40 characters, and its name in the backend stays within the backend's limit (the
// Gardener project's and Shoot's 21 characters), derived from the claim's name. The add-on
// objects, Argo CD's registration and the example add-ons' namespaces are named from those
// long names too.
func TestAddons(t *testing.T) {
	if env == nil {
		t.Skip("set SCS_KAAS_E2E=1 to run the end-to-end tests (make e2e; needs the pinned tools)")
	}
	if flavour == flavourMigration {
		t.Skip("the add-ons run on the legacy and namespaced flavours")
	}
	// Before the test's deadline starts: make live may still be building Flux beside the e2e.
	start := time.Now()
	if err := env.StartFlux(t.Context()); err != nil {
		t.Fatalf("starting Flux: %v", err)
	}
	ctx := testContext(t)
	t.Cleanup(func() {
		_ = env.StopProcess("kustomize-controller")
		_ = env.StopProcess("source-controller")
	})
	measure(t, "Flux's CRDs and controllers", start)

	registry := env.Registry()
	for _, a := range []string{"hello", "web", "team-access"} {
		if _, err := registry.PushManifests(ctx, filepath.Join(repoRoot, "examples", "addons", a), "addons/"+a, "1"); err != nil {
			t.Fatal(err)
		}
	}
	workload, err := backendsim.StartWorkload(ctx, env, "addons-workload", "az1", "az2")
	if err != nil {
		t.Fatal(err)
	}
	// The platform's OIDC issuer, and another that no cluster trusts.
	issuer, err := oidcissuer.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stranger, err := oidcissuer.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The simulator (below) plays the workload's Deployments available for Flux's health checks.
	workloadClient := workloadKube(t, workload)

	// The Flux objects live beside the kubeconfig Secret: the namespaced composite's own
	// namespace, or a legacy composite's connection secret namespace.
	fluxNamespace := addonsNamespace
	if flavour == flavourLegacy {
		fluxNamespace = "crossplane-system"
	}
	ca, err := os.ReadFile(registry.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	// Argo CD's cluster Secrets: a claim's in the environment's namespace, a namespaced
	// composite's in its own.
	registrationNamespace := addonsNamespace
	if flavour == flavourLegacy {
		registrationNamespace = argoCDNamespace
	}
	for _, ns := range []string{addonsNamespace, fluxNamespace, registrationNamespace} {
		if _, err := cp.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "registry-ca", Namespace: ns}, Data: map[string][]byte{"ca.crt": ca}}
		if _, err := cp.Client.CoreV1().Secrets(ns).Create(ctx, secret, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}

	clusters := []addonsCluster{
		{backendsim.BackendGardener, "gardener-regionone.yaml", "gardener-addons", longClaimName(backendsim.BackendGardener), func() map[string]any { return smallSpec("1.34", 1, 3) }},
		{backendsim.BackendClusterStack, "clusterstack-regionone.yaml", "clusterstack-addons", longClaimName(backendsim.BackendClusterStack), func() map[string]any {
			s := clusterStackSpec("1.34", 1)
			s["nodePools"] = s["nodePools"].([]any)[:1]
			return s
		}},
		{backendsim.BackendMagnum, "magnum-regionone.yaml", "magnum-addons", longClaimName(backendsim.BackendMagnum), func() map[string]any { return magnumSpec("1.34", "SCS-4V-8", false) }},
	}
	if clusterStackErr != nil {
		clusters = slices.DeleteFunc(clusters, func(c addonsCluster) bool { return c.backend == backendsim.BackendClusterStack })
		t.Logf("NOTE: the Cluster Stacks cluster is left out: %v", clusterStackErr)
	}
	oci := func(a string) map[string]any {
		return map[string]any{"oci": map[string]any{"url": "oci://" + registry.Address + "/addons/" + a, "tag": "1", "caSecretRef": "registry-ca"}}
	}
	catalog := []any{
		map[string]any{"name": "hello", "enforced": true, "source": oci("hello"),
			"substitute": map[string]any{"cluster_name": "clusterName", "team": "namespace", "environment": "environment"}},
		// web comes from the platform's own source, which serves every cluster.
		map[string]any{"name": "web", "default": true, "dependsOn": []any{"hello"},
			"source":     map[string]any{"sourceRef": map[string]any{"kind": "OCIRepository", "name": sharedWebSource}},
			"substitute": map[string]any{"cluster_name": "clusterName", "team": "namespace"}},
		// The team's OIDC group may read hello's namespace: the binding that makes the
		// people's kubeconfig useful, enforced on every cluster.
		map[string]any{"name": "team-access", "enforced": true, "dependsOn": []any{"hello"}, "source": oci("team-access"),
			"substitute": map[string]any{"cluster_name": "clusterName", "team": "namespace"}},
		// An artifact that does not exist: Flux's reason reaches AddonsReady.
		map[string]any{"name": "broken", "source": map[string]any{"oci": map[string]any{
			"url": "oci://" + registry.Address + "/addons/missing", "tag": "1", "caSecretRef": "registry-ca"}}},
	}
	for _, c := range clusters {
		addonsEnvironment(ctx, t, c, catalog, issuer)
	}
	shared := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "OCIRepository",
		"metadata": map[string]any{"name": sharedWebSource, "namespace": fluxNamespace},
		"spec": map[string]any{"interval": "10m", "url": "oci://" + registry.Address + "/addons/web", "ref": map[string]any{"tag": "1"},
			"certSecretRef": map[string]any{"name": "registry-ca"}},
	}}
	if err := cp.ApplyObjects(ctx, shared); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cp.Dynamic.Resource(ociRepositoryGVR).Namespace(fluxNamespace).Delete(context.Background(), sharedWebSource, metav1.DeleteOptions{})
	})
	sim := &backendsim.Simulator{
		Crossplane: backendsim.Clients{Kube: cp.Client, Dynamic: cp.Dynamic},
		Garden:     backendsim.Clients{Kube: garden.Client, Dynamic: garden.Dynamic},
		Workloads: backendsim.Workloads{backendsim.BackendGardener: workload, backendsim.BackendClusterStack: workload,
			backendsim.BackendMagnum: workload},
		Selector: addonsLabel,
		Logf:     logf,
		IssuerCA: string(issuer.CAPEM),
	}
	simulate(t, sim)

	claimOf := func(c addonsCluster, addons map[string]any) *unstructured.Unstructured {
		spec := c.spec()
		spec["environment"] = c.environment
		spec["writeConnectionSecretToRef"] = map[string]any{"name": c.claim + "-kubeconfig"}
		if addons != nil {
			spec["addons"] = addons
		}
		claim := newClaimIn(addonsNamespace, c.claim, spec)
		claim.SetLabels(map[string]string{addonsLabel: "true"})
		return claim
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), faultDeadline)
		defer cancel()
		_ = claimsIn(addonsNamespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: addonsLabel})
	})
	start = time.Now()
	for _, c := range clusters {
		var addons map[string]any
		if c.backend == backendsim.BackendMagnum {
			addons = map[string]any{"enable": []any{"broken"}}
		}
		apply(ctx, t, claimOf(c, addons))
	}
	natives := map[string]string{}
	for _, c := range clusters {
		natives[c.claim] = checkNativeNameWithinLimit(ctx, t, c)
	}

	// Every cluster Ready; hello and web applied by Flux, the Deployment available.
	for _, c := range clusters {
		waitClaimIn(ctx, t, faultDeadline, addonsNamespace, c.claim, "Ready", hasCondition("Ready", "True", ""))
		if c.backend == backendsim.BackendMagnum {
			// The broken one fails with Flux's reason; the cluster stays Ready.
			claim := waitClaimIn(ctx, t, faultDeadline, addonsNamespace, c.claim, "AddonsReady False with Flux's reason", func(u *unstructured.Unstructured) error {
				for _, cond := range conditionsOf(u) {
					if cond["type"] == "AddonsReady" && cond["status"] == "False" && cond["reason"] != "Pending" && cond["reason"] != "WaitingForCluster" &&
						strings.Contains(fmt.Sprint(cond["message"]), "broken") {
						return nil
					}
				}
				return errors.New("not yet")
			})
			if err := hasCondition("Ready", "True", "")(claim); err != nil {
				t.Errorf("a failing add-on made %s un-Ready: %v", c.claim, err)
			}
			waitAddonReady(ctx, t, c.claim, "hello")
			waitAddonReady(ctx, t, c.claim, "web")
		} else {
			waitClaimIn(ctx, t, faultDeadline, addonsNamespace, c.claim, "AddonsReady", hasCondition("AddonsReady", "True", "AddonsApplied"))
		}
		cm, err := workloadClient.CoreV1().ConfigMaps("hello-"+addonsNamespace+"-"+c.claim).Get(ctx, "hello", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("hello of %s in the workload: %v", c.claim, err)
		}
		if want := map[string]string{"cluster": c.claim, "team": addonsNamespace, "environment": c.environment}; !maps.Equal(cm.Data, want) {
			t.Errorf("hello of %s says %v, want %v", c.claim, cm.Data, want)
		}
		if _, err := workloadClient.AppsV1().Deployments("web-"+addonsNamespace+"-"+c.claim).Get(ctx, "web", metav1.GetOptions{}); err != nil {
			t.Errorf("web of %s in the workload: %v", c.claim, err)
		}
	}
	measure(t, fmt.Sprintf("%d clusters Ready with their add-ons applied by Flux", len(clusters)), start)

	// Every cluster registered for Argo CD: the documented keys and labels, and a config
	// that reaches the cluster's API server.
	for _, c := range clusters {
		checkArgoCDRegistration(ctx, t, c, registrationNamespace)
	}

	// People sign in with the cluster's oidc-kubeconfig and reach what the team-access
	// add-on binds; the refusals hold; the admin kubeconfig still works.
	start = time.Now()
	for _, c := range clusters {
		checkAccess(ctx, t, c, issuer, stranger)
	}
	measure(t, "sign-in checked on every cluster", start)

	first, last := clusters[0], clusters[len(clusters)-1]
	checkAccessRefusals(ctx, t, first, claimOf)

	// Disabling an enforced add-on is refused, naming the field and the environment.
	apply(ctx, t, claimOf(first, map[string]any{"disable": []any{"hello"}}))
	waitClaimIn(ctx, t, faultDeadline, addonsNamespace, first.claim, "the refusal", func(u *unstructured.Unstructured) error {
		for _, cond := range conditionsOf(u) {
			if cond["type"] == "Rendered" && cond["status"] == "False" &&
				strings.Contains(fmt.Sprint(cond["message"]), "spec.addons.disable[0]: Forbidden: add-on hello is enforced by environment "+first.environment) {
				return nil
			}
		}
		return errors.New("not refused yet")
	})

	// Disabling a default add-on removes it from the cluster: Flux prunes the Deployment.
	apply(ctx, t, claimOf(first, map[string]any{"disable": []any{"web"}}))
	waitFor(ctx, t, faultDeadline, "web pruned from "+first.claim, func(ctx context.Context) (bool, error) {
		_, err := workloadClient.AppsV1().Deployments("web-"+addonsNamespace+"-"+first.claim).Get(ctx, "web", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, fmt.Errorf("still there (%v)", err)
	})
	waitClaimIn(ctx, t, faultDeadline, addonsNamespace, first.claim, "AddonsReady with hello and team-access only", allOf(
		hasCondition("AddonsReady", "True", "AddonsApplied"), addonNames("hello", "team-access")))
	// Its Kustomization goes once Flux has finalised it (pruned what it applied).
	waitFor(ctx, t, faultDeadline, "web's Kustomization of "+first.claim+" gone", func(ctx context.Context) (bool, error) {
		left := fluxObjectsOf(ctx, t, fluxNamespace, "kaas.scs.community/cluster="+natives[first.claim])
		return !slices.ContainsFunc(left, func(o string) bool {
			return strings.HasPrefix(o, "Kustomization ") && strings.HasSuffix(o, "-web")
		}), fmt.Errorf("left: %v", left)
	})

	// An add-on the catalog drops stays installed, reported as retained.
	catalogWithoutWeb := slices.DeleteFunc(slices.Clone(catalog), func(a any) bool { return a.(map[string]any)["name"] == "web" })
	addonsEnvironment(ctx, t, last, catalogWithoutWeb, issuer)
	waitClaimIn(ctx, t, faultDeadline, addonsNamespace, last.claim, "web retained", func(u *unstructured.Unstructured) error {
		list, _, _ := unstructured.NestedSlice(u.Object, "status", "addons")
		for _, a := range list {
			if m, _ := a.(map[string]any); m["name"] == "web" && m["retained"] == true {
				return nil
			}
		}
		return fmt.Errorf("status.addons %v", list)
	})
	if _, err := workloadClient.AppsV1().Deployments("web-"+addonsNamespace+"-"+last.claim).Get(ctx, "web", metav1.GetOptions{}); err != nil {
		t.Errorf("web of %s left the catalog and must stay installed: %v", last.claim, err)
	}

	// No credential outside Secrets: the claims and the Flux objects name the kubeconfig
	// Secret, never its data.
	var seen strings.Builder
	for _, ri := range []interface {
		List(context.Context, metav1.ListOptions) (*unstructured.UnstructuredList, error)
	}{claimsIn(addonsNamespace), cp.Dynamic.Resource(kustomizationGVR).Namespace(fluxNamespace), cp.Dynamic.Resource(ociRepositoryGVR).Namespace(fluxNamespace),
		cp.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "events"}).Namespace(addonsNamespace)} {
		list, err := ri.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(list)
		seen.Write(data)
	}
	assertNoKubeconfig(t, seen.String())

	// Deleting the clusters deletes their Flux objects, none waiting on a cluster that is gone.
	// Before: a Kustomization per add-on a cluster has, and a source per add-on but web, whose
	// source is the platform's: hello and team-access on the first (web disabled), hello,
	// team-access and web on the others, and broken and the retained web on the last.
	want := 4 + 5*(len(clusters)-2) + 7
	if n := len(fluxObjects(ctx, t, fluxNamespace)); n != want {
		t.Errorf("%d Flux objects before the deletion, want %d: %v", n, want, fluxObjects(ctx, t, fluxNamespace))
	}
	start = time.Now()
	if err := claimsIn(addonsNamespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: addonsLabel}); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, faultDeadline, "no Flux object left", func(ctx context.Context) (bool, error) {
		left := fluxObjects(ctx, t, fluxNamespace)
		return len(left) == 0, fmt.Errorf("left: %v", left)
	})
	waitFor(ctx, t, faultDeadline, "no Argo CD registration left", func(ctx context.Context) (bool, error) {
		left, err := cp.Client.CoreV1().Secrets(registrationNamespace).List(ctx, metav1.ListOptions{LabelSelector: "argocd.argoproj.io/secret-type=cluster"})
		if err != nil {
			return false, err
		}
		return len(left.Items) == 0, fmt.Errorf("%d left", len(left.Items))
	})
	measure(t, "clusters and their Flux objects deleted", start)
}

// longClaimName is a claim name of more than 40 characters, short enough that the example
// add-ons' namespaces (hello-<team>-<cluster>) keep within Kubernetes' 63.
func longClaimName(backend string) string {
	return "payments-production-eu-central-" + backend + "-k8s"
}

// checkNativeNameWithinLimit checks that a claim with a long name got a name in the backend
// within the backend's limit, derived from the claim's name, and returns that name.
func checkNativeNameWithinLimit(ctx context.Context, t *testing.T, c addonsCluster) string {
	t.Helper()
	if len(c.claim) <= 40 {
		t.Fatalf("claim %s is meant to have a long name (more than 40 characters)", c.claim)
	}
	cases := backendCases()
	i := slices.IndexFunc(cases, func(b backendCase) bool { return b.backend == c.backend })
	if i < 0 {
		t.Fatalf("no backend case for %s", c.backend)
	}
	_, native := clusterOfIn(ctx, t, addonsNamespace, c.claim)
	if max := cases[i].maxName; len(native) > max || !strings.HasPrefix(native, "payments-") {
		t.Errorf("claim %s (%d characters) is %q in %s: want at most %d characters, starting with the claim's name", c.claim, len(c.claim), native, c.backend, max)
	}
	return native
}

// sharedWebSource is the platform's OCIRepository of the web add-on.
const sharedWebSource = "web-shared"

// fluxObjects names the clusters' Kustomizations and OCIRepositories of a namespace.
func fluxObjects(ctx context.Context, t *testing.T, namespace string) []string {
	t.Helper()
	return fluxObjectsOf(ctx, t, namespace, "kaas.scs.community/cluster")
}

// fluxObjectsOf names the Kustomizations and OCIRepositories of a namespace that a label
// selector selects.
func fluxObjectsOf(ctx context.Context, t *testing.T, namespace, selector string) []string {
	t.Helper()
	var out []string
	for _, gvr := range []schema.GroupVersionResource{kustomizationGVR, ociRepositoryGVR} {
		list, err := cp.Dynamic.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range list.Items {
			out = append(out, o.GetKind()+" "+o.GetName())
		}
	}
	return out
}

// addonsEnvironment installs an example environment under another name, for the add-ons
// namespace, with the catalog.
func addonsEnvironment(ctx context.Context, t *testing.T, c addonsCluster, catalog []any, issuer *oidcissuer.Issuer) {
	t.Helper()
	objs, err := controlplane.ReadManifests(filepath.Join(repoRoot, "examples", "environments", c.example))
	if err != nil || len(objs) != 1 {
		t.Fatalf("reading the example environment: %v", err)
	}
	cfg := objs[0]
	cfg.SetName(c.environment)
	cfg.SetLabels(map[string]string{"kaas.scs.community/environment": c.environment})
	if err := unstructured.SetNestedField(cfg.Object, map[string]any{"namespaces": []any{addonsNamespace}}, "data", "access"); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedSlice(cfg.Object, catalog, "data", "addons"); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(cfg.Object, map[string]any{"namespace": argoCDNamespace}, "data", "argoCD"); err != nil {
		t.Fatal(err)
	}
	accessEnvironment(t, cfg, c.backend, issuer)
	// Server-side apply by one manager: data is schemaless, so its lists are replaced whole,
	// and a catalog without an add-on loses it.
	if err := cp.ApplyObjects(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cp.Dynamic.Resource(envGVR).Delete(context.Background(), c.environment, metav1.DeleteOptions{})
	})
}

// waitAddonReady waits until status.addons reports the add-on ready.
func waitAddonReady(ctx context.Context, t *testing.T, claim, addon string) {
	t.Helper()
	waitClaimIn(ctx, t, faultDeadline, addonsNamespace, claim, "add-on "+addon+" ready", func(u *unstructured.Unstructured) error {
		list, _, _ := unstructured.NestedSlice(u.Object, "status", "addons")
		for _, a := range list {
			if m, _ := a.(map[string]any); m["name"] == addon && m["ready"] == true {
				return nil
			}
		}
		return fmt.Errorf("status.addons %v", list)
	})
}

// addonNames checks that status.addons names exactly these add-ons.
func addonNames(want ...string) func(*unstructured.Unstructured) error {
	return func(u *unstructured.Unstructured) error {
		list, _, _ := unstructured.NestedSlice(u.Object, "status", "addons")
		var got []string
		for _, a := range list {
			m, _ := a.(map[string]any)
			got = append(got, fmt.Sprint(m["name"]))
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("status.addons names %v, want %v", got, want)
		}
		return nil
	}
}

func conditionsOf(u *unstructured.Unstructured) []map[string]any {
	list, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	out := make([]map[string]any, 0, len(list))
	for _, c := range list {
		if m, ok := c.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// workloadKube is a client of the workload API server, as its admin.
func workloadKube(t *testing.T, w *backendsim.Workload) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(w.AdminKubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// argoCDNamespace is the namespace the add-ons' environments register clusters in.
const argoCDNamespace = "argocd"

// checkArgoCDRegistration checks a cluster's Argo CD cluster Secret as docs/addons.md
// documents it, and signs in to the cluster's API server with its config, as Argo CD would.
func checkArgoCDRegistration(ctx context.Context, t *testing.T, c addonsCluster, namespace string) {
	t.Helper()
	var secret *corev1.Secret
	waitFor(ctx, t, faultDeadline, "the Argo CD registration of "+c.claim, func(ctx context.Context) (bool, error) {
		list, err := cp.Client.CoreV1().Secrets(namespace).List(ctx, metav1.ListOptions{
			LabelSelector: "argocd.argoproj.io/secret-type=cluster,kaas.scs.community/environment=" + c.environment})
		if err != nil || len(list.Items) != 1 {
			return false, fmt.Errorf("%d cluster Secrets (%v)", len(list.Items), err)
		}
		secret = &list.Items[0]
		return true, nil
	})
	wantLabels := map[string]string{
		"kaas.scs.community/environment": c.environment, "kaas.scs.community/backend": string(c.backend),
		"kaas.scs.community/region": "RegionOne", "kaas.scs.community/namespace": addonsNamespace,
		"kaas.scs.community/kubernetes-minor": "1.34",
	}
	for k, v := range wantLabels {
		if got := secret.Labels[k]; got != v {
			t.Errorf("registration of %s: label %s=%q, want %q", c.claim, k, got, v)
		}
	}
	if keys := slices.Sorted(maps.Keys(secret.Data)); !slices.Equal(keys, []string{"config", "name", "server"}) {
		t.Errorf("registration of %s has keys %v, want config, name, server", c.claim, keys)
	}
	kubeconfig, err := cp.Client.CoreV1().Secrets(addonsNamespace).Get(ctx, c.claim+"-kubeconfig", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	delivered, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig.Data["kubeconfig"])
	if err != nil {
		t.Fatal(err)
	}
	if got := string(secret.Data["server"]); got != delivered.Host {
		t.Errorf("registration of %s names server %s, the delivered kubeconfig %s", c.claim, got, delivered.Host)
	}
	var config struct {
		BearerToken     string `json:"bearerToken"`
		TLSClientConfig struct {
			Insecure                  bool
			CAData, CertData, KeyData []byte
		} `json:"tlsClientConfig"`
	}
	if err := json.Unmarshal(secret.Data["config"], &config); err != nil {
		t.Fatalf("registration of %s: config is not Argo CD's JSON", c.claim)
	}
	rc := &rest.Config{Host: string(secret.Data["server"]), BearerToken: config.BearerToken, TLSClientConfig: rest.TLSClientConfig{
		Insecure: config.TLSClientConfig.Insecure, CAData: config.TLSClientConfig.CAData,
		CertData: config.TLSClientConfig.CertData, KeyData: config.TLSClientConfig.KeyData}}
	kube, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kube.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err != nil {
		t.Errorf("Argo CD could not reach %s with its registration: %v", c.claim, err)
	}
}
