package main

import (
	"encoding/base64"
	"strings"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"
)

// namespacedXR turns an example composite into the namespaced SCSCluster of the Crossplane
// v2 flavour that the claim it came from would be: the claim's name and namespace, the same
// spec, and the kubeconfig Secret named in spec.writeConnectionSecretToRef.
func namespacedXR(t testing.TB, path string) map[string]any {
	t.Helper()
	xr := deepCopy(readObject(t, path))
	labels := xr["metadata"].(map[string]any)["labels"].(map[string]any)
	xr["kind"] = "SCSCluster"
	xr["metadata"] = map[string]any{"name": labels["crossplane.io/claim-name"], "namespace": labels["crossplane.io/claim-namespace"]}
	xr["spec"].(map[string]any)["writeConnectionSecretToRef"] = map[string]any{"name": "shop-kubeconfig"}
	return xr
}

// inNamespace turns an observed composed resource of the legacy flavour into what the
// namespaced flavour observes: the Crossplane v2 kind of the same provider, in the
// composite's namespace.
func inNamespace(obj map[string]any) map[string]any {
	o := deepCopy(obj)
	for legacy, namespaced := range map[string]string{
		"kubernetes.crossplane.io/v1alpha2":               "kubernetes.m.crossplane.io/v1alpha1",
		"gardener.kaas.scs.community/v1alpha1":            "gardener.m.kaas.scs.community/v1alpha1",
		"containerinfra.openstack.crossplane.io/v1alpha1": "containerinfra.openstack.m.crossplane.io/v1alpha1",
	} {
		if o["apiVersion"] == legacy {
			o["apiVersion"] = namespaced
		}
	}
	o["metadata"].(map[string]any)["namespace"] = "team1"
	return o
}

// TestNamespacedFlavour renders the examples as namespaced composites: only namespaced
// resources, in the composite's namespace (provider-kubernetes' and provider-openstack's v2
// kinds, the namespaced AdminKubeconfig, a local Cluster API Cluster that refers to its
// ClusterClass across namespaces), the kubeconfig as a composed Secret, and the same names
// in the backend as the claim of the legacy flavour gets.
func TestNamespacedFlavour(t *testing.T) {
	envs := readDir(t, exampleEnvironments)
	capi := func(xr map[string]any, kubeconfig []map[string]any, observed ...map[string]any) *fnv1.RunFunctionRequest {
		req := withRequired(t, requestFor(t, xr, envs, observed...), "clusterstack-releases", readObjects(t, exampleCAPIReleases))
		return withRequired(t, req, "clusterstack-kubeconfig", kubeconfig)
	}
	remote := namespacedXR(t, exampleCAPIXR)
	remote["spec"].(map[string]any)["environment"] = "clusterstack-remote"
	var gardenerObserved []map[string]any
	for _, o := range readObjects(t, exampleObservedReady) {
		gardenerObserved = append(gardenerObserved, inNamespace(o))
	}
	ready := withConnectionSecret(t, requestFor(t, namespacedXR(t, exampleXR), envs, gardenerObserved...), "gardener-kubeconfig", exampleKubeconfig)
	kubeconfig := readObjects(t, exampleCAPIKubeconfig)
	kubeconfig[0]["metadata"].(map[string]any)["namespace"] = "team1"
	capiReady := readObject(t, exampleCAPIObservedReady)
	capiReady["metadata"].(map[string]any)["namespace"] = "team1"

	cases := map[string]*fnv1.RunFunctionRequest{
		// New clusters once their natives were looked for and found nowhere.
		"namespaced-gardener-create":     lookedOut(t, requestFor(t, namespacedXR(t, exampleXR), envs)),
		"namespaced-gardener-ready":      ready,
		"namespaced-clusterstack-create": lookedOut(t, capi(namespacedXR(t, exampleCAPIXR), nil)),
		"namespaced-clusterstack-ready":  capi(namespacedXR(t, exampleCAPIXR), kubeconfig, capiReady),
		"namespaced-clusterstack-remote": lookedOut(t, withRequired(t, requestFor(t, remote, envs), "clusterstack-releases", remoteReleases(t))),
		"namespaced-magnum-create":       requestFor(t, namespacedXR(t, exampleMagnumXR), envs),
	}
	for name, req := range cases {
		t.Run(name, func(t *testing.T) {
			rsp := run(t, req)
			for _, r := range rsp.GetResults() {
				if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
					t.Fatalf("refused: %s", r.GetMessage())
				}
			}
			for rn, r := range rsp.GetDesired().GetResources() {
				meta := r.GetResource().GetFields()["metadata"].GetStructValue().GetFields()
				if ns := meta["namespace"].GetStringValue(); ns != "team1" {
					t.Errorf("%s is composed in namespace %q, want the composite's, team1", rn, ns)
				}
			}
			if len(rsp.GetDesired().GetComposite().GetConnectionDetails()) > 0 {
				t.Error("a namespaced composite got connection details, which Crossplane drops")
			}
			if got := nativeName(t, rsp); got != "shop-6bru6k" {
				t.Errorf("the cluster is %q in the backend, want shop-6bru6k as for the legacy claim team1/shop", got)
			}
			compareGolden(t, name, rsp)
		})
	}

	// The kubeconfig Secret carries what the backend delivered, and is ready only then.
	secret := run(t, ready).GetDesired().GetResources()["kubeconfig-secret"]
	data := secret.GetResource().GetFields()["data"].GetStructValue().GetFields()
	kc, _ := base64.StdEncoding.DecodeString(data["kubeconfig"].GetStringValue())
	if !strings.Contains(string(kc), "https://api.shop-6bru6k.team1.gardener.example.com") || secret.GetReady() != fnv1.Ready_READY_TRUE {
		t.Errorf("kubeconfig Secret: ready %v, kubeconfig for another server or none", secret.GetReady())
	}
	createdRsp, _ := runNew(t, requestFor(t, namespacedXR(t, exampleXR), envs))
	created := createdRsp.GetDesired().GetResources()["kubeconfig-secret"]
	if created.GetReady() == fnv1.Ready_READY_TRUE {
		t.Error("the kubeconfig Secret is ready before the backend delivered a kubeconfig")
	}
}

// TestNamespacedCompositeAndALocalGarden: a namespaced composite composes only in its own
// namespace, so an environment whose Shoots are composed locally in the project's namespace
// is refused for it, saying what to do.
func TestNamespacedCompositeAndALocalGarden(t *testing.T) {
	var envs []map[string]any
	for _, e := range readDir(t, exampleEnvironments) {
		if e["metadata"].(map[string]any)["name"] == "gardener-regionone" {
			e = deepCopy(e)
			e["data"].(map[string]any)["gardener"].(map[string]any)["gardenCluster"] = "local"
		}
		envs = append(envs, e)
	}
	got := run(t, lookedOut(t, withPreviousStep(requestFor(t, namespacedXR(t, exampleXR), envs))))
	want := refused("InvalidSpec", `XSCSCluster "shop" is invalid (1 problem): data.gardener.gardenCluster: Forbidden: environment gardener-regionone composes Shoots in the garden Crossplane runs in (local), where they live in the project's namespace garden-team1; a namespaced SCSCluster composes only in its own namespace team1: name a provider-kubernetes ClusterProviderConfig of the garden in gardenCluster, or create the SCSCluster in garden-team1`)
	if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
		t.Errorf("RunFunction: -want, +got:\n%s", diff)
	}
}
