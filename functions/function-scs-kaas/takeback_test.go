package main

import (
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/proto"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// The tests of this file take things away from Ready clusters of every backend and both
// flavours, as a running control plane does: a provider that restarts and has not reported
// its objects yet, a connection secret not read, an environment whose placement a platform
// team edits, a composed resource an older version of the function left. Nothing delivered
// may be taken back, and nothing that holds a cluster may move or go without a Fatal
// result (checkNothingTakenBack).

// readyCluster is a Ready cluster as Crossplane observes it after the function has run:
// its native objects reported, its kubeconfig delivered (the namespaced composite's Secret,
// the legacy composite's connection details) and its status written back, with the
// placement it keeps.
type readyCluster struct {
	name, environment string
	req               *fnv1.RunFunctionRequest
	// kubeconfigFrom is where the backend's kubeconfig comes from: the observed resource
	// whose connection details carry it, or the required resource that holds it.
	kubeconfigFrom, kubeconfigRequired string
}

func readyClusters(t testing.TB) []readyCluster {
	t.Helper()
	envs := readDir(t, exampleEnvironments)
	namespaced := func(objs []map[string]any) []map[string]any {
		out := make([]map[string]any, 0, len(objs))
		for _, o := range objs {
			out = append(out, inNamespace(o))
		}
		return out
	}
	gardenerReq := func(xr map[string]any, observed []map[string]any) *fnv1.RunFunctionRequest {
		return withConnectionSecret(t, requestFor(t, xr, envs, observed...), "gardener-kubeconfig", exampleKubeconfig)
	}
	capiReq := func(xr map[string]any, namespace string) *fnv1.RunFunctionRequest {
		cluster := readObject(t, exampleCAPIObservedReady)
		kubeconfig := readObjects(t, exampleCAPIKubeconfig)
		if namespace != "" {
			cluster["metadata"].(map[string]any)["namespace"] = namespace
			kubeconfig[0]["metadata"].(map[string]any)["namespace"] = namespace
		}
		req := withRequired(t, requestFor(t, xr, envs, cluster), "clusterstack-releases", readObjects(t, exampleCAPIReleases))
		req = withRequired(t, req, "clusterstack-kubeconfig", kubeconfig)
		// The example shows only part of the Cluster: the one observed is what the
		// function desires, as Crossplane applied it, with the example's status.
		applied := lastApplied(t, run(t, req).GetDesired().GetResources()["clusterstack-cluster"], "clusterstack-cluster")
		applied["status"], applied["metadata"].(map[string]any)["generation"] = cluster["status"], cluster["metadata"].(map[string]any)["generation"]
		req.GetObserved().GetResources()["clusterstack-cluster"] = &fnv1.Resource{Resource: mustStruct(t, applied)}
		return req
	}
	magnumReq := func(xr map[string]any, observed []map[string]any) *fnv1.RunFunctionRequest {
		return withConnectionSecret(t, requestFor(t, xr, envs, observed...), "magnum-cluster", exampleMagnumSecret)
	}
	remote := func(xr map[string]any) map[string]any {
		xr["spec"].(map[string]any)["environment"] = "clusterstack-remote"
		return xr
	}
	cases := []readyCluster{
		{name: "gardener/legacy", environment: "gardener-regionone", kubeconfigFrom: "gardener-kubeconfig",
			req: gardenerReq(readObject(t, exampleXR), readObjects(t, exampleObservedReady))},
		{name: "gardener/namespaced", environment: "gardener-regionone", kubeconfigFrom: "gardener-kubeconfig",
			req: gardenerReq(namespacedXR(t, exampleXR), namespaced(readObjects(t, exampleObservedReady)))},
		{name: "clusterstack/legacy", environment: "clusterstack-regionone", kubeconfigRequired: "clusterstack-kubeconfig",
			req: capiReq(readObject(t, exampleCAPIXR), "")},
		{name: "clusterstack/namespaced", environment: "clusterstack-regionone", kubeconfigRequired: "clusterstack-kubeconfig",
			req: capiReq(namespacedXR(t, exampleCAPIXR), "team1")},
		{name: "clusterstack-remote/legacy", environment: "clusterstack-remote", kubeconfigFrom: "clusterstack-kubeconfig",
			req: remoteClusterStackReady(t, remote(deepCopy(readObject(t, exampleCAPIXR))), envs)},
		{name: "clusterstack-remote/namespaced", environment: "clusterstack-remote", kubeconfigFrom: "clusterstack-kubeconfig",
			req: remoteClusterStackReady(t, remote(namespacedXR(t, exampleCAPIXR)), envs)},
		{name: "magnum/legacy", environment: "magnum-regionone", kubeconfigFrom: "magnum-cluster",
			req: magnumReq(readObject(t, exampleMagnumXR), readObjects(t, exampleMagnumObservedReady))},
		{name: "magnum/namespaced", environment: "magnum-regionone", kubeconfigFrom: "magnum-cluster",
			req: magnumReq(namespacedXR(t, exampleMagnumXR), namespaced(readObjects(t, exampleMagnumObservedReady)))},
		// With add-ons installed and registered for Argo CD, in both flavours.
		{name: "gardener/legacy+addons", environment: "gardener-regionone", kubeconfigFrom: "gardener-kubeconfig",
			req: withConnectionSecret(t, requestFor(t, withConnectionSecretRef(readObject(t, exampleXR)), withAddons(envs, "gardener-regionone"),
				readObjects(t, exampleObservedReady)...), "gardener-kubeconfig", exampleKubeconfig)},
		{name: "magnum/namespaced+addons", environment: "magnum-regionone", kubeconfigFrom: "magnum-cluster",
			req: withConnectionSecret(t, requestFor(t, namespacedXR(t, exampleMagnumXR), withAddons(envs, "magnum-regionone"),
				namespaced(readObjects(t, exampleMagnumObservedReady))...), "magnum-cluster", exampleMagnumSecret)},
	}
	for i := range cases {
		cases[i].req = settle(t, cases[i].name, cases[i].req)
	}
	return cases
}

// remoteClusterStackReady is a Ready Cluster on a remote management cluster: what the
// function desires for a new cluster, observed as provider-kubernetes reports it once the
// Cluster is available and its kubeconfig Secret is read.
func remoteClusterStackReady(t testing.TB, xr map[string]any, envs []map[string]any) *fnv1.RunFunctionRequest {
	t.Helper()
	created, _ := runNew(t, withRequired(t, requestFor(t, xr, envs), "clusterstack-releases", remoteReleases(t)))
	cluster := readObject(t, exampleCAPIObservedReady)
	delete(cluster["metadata"].(map[string]any), "annotations")
	var observed []map[string]any
	for name, r := range created.GetDesired().GetResources() {
		if name == model.ResourceKubeconfigSecret {
			continue
		}
		o := lastApplied(t, r, name)
		switch name {
		case "clusterstack-cluster":
			// The Cluster as applied, with the example's status.
			manifest := deepCopy(o["spec"].(map[string]any)["forProvider"].(map[string]any)["manifest"].(map[string]any))
			manifest["status"] = cluster["status"]
			o["status"] = map[string]any{"atProvider": map[string]any{"manifest": manifest}}
		case "clusterstack-kubeconfig":
			o["status"] = map[string]any{"atProvider": map[string]any{"manifest": map[string]any{"apiVersion": "v1", "kind": "Secret",
				"metadata": map[string]any{"name": "shop-6bru6k-kubeconfig", "namespace": "kaas-team1"}, "data": map[string]any{"redacted": nil}}}}
		}
		observed = append(observed, o)
	}
	req := withRequired(t, requestFor(t, xr, envs, observed...), "clusterstack-releases", remoteReleases(t))
	kubeconfig := readObject(t, exampleCAPIKubeconfig)["data"].(map[string]any)["value"].(string)
	raw, err := base64.StdEncoding.DecodeString(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	req.GetObserved().GetResources()["clusterstack-kubeconfig"].ConnectionDetails = map[string][]byte{model.ConnectionKeyKubeconfig: raw}
	return req
}

// withAddons gives an environment an add-on catalog (an enforced add-on from an OCI
// artifact, a default one from the platform's own source) and Argo CD registration.
func withAddons(envs []map[string]any, name string) []map[string]any {
	out := make([]map[string]any, 0, len(envs))
	for _, e := range envs {
		e = deepCopy(e)
		if e["metadata"].(map[string]any)["name"] == name {
			data := e["data"].(map[string]any)
			data["addons"] = []any{
				map[string]any{"name": "hello", "enforced": true, "source": map[string]any{"oci": map[string]any{"url": "oci://registry.example/addons/hello", "tag": "1"}}},
				map[string]any{"name": "web", "default": true, "dependsOn": []any{"hello"},
					"source": map[string]any{"sourceRef": map[string]any{"kind": "OCIRepository", "name": "web", "namespace": "flux-system"}}},
			}
			data["argoCD"] = map[string]any{"namespace": "argocd"}
		}
		out = append(out, e)
	}
	return out
}

// withConnectionSecretRef gives a legacy composite the connection secret its claim names,
// which add-ons need.
func withConnectionSecretRef(xr map[string]any) map[string]any {
	xr["spec"].(map[string]any)["writeConnectionSecretToRef"] = map[string]any{"name": "shop-kubeconfig", "namespace": "crossplane-system"}
	return xr
}

// observedAddon is a desired add-on object or registration as Crossplane observes it once
// applied: Flux's Kustomization applied and Ready.
func observedAddon(t testing.TB, desired *fnv1.Resource, name string) map[string]any {
	t.Helper()
	o := lastApplied(t, desired, name)
	if o["kind"] == "Kustomization" {
		o["status"] = map[string]any{"lastAppliedRevision": "1@sha256:1",
			"conditions": []any{map[string]any{"type": "Ready", "status": "True", "reason": "ReconciliationSucceeded"}}}
	}
	return o
}

// settle runs req and returns it as Crossplane sends it next: with the status the function
// wrote, and what was delivered (the kubeconfig Secret observed with its data, or the
// composite's connection details). The cluster must be Ready with its kubeconfig: a state
// the function refuses proves nothing.
func settle(t testing.TB, name string, req *fnv1.RunFunctionRequest) *fnv1.RunFunctionRequest {
	t.Helper()
	req = proto.Clone(req).(*fnv1.RunFunctionRequest)
	rsp := run(t, req)
	if r := fatalResult(rsp); r != nil {
		t.Fatalf("%s: the ready cluster is refused: %s", name, r.GetMessage())
	}
	xr := req.GetObserved().GetComposite()
	xr.GetResource().GetFields()["status"] = rsp.GetDesired().GetComposite().GetResource().GetFields()["status"]
	xr.ConnectionDetails = rsp.GetDesired().GetComposite().GetConnectionDetails()
	if secret, ok := rsp.GetDesired().GetResources()[model.ResourceKubeconfigSecret]; ok {
		req.GetObserved().GetResources()[model.ResourceKubeconfigSecret] = &fnv1.Resource{Resource: mustStruct(t, lastApplied(t, secret, model.ResourceKubeconfigSecret))}
	}
	// The add-ons' Flux objects and the Argo CD registration, applied.
	for name, d := range rsp.GetDesired().GetResources() {
		if strings.HasPrefix(name, "addon-") || strings.HasPrefix(name, "registration-") {
			req.GetObserved().GetResources()[name] = &fnv1.Resource{Resource: mustStruct(t, observedAddon(t, d, name))}
		}
	}
	if c := responseCondition(rsp, kaasv1alpha1.ConditionKubeconfigReady); c.GetReason() != kaasv1alpha1.ReasonKubeconfigDelivered {
		t.Fatalf("%s: the ready cluster's kubeconfig is not delivered: %v", name, c)
	}
	if phase := statusField(rsp, "phase"); phase != string(kaasv1alpha1.PhaseReady) {
		t.Fatalf("%s: the ready cluster is %s", name, phase)
	}
	return req
}

// TestPartialObservationTakesNothingBack: any observed resource without its provider's
// report (status.atProvider), without any status, or without its connection details, and
// the kubeconfig Secret a local Cluster API Cluster has not read, take no data key from the
// kubeconfig Secret or the composite's connection details, and KubeconfigReady says Stale
// rather than Delivered while the backend shows no kubeconfig.
func TestPartialObservationTakesNothingBack(t *testing.T) {
	for _, c := range readyClusters(t) {
		type variant struct {
			name string
			edit func(*fnv1.RunFunctionRequest)
			// staleKubeconfig: the backend shows no kubeconfig in this variant.
			staleKubeconfig bool
		}
		var variants []variant
		for _, name := range slices.Sorted(maps.Keys(c.req.GetObserved().GetResources())) {
			if name == model.ResourceKubeconfigSecret {
				continue
			}
			variants = append(variants,
				variant{name: name + " without atProvider", edit: func(r *fnv1.RunFunctionRequest) {
					if st := r.GetObserved().GetResources()[name].GetResource().GetFields()["status"].GetStructValue(); st != nil {
						delete(st.GetFields(), "atProvider")
					}
				}},
				variant{name: name + " without status", edit: func(r *fnv1.RunFunctionRequest) {
					delete(r.GetObserved().GetResources()[name].GetResource().GetFields(), "status")
				}},
				variant{name: name + " without connection details", staleKubeconfig: name == c.kubeconfigFrom, edit: func(r *fnv1.RunFunctionRequest) {
					r.GetObserved().GetResources()[name].ConnectionDetails = nil
				}})
		}
		if c.kubeconfigRequired != "" {
			variants = append(variants, variant{name: "kubeconfig Secret not read", staleKubeconfig: true, edit: func(r *fnv1.RunFunctionRequest) {
				r.GetRequiredResources()[c.kubeconfigRequired] = &fnv1.Resources{}
			}})
		}
		for _, v := range variants {
			t.Run(c.name+"/"+v.name, func(t *testing.T) {
				req := proto.Clone(c.req).(*fnv1.RunFunctionRequest)
				v.edit(req)
				rsp := run(t, req)
				if r := fatalResult(rsp); r != nil {
					t.Fatalf("refused: %s", r.GetMessage())
				}
				checkNothingTakenBack(t, req, rsp)
				got := responseCondition(rsp, kaasv1alpha1.ConditionKubeconfigReady)
				if v.staleKubeconfig && (got.GetStatus() != fnv1.Status_STATUS_CONDITION_UNKNOWN || got.GetReason() != kaasv1alpha1.ReasonKubeconfigStale) {
					t.Errorf("KubeconfigReady = %s/%s (%s), want Unknown/Stale: the backend shows no kubeconfig now", got.GetStatus(), got.GetReason(), got.GetMessage())
				}
			})
		}
	}
}

// placementEdits are edits of every setting that decides where an example environment's
// clusters live.
var placementEdits = map[string]map[string]any{
	"gardener-regionone": {"region": "RegionTwo", "gardener.gardenCluster": "other-garden", "gardener.project": "team9",
		"gardener.namespace": "garden-other", "gardener.adminKubeconfig.providerConfigName": "other-kubeconfig"},
	"clusterstack-regionone": {"region": "RegionTwo", "clusterStack.managementCluster": "other-mgmt", "clusterStack.namespace": "other-ns"},
	"clusterstack-remote":    {"region": "RegionTwo", "clusterStack.managementCluster": "other-mgmt", "clusterStack.namespace": "other-ns"},
	"magnum-regionone":       {"region": "RegionTwo", "magnum.providerConfigName": "other-cloud"},
}

// editEnvironment sets a setting (a path under data) of one environment of the request.
func editEnvironment(t *testing.T, req *fnv1.RunFunctionRequest, env, path string, value any) {
	t.Helper()
	for _, item := range req.GetRequiredResources()["environments"].GetItems() {
		e := item.GetResource().AsMap()
		if e["metadata"].(map[string]any)["name"] != env {
			continue
		}
		if err := unstructured.SetNestedField(e, value, append([]string{"data"}, strings.Split(path, ".")...)...); err != nil {
			t.Fatal(err)
		}
		item.Resource = mustStruct(t, e)
		return
	}
	t.Fatalf("no environment %s in the request", env)
}

// TestPlacementEditsMoveNothing: an edit of an environment setting that decides where a
// cluster's resources live applies to new clusters. An existing cluster keeps its own
// (status.backend.placement), whether or not its native object is observed right now,
// renders unrefused, and says so in EnvironmentUpToDate. Magnum's ClusterV1 re-pointed to
// another ProviderConfig, or an AdminKubeconfig, an observe-only Object or a collection
// re-pointed to another garden or management cluster, is another cluster there.
func TestPlacementEditsMoveNothing(t *testing.T) {
	for _, c := range readyClusters(t) {
		for _, path := range slices.Sorted(maps.Keys(placementEdits[c.environment])) {
			for _, unobserved := range []bool{false, true} {
				name := c.name + "/" + path
				if unobserved {
					name += "/native object not reported"
				}
				t.Run(name, func(t *testing.T) {
					req := proto.Clone(c.req).(*fnv1.RunFunctionRequest)
					editEnvironment(t, req, c.environment, path, placementEdits[c.environment][path])
					if unobserved {
						for _, r := range req.GetObserved().GetResources() {
							if st := r.GetResource().GetFields()["status"].GetStructValue(); st != nil {
								delete(st.GetFields(), "atProvider")
							}
						}
					}
					rsp := run(t, req)
					if r := fatalResult(rsp); r != nil {
						t.Fatalf("refused: %s", r.GetMessage())
					}
					checkNothingTakenBack(t, req, rsp)
					got := responseCondition(rsp, kaasv1alpha1.ConditionEnvironmentUpToDate)
					if got.GetStatus() != fnv1.Status_STATUS_CONDITION_FALSE || !strings.Contains(got.GetMessage(), "data."+path+": the cluster stays on") {
						t.Errorf("EnvironmentUpToDate = %s/%s %q, want False naming data.%s", got.GetStatus(), got.GetReason(), got.GetMessage(), path)
					}
				})
			}
		}
	}
}

// TestPlacementEditsOfAClusterWithoutARecord: a cluster whose status lost its record of the
// placement (a backup restored without status, a composite recreated) takes the
// environment as it is; where that would move an existing resource, the function refuses,
// naming the setting to restore.
func TestPlacementEditsOfAClusterWithoutARecord(t *testing.T) {
	for _, c := range readyClusters(t) {
		if c.name != "magnum/legacy" && c.name != "clusterstack-remote/namespaced" {
			continue
		}
		path := map[string]string{"magnum/legacy": "magnum.providerConfigName", "clusterstack-remote/namespaced": "clusterStack.managementCluster"}[c.name]
		t.Run(c.name, func(t *testing.T) {
			req := proto.Clone(c.req).(*fnv1.RunFunctionRequest)
			editEnvironment(t, req, c.environment, path, placementEdits[c.environment][path])
			backend := req.GetObserved().GetComposite().GetResource().GetFields()["status"].GetStructValue().GetFields()["backend"].GetStructValue()
			delete(backend.GetFields(), "pinned")
			delete(backend.GetFields(), "placement")
			rsp := run(t, req)
			r := fatalResult(rsp)
			if r == nil || !strings.Contains(r.GetMessage(), "restore data."+path) {
				t.Fatalf("want a refusal naming data.%s, got %v", path, r)
			}
			if !proto.Equal(req.GetDesired(), rsp.GetDesired()) {
				t.Error("a refusal changed the desired state")
			}
		})
	}
}

// TestUnknownComposedResourcesAreKept: a composed resource under a name the function does
// not render (an older version's, a renamed key) that can hold a cluster or its
// credentials is desired as it was last applied, with a Warning naming it; others go, as
// a change of the composition intends.
func TestUnknownComposedResourcesAreKept(t *testing.T) {
	for _, c := range readyClusters(t) {
		t.Run(c.name, func(t *testing.T) {
			req := proto.Clone(c.req).(*fnv1.RunFunctionRequest)
			var kept, gone []string
			for name, r := range c.req.GetObserved().GetResources() {
				old := "v0-" + name
				req.GetObserved().GetResources()[old] = proto.Clone(r).(*fnv1.Resource)
				if mustKeep(&unstructured.Unstructured{Object: r.GetResource().AsMap()}) {
					kept = append(kept, old)
				} else {
					gone = append(gone, old)
				}
			}
			// One of every kind that must be kept, whatever the cluster's backend composes.
			for i, gvk := range []string{"core.gardener.cloud/v1beta1 Shoot", "cluster.x-k8s.io/v1beta2 Cluster",
				"infrastructure.cluster.x-k8s.io/v1beta1 OpenStackCluster", "containerinfra.openstack.crossplane.io/v1alpha1 NodegroupV1",
				"gardener.kaas.scs.community/v1alpha1 AdminKubeconfig", "v1 Secret"} {
				apiVersion, kind, _ := strings.Cut(gvk, " ")
				name := fmt.Sprintf("v0-%d", i)
				req.GetObserved().GetResources()[name] = &fnv1.Resource{Resource: mustStruct(t, map[string]any{
					"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": "old", "namespace": "team1"}, "spec": map[string]any{"was": "applied"}})}
				kept = append(kept, name)
			}
			req.GetObserved().GetResources()["v0-settings"] = &fnv1.Resource{Resource: mustStruct(t, map[string]any{
				"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "settings", "namespace": "team1"}})}
			gone = append(gone, "v0-settings")
			rsp := run(t, req)
			if r := fatalResult(rsp); r != nil {
				t.Fatalf("refused: %s", r.GetMessage())
			}
			checkNothingTakenBack(t, req, rsp)
			for _, name := range gone {
				if _, ok := rsp.GetDesired().GetResources()[name]; ok {
					t.Errorf("%s, which holds no cluster and nothing renders, is kept; it should go as the composition intends", name)
				}
			}
			var warned []string
			for _, r := range rsp.GetResults() {
				if r.GetSeverity() == fnv1.Severity_SEVERITY_WARNING && r.GetReason() == kaasv1alpha1.ReasonUnknownResourceKept {
					warned = append(warned, strings.Fields(r.GetMessage())[2])
				}
			}
			sort.Strings(kept)
			sort.Strings(warned)
			if strings.Join(kept, ",") != strings.Join(warned, ",") {
				t.Errorf("warned of %v, want of every kept resource %v", warned, kept)
			}
			for _, name := range kept {
				for _, f := range []string{"spec", "data"} {
					want := req.GetObserved().GetResources()[name].GetResource().GetFields()[f]
					if got := rsp.GetDesired().GetResources()[name].GetResource().GetFields()[f]; !proto.Equal(want, got) {
						t.Errorf("%s is not desired as it was last applied: its %s differs", name, f)
					}
				}
			}
		})
	}
}

// checkNothingTakenBack checks the promises that keep a running cluster and its users'
// credentials, for a response that is not a Fatal result (a Fatal result changes nothing):
//
//   - every observed resource that can hold a cluster or its credentials is desired again,
//     but the node groups of a pool the spec removed and the kubeconfig Secret of a
//     namespaced composite that asks for none any more;
//   - none changes identity: apiVersion, kind, namespace, name, ProviderConfig, or the
//     object a provider-kubernetes Object manages or a collection observes (the kubeconfig
//     Secret may take the name the composite asks for);
//   - a desired Secret keeps every data key it has, and the composite's connection details
//     every key of the kubeconfig contract they have.
//
// Messages name resources and keys, never values: they may be credentials.
func checkNothingTakenBack(t testing.TB, req *fnv1.RunFunctionRequest, rsp *fnv1.RunFunctionResponse) {
	t.Helper()
	if fatalResult(rsp) != nil || rsp.GetDesired().GetComposite() == nil {
		return
	}
	xr := req.GetObserved().GetComposite().GetResource().AsMap()
	secretName, _, _ := unstructured.NestedString(xr, "spec", "writeConnectionSecretToRef", "name")
	pools := map[string]bool{}
	list, _, _ := unstructured.NestedFieldNoCopy(xr, "spec", "nodePools")
	ps, _ := list.([]any)
	for _, p := range ps {
		if p, ok := p.(map[string]any); ok {
			if n, ok := p["name"].(string); ok {
				pools[n] = true
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(req.GetObserved().GetResources())) {
		o := &unstructured.Unstructured{Object: req.GetObserved().GetResources()[name].GetResource().AsMap()}
		d, desired := rsp.GetDesired().GetResources()[name]
		if !desired {
			// An installed add-on goes only as the last step of its team's opt-out: once Flux
			// has seen its Kustomization's deletionPolicy turn to Delete, so that it prunes.
			if addon, ok := strings.CutPrefix(name, "addon-kustomization-"); ok {
				policy, _, _ := unstructured.NestedString(o.Object, "spec", "deletionPolicy")
				if disable, _, _ := unstructured.NestedStringSlice(xr, "spec", "addons", "disable"); !slices.Contains(disable, addon) || policy != "Delete" {
					t.Fatalf("observed %s (add-on %s, deletionPolicy %q) left the desired state without its team's opt-out: Crossplane would delete it, and the add-on would leave the cluster's management", name, addon, policy)
				}
			}
			removedPool := o.GetLabels()[model.LabelNodePool] != "" && !pools[o.GetLabels()[model.LabelNodePool]]
			unwanted := name == model.ResourceKubeconfigSecret && secretName == ""
			if mustKeep(o) && !removedPool && !unwanted {
				t.Fatalf("observed %s (%s %s) can hold a cluster or its credentials and left the desired state without a Fatal result: Crossplane would delete it", name, o.GetKind(), o.GetName())
			}
			continue
		}
		u := &unstructured.Unstructured{Object: d.GetResource().AsMap()}
		for _, p := range identityOf(o) {
			now := p.get(u)
			if p.was == "" || now == "" || p.was == now || (name == model.ResourceKubeconfigSecret && p.what == "name" && now == secretName) {
				continue
			}
			t.Fatalf("desired %s changes its %s: Crossplane would replace what it holds", name, p.what)
		}
		if o.GetAPIVersion() == "v1" && o.GetKind() == "Secret" {
			had, _, _ := unstructured.NestedMap(o.Object, "data")
			has, _, _ := unstructured.NestedMap(u.Object, "data")
			for k, v := range had {
				if v != nil && v != "" && (has[k] == nil || has[k] == "") {
					t.Fatalf("desired Secret %s loses its data key %s", name, k)
				}
			}
		}
	}
	for k, v := range req.GetObserved().GetComposite().GetConnectionDetails() {
		if len(v) > 0 && slices.Contains([]string{model.ConnectionKeyKubeconfig, model.ConnectionKeyEndpoint, model.ConnectionKeyCA}, k) &&
			len(rsp.GetDesired().GetComposite().GetConnectionDetails()[k]) == 0 {
			t.Fatalf("the composite's connection details lose %s", k)
		}
	}
}

// mustKeep says whether o can hold a cluster or its credentials, so that dropping it from
// the desired state would delete one: the kinds are written out here, not asked of the code
// under test. Shoots, provider-kubernetes Objects, every object of a Cluster API group,
// provider-openstack's Magnum kinds, AdminKubeconfigs and Secrets.
func mustKeep(o *unstructured.Unstructured) bool {
	gvk := o.GroupVersionKind()
	switch {
	case gvk.Group == "core.gardener.cloud" && gvk.Kind == "Shoot",
		(gvk.Group == "kubernetes.crossplane.io" || gvk.Group == "kubernetes.m.crossplane.io") && gvk.Kind == "Object",
		gvk.Group == "cluster.x-k8s.io" || strings.HasSuffix(gvk.Group, ".cluster.x-k8s.io"),
		(gvk.Group == "containerinfra.openstack.crossplane.io" || gvk.Group == "containerinfra.openstack.m.crossplane.io") &&
			(gvk.Kind == "ClusterV1" || gvk.Kind == "NodegroupV1"),
		(gvk.Group == "gardener.kaas.scs.community" || gvk.Group == "gardener.m.kaas.scs.community") && gvk.Kind == "AdminKubeconfig",
		gvk.Group == "" && gvk.Kind == "Secret":
		return true
	}
	return false
}

type identityValue struct {
	what, was string
	get       func(*unstructured.Unstructured) string
}

// identityOf lists what makes o the object it is, each with how to read it from another.
func identityOf(o *unstructured.Unstructured) []identityValue {
	str := func(path ...string) func(*unstructured.Unstructured) string {
		return func(u *unstructured.Unstructured) string {
			v, _, _ := unstructured.NestedFieldNoCopy(u.Object, path...)
			s, _ := v.(string)
			return s
		}
	}
	parts := map[string]func(*unstructured.Unstructured) string{
		"apiVersion": str("apiVersion"), "kind": str("kind"), "namespace": str("metadata", "namespace"), "name": str("metadata", "name"),
		"ProviderConfig": str("spec", "providerConfigRef", "name"), "ProviderConfig kind": str("spec", "providerConfigRef", "kind"),
	}
	for _, f := range []string{"apiVersion", "kind"} {
		parts["manifest "+f] = str("spec", "forProvider", "manifest", f)
		parts["observed objects' "+f] = str("spec", "observeObjects", f)
	}
	parts["manifest namespace"] = str("spec", "forProvider", "manifest", "metadata", "namespace")
	parts["manifest name"] = str("spec", "forProvider", "manifest", "metadata", "name")
	parts["observed objects' namespace"] = str("spec", "observeObjects", "namespace")
	out := make([]identityValue, 0, len(parts))
	for _, what := range slices.Sorted(maps.Keys(parts)) {
		out = append(out, identityValue{what: what, was: parts[what](o), get: parts[what]})
	}
	return out
}

func fatalResult(rsp *fnv1.RunFunctionResponse) *fnv1.Result {
	for _, r := range rsp.GetResults() {
		if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
			return r
		}
	}
	return nil
}

// responseCondition is the last condition of a type in a response: the one Crossplane keeps.
func responseCondition(rsp *fnv1.RunFunctionResponse, typ string) *fnv1.Condition {
	var out *fnv1.Condition
	for _, c := range rsp.GetConditions() {
		if c.GetType() == typ {
			out = c
		}
	}
	return out
}

func statusField(rsp *fnv1.RunFunctionResponse, field string) string {
	return rsp.GetDesired().GetComposite().GetResource().GetFields()["status"].GetStructValue().GetFields()[field].GetStringValue()
}
