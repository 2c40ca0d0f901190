package model

import (
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// addonCatalog: an enforced add-on from an OCI artifact, a default one from Git that depends
// on it, and an optional one.
func addonCatalog() []any {
	return []any{
		map[string]any{"name": "base", "enforced": true, "namespace": "platform",
			"source":     map[string]any{"oci": map[string]any{"url": "oci://registry.example/addons/base", "digest": "sha256:abc", "caSecretRef": "registry-ca"}, "secretRef": "registry-pull"},
			"substitute": map[string]any{"cluster_name": "clusterName", "team": "namespace"}},
		map[string]any{"name": "monitoring", "default": true, "dependsOn": []any{"base"},
			"source": map[string]any{"git": map[string]any{"url": "https://git.example/addons.git", "tag": "v1.2.0"}, "path": "monitoring"}},
		map[string]any{"name": "extra", "source": map[string]any{"oci": map[string]any{"url": "oci://registry.example/addons/extra", "tag": "1.0"}}},
	}
}

func addonEnvironments(catalog []any) map[string][]*unstructured.Unstructured {
	return map[string][]*unstructured.Unstructured{EnvironmentsRequirement: {environmentConfig("cfg",
		map[string]string{"kaas.scs.community/environment": "regionone", "kaas.scs.community/default": "true"},
		map[string]any{
			"backend": "fake", "region": "RegionOne", "addons": catalog,
			"access":  map[string]any{"namespaces": []any{"team-a"}},
			"catalog": map[string]any{"kubernetesVersions": []any{"1.34"}, "zones": []any{"az1"}},
		})},
		// Looked for before it is managed: not there.
		LookupRequirementPrefix + "fake-cluster": nil}
}

// namespacedCluster is team-a's cluster demo, whose kubeconfig goes to Secret demo-kubeconfig.
func namespacedCluster(addons *kaasv1alpha1.AddonsSpec) *kaasv1alpha1.XSCSCluster {
	xr := testCluster()
	xr.Namespace = "team-a"
	xr.Spec.Addons = addons
	return xr
}

// kustomization is an observed add-on Kustomization with its deletion policy and Ready.
func kustomization(name, policy, ready, reason string) ObservedResource {
	return ObservedResource{Object: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": FluxKustomizeAPIVersion, "kind": "Kustomization",
		"metadata": map[string]any{"name": "demo-dfqog7-" + name, "namespace": "team-a", "uid": "u1", "resourceVersion": "7"},
		"spec":     map[string]any{"deletionPolicy": policy, "prune": true},
		"status": map[string]any{"lastAppliedRevision": "v1@sha256:1",
			"conditions": []any{map[string]any{"type": "Ready", "status": ready, "reason": reason, "message": "flux says " + reason}}},
	}}}
}

// withoutRevision is a Kustomization that reports no applied revision.
func withoutRevision(o ObservedResource) ObservedResource {
	unstructured.RemoveNestedField(o.Object.Object, "status", "lastAppliedRevision")
	return o
}

func TestAddons(t *testing.T) {
	labels := map[string]any{LabelCluster: "demo-dfqog7", LabelIdentity: Identity{Namespace: "team-a", Name: "demo"}.Hash()}
	baseSource := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": FluxSourceAPIVersion, "kind": "OCIRepository",
		"metadata": map[string]any{"name": "demo-dfqog7-base", "namespace": "team-a", "labels": labels},
		"spec": map[string]any{"interval": "10m", "url": "oci://registry.example/addons/base", "ref": map[string]any{"digest": "sha256:abc"},
			"certSecretRef": map[string]any{"name": "registry-ca"}, "secretRef": map[string]any{"name": "registry-pull"}},
	}}
	baseKustomization := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": FluxKustomizeAPIVersion, "kind": "Kustomization",
		"metadata": map[string]any{"name": "demo-dfqog7-base", "namespace": "team-a", "labels": labels},
		"spec": map[string]any{
			"interval": "10m", "retryInterval": "1m", "timeout": "5m",
			"sourceRef": map[string]any{"kind": "OCIRepository", "name": "demo-dfqog7-base"},
			"path":      "./", "prune": true, "wait": true, "deletionPolicy": "Orphan", "targetNamespace": "platform",
			"kubeConfig": map[string]any{"secretRef": map[string]any{"name": "demo-kubeconfig", "key": "kubeconfig"}},
			"postBuild":  map[string]any{"substitute": map[string]any{"cluster_name": "demo", "team": "team-a"}},
		},
	}}
	monitoringKustomization := map[string]any{
		"interval": "10m", "retryInterval": "1m", "timeout": "5m",
		"sourceRef": map[string]any{"kind": "GitRepository", "name": "demo-dfqog7-monitoring"},
		"path":      "./monitoring", "prune": true, "wait": true, "deletionPolicy": "Orphan",
		"kubeConfig": map[string]any{"secretRef": map[string]any{"name": "demo-kubeconfig", "key": "kubeconfig"}},
		"dependsOn":  []any{map[string]any{"name": "demo-dfqog7-base"}},
	}
	monitoringSource := map[string]any{"interval": "10m", "url": "https://git.example/addons.git", "ref": map[string]any{"tag": "v1.2.0"}}

	cases := map[string]struct {
		ready    bool
		addons   *kaasv1alpha1.AddonsSpec
		catalog  []any
		observed map[string]ObservedResource
		secret   string
		// want are the add-on resources rendered, by name: the whole object where it is set.
		want       map[string]*unstructured.Unstructured
		wantStatus []kaasv1alpha1.AddonStatus
		wantCond   *Condition
		wantEvent  string
	}{
		"NoCatalogNoCondition": {ready: true, secret: "demo-kubeconfig"},
		"NothingBeforeTheClusterIsReady": {catalog: addonCatalog(), secret: "demo-kubeconfig",
			wantCond: &Condition{Type: kaasv1alpha1.ConditionAddonsReady, Status: ConditionFalse, Reason: kaasv1alpha1.ReasonAddonsWaiting,
				Message: "add-ons are installed once the cluster is Ready and its kubeconfig delivered: base, monitoring"}},
		"NothingWithoutAKubeconfigSecret": {ready: true, catalog: addonCatalog(),
			wantCond: &Condition{Type: kaasv1alpha1.ConditionAddonsReady, Status: ConditionFalse, Reason: kaasv1alpha1.ReasonNoKubeconfigSecret,
				Message: "add-ons need the cluster's kubeconfig Secret: set spec.writeConnectionSecretToRef"}},
		"EnforcedAndDefaultOnceReady": {ready: true, catalog: addonCatalog(), secret: "demo-kubeconfig",
			want: map[string]*unstructured.Unstructured{
				"addon-source-base": baseSource, "addon-kustomization-base": baseKustomization,
				"addon-source-monitoring": {Object: map[string]any{"apiVersion": FluxSourceAPIVersion, "kind": "GitRepository",
					"metadata": map[string]any{"name": "demo-dfqog7-monitoring", "namespace": "team-a", "labels": labels}, "spec": monitoringSource}},
				"addon-kustomization-monitoring": {Object: map[string]any{"apiVersion": FluxKustomizeAPIVersion, "kind": "Kustomization",
					"metadata": map[string]any{"name": "demo-dfqog7-monitoring", "namespace": "team-a", "labels": labels}, "spec": monitoringKustomization}},
			},
			wantStatus: []kaasv1alpha1.AddonStatus{{Name: "base", Message: "not reported"}, {Name: "monitoring", Message: "not reported"}},
			wantCond: &Condition{Type: kaasv1alpha1.ConditionAddonsReady, Status: ConditionFalse, Reason: kaasv1alpha1.ReasonAddonsPending,
				Message: "add-ons not ready: base: not reported; monitoring: not reported"}},
		"ASharedSourceServesEveryCluster": {ready: true, secret: "demo-kubeconfig",
			catalog: []any{map[string]any{"name": "base", "enforced": true, "source": map[string]any{
				"sourceRef": map[string]any{"kind": "OCIRepository", "name": "base", "namespace": "flux-system"}, "path": "base"}}},
			want: map[string]*unstructured.Unstructured{"addon-kustomization-base": {Object: map[string]any{
				"apiVersion": FluxKustomizeAPIVersion, "kind": "Kustomization",
				"metadata": map[string]any{"name": "demo-dfqog7-base", "namespace": "team-a", "labels": labels},
				"spec": map[string]any{
					"interval": "10m", "retryInterval": "1m", "timeout": "5m",
					"sourceRef": map[string]any{"kind": "OCIRepository", "name": "base", "namespace": "flux-system"},
					"path":      "./base", "prune": true, "wait": true, "deletionPolicy": "Orphan",
					"kubeConfig": map[string]any{"secretRef": map[string]any{"name": "demo-kubeconfig", "key": "kubeconfig"}},
				}}}}},
		"OptedInAndOut": {ready: true, catalog: addonCatalog(), secret: "demo-kubeconfig",
			addons: &kaasv1alpha1.AddonsSpec{Enable: []string{"extra"}, Disable: []string{"monitoring"}},
			want:   map[string]*unstructured.Unstructured{"addon-source-base": nil, "addon-kustomization-base": nil, "addon-source-extra": nil, "addon-kustomization-extra": nil}},
		"EnablingOnePullsInWhatItDependsOn": {ready: true, secret: "demo-kubeconfig",
			catalog: []any{
				map[string]any{"name": "crds", "source": map[string]any{"oci": map[string]any{"url": "oci://r/crds", "tag": "1"}}},
				map[string]any{"name": "operator", "dependsOn": []any{"crds"}, "source": map[string]any{"oci": map[string]any{"url": "oci://r/operator", "tag": "1"}}},
			},
			addons: &kaasv1alpha1.AddonsSpec{Enable: []string{"operator"}},
			want:   map[string]*unstructured.Unstructured{"addon-source-crds": nil, "addon-kustomization-crds": nil, "addon-source-operator": nil, "addon-kustomization-operator": nil}},
		"StatusIsFlux'sOwn": {ready: true, catalog: addonCatalog(), secret: "demo-kubeconfig",
			observed: map[string]ObservedResource{
				"addon-kustomization-base":       kustomization("base", "Orphan", "True", "ReconciliationSucceeded"),
				"addon-kustomization-monitoring": kustomization("monitoring", "Orphan", "False", "ArtifactFailed"),
			},
			want: map[string]*unstructured.Unstructured{"addon-source-base": nil, "addon-kustomization-base": nil, "addon-source-monitoring": nil, "addon-kustomization-monitoring": nil},
			wantStatus: []kaasv1alpha1.AddonStatus{{Name: "base", Revision: "v1@sha256:1", Ready: true},
				{Name: "monitoring", Revision: "v1@sha256:1", Message: "False (ArtifactFailed): flux says ArtifactFailed"}},
			wantCond: &Condition{Type: kaasv1alpha1.ConditionAddonsReady, Status: ConditionFalse, Reason: "ArtifactFailed",
				Message: "add-ons not ready: monitoring: False (ArtifactFailed): flux says ArtifactFailed"}},
		"InstalledStayWhileTheClusterIsNotReady": {catalog: addonCatalog(), secret: "demo-kubeconfig",
			observed: map[string]ObservedResource{"addon-kustomization-base": kustomization("base", "Orphan", "True", "ReconciliationSucceeded")},
			want:     map[string]*unstructured.Unstructured{"addon-source-base": nil, "addon-kustomization-base": nil, "addon-source-monitoring": nil, "addon-kustomization-monitoring": nil}},
		"DisablingAnInstalledOneLetsFluxPruneItFirst": {ready: true, catalog: addonCatalog(), secret: "demo-kubeconfig",
			addons: &kaasv1alpha1.AddonsSpec{Disable: []string{"monitoring"}},
			observed: map[string]ObservedResource{
				"addon-kustomization-base":       kustomization("base", "Orphan", "True", "ReconciliationSucceeded"),
				"addon-kustomization-monitoring": kustomization("monitoring", "Orphan", "True", "ReconciliationSucceeded"),
			},
			want: map[string]*unstructured.Unstructured{"addon-source-base": nil, "addon-kustomization-base": nil, "addon-source-monitoring": nil,
				"addon-kustomization-monitoring": {Object: map[string]any{"apiVersion": FluxKustomizeAPIVersion, "kind": "Kustomization",
					"metadata": map[string]any{"name": "demo-dfqog7-monitoring", "namespace": "team-a", "labels": labels},
					"spec":     withDeletionPolicy(monitoringKustomization, "Delete")}}}},
		// Applied means a revision applied: Ready without one is not yet (a race the
		// playground's conformance run met: AddonsReady True, status.addons without revision).
		"ReadyWithoutARevisionIsNotApplied": {ready: true, catalog: addonCatalog(), secret: "demo-kubeconfig",
			observed: map[string]ObservedResource{
				"addon-kustomization-base":       kustomization("base", "Orphan", "True", "ReconciliationSucceeded"),
				"addon-kustomization-monitoring": withoutRevision(kustomization("monitoring", "Orphan", "True", "ReconciliationSucceeded")),
			},
			want: map[string]*unstructured.Unstructured{"addon-source-base": nil, "addon-kustomization-base": nil,
				"addon-source-monitoring": nil, "addon-kustomization-monitoring": nil},
			wantStatus: []kaasv1alpha1.AddonStatus{{Name: "base", Revision: "v1@sha256:1", Ready: true},
				{Name: "monitoring", Message: "Unknown (Pending): Flux reports it Ready but no applied revision yet"}},
			wantCond: &Condition{Type: kaasv1alpha1.ConditionAddonsReady, Status: ConditionFalse, Reason: kaasv1alpha1.ReasonAddonsPending,
				Message: "add-ons not ready: monitoring: Unknown (Pending): Flux reports it Ready but no applied revision yet"}},
		"ADisabledOneGoesOnceFluxPrunes": {ready: true, catalog: addonCatalog(), secret: "demo-kubeconfig",
			addons: &kaasv1alpha1.AddonsSpec{Disable: []string{"monitoring"}},
			observed: map[string]ObservedResource{
				"addon-kustomization-base":       kustomization("base", "Orphan", "True", "ReconciliationSucceeded"),
				"addon-kustomization-monitoring": kustomization("monitoring", "Delete", "True", "ReconciliationSucceeded"),
			},
			want: map[string]*unstructured.Unstructured{"addon-source-base": nil, "addon-kustomization-base": nil}},
		"OneTheCatalogDroppedStays": {ready: true, catalog: addonCatalog()[:1], secret: "demo-kubeconfig",
			observed: map[string]ObservedResource{
				"addon-kustomization-base":       kustomization("base", "Orphan", "True", "ReconciliationSucceeded"),
				"addon-kustomization-monitoring": kustomization("monitoring", "Orphan", "True", "ReconciliationSucceeded"),
			},
			want: map[string]*unstructured.Unstructured{"addon-source-base": nil, "addon-kustomization-base": nil,
				"addon-kustomization-monitoring": {Object: map[string]any{"apiVersion": FluxKustomizeAPIVersion, "kind": "Kustomization",
					"metadata": map[string]any{"name": "demo-dfqog7-monitoring", "namespace": "team-a"},
					"spec":     map[string]any{"deletionPolicy": "Orphan", "prune": true}}}},
			wantStatus: []kaasv1alpha1.AddonStatus{{Name: "base", Revision: "v1@sha256:1", Ready: true},
				{Name: "monitoring", Revision: "v1@sha256:1", Ready: true, Retained: true}},
			wantCond:  &Condition{Type: kaasv1alpha1.ConditionAddonsReady, Status: ConditionTrue, Reason: kaasv1alpha1.ReasonAddonsApplied, Message: "every add-on is applied and healthy"},
			wantEvent: "add-on monitoring is no longer in environment regionone's catalog: it stays installed as it was, and nothing updates it; list it in spec.addons.disable to remove it"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := NewRegistry(fakeBackend{ready: tc.ready}).Reconcile(Input{Cluster: namespacedCluster(tc.addons),
				Required: addonEnvironments(tc.catalog), Observed: tc.observed, KubeconfigSecret: tc.secret})
			if err != nil {
				t.Fatalf("Reconcile: %v", err)
			}
			got := map[string]*unstructured.Unstructured{}
			for _, r := range out.Rendering.Resources {
				if strings.HasPrefix(r.Name, "addon-") {
					got[r.Name] = r.Object
					if !out.Observation.ResourceReady[r.Name] {
						t.Errorf("%s is not ready for Crossplane: a failing add-on would make the cluster un-Ready", r.Name)
					}
				}
			}
			for name, want := range tc.want {
				if _, ok := got[name]; !ok {
					t.Errorf("%s is not rendered", name)
				} else if want != nil {
					if diff := cmp.Diff(want, got[name]); diff != "" {
						t.Errorf("%s: -want, +got:\n%s", name, diff)
					}
				}
			}
			for name := range got {
				if _, ok := tc.want[name]; !ok {
					t.Errorf("%s is rendered, want it not to be", name)
				}
			}
			if tc.wantStatus != nil {
				if diff := cmp.Diff(tc.wantStatus, out.Status.Addons); diff != "" {
					t.Errorf("status.addons: -want, +got:\n%s", diff)
				}
			}
			var cond *Condition
			for i, c := range out.Conditions {
				if c.Type == kaasv1alpha1.ConditionAddonsReady {
					cond = &out.Conditions[i]
				}
			}
			if tc.wantCond != nil || len(tc.catalog) == 0 {
				if diff := cmp.Diff(tc.wantCond, cond); diff != "" {
					t.Errorf("AddonsReady: -want, +got:\n%s", diff)
				}
			}
			var warned []string
			for _, e := range out.Events {
				if e.Reason == kaasv1alpha1.ReasonAddonRetained {
					warned = append(warned, e.Message)
				}
			}
			if want := tc.wantEvent; (want == "") != (len(warned) == 0) || (want != "" && warned[0] != want) {
				t.Errorf("retained warnings = %q, want %q", warned, want)
			}
		})
	}
}

// withDeletionPolicy is a copy of a Kustomization's spec with another deletion policy.
func withDeletionPolicy(spec map[string]any, policy string) map[string]any {
	out := maps.Clone(spec)
	out["deletionPolicy"] = policy
	return out
}

func TestValidateAddons(t *testing.T) {
	env := &Environment{Name: "regionone", ConfigName: "cfg"}
	env.Addons = []envv1alpha1.Addon{{Name: "base", Enforced: true}, {Name: "monitoring", Default: true}, {Name: "extra"}}
	retained := &kaasv1alpha1.ClusterStatus{Addons: []kaasv1alpha1.AddonStatus{{Name: "old", Retained: true}}}
	p := field.NewPath("spec", "addons")
	cases := map[string]struct {
		spec    *kaasv1alpha1.AddonsSpec
		current *kaasv1alpha1.ClusterStatus
		want    []string
	}{
		"None":             {},
		"KnownNames":       {spec: &kaasv1alpha1.AddonsSpec{Enable: []string{"extra"}, Disable: []string{"monitoring"}}},
		"DisableARetained": {spec: &kaasv1alpha1.AddonsSpec{Disable: []string{"old"}}, current: retained},
		"UnknownToEnable": {spec: &kaasv1alpha1.AddonsSpec{Enable: []string{"ingress"}},
			want: []string{`spec.addons.enable[0]: Unsupported value: "ingress": supported values: "base", "monitoring", "extra"`}},
		"UnknownToDisable": {spec: &kaasv1alpha1.AddonsSpec{Disable: []string{"old"}},
			want: []string{`spec.addons.disable[0]: Unsupported value: "old": supported values: "base", "monitoring", "extra"`}},
		"EnforcedCannotBeDisabled": {spec: &kaasv1alpha1.AddonsSpec{Disable: []string{"base"}},
			want: []string{"spec.addons.disable[0]: Forbidden: add-on base is enforced by environment regionone (EnvironmentConfig cfg): every cluster there has it"}},
		"BothEnabledAndDisabled": {spec: &kaasv1alpha1.AddonsSpec{Enable: []string{"extra"}, Disable: []string{"extra"}},
			want: []string{`spec.addons.enable[0]: Invalid value: "extra": is also in spec.addons.disable`}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			current := tc.current
			if current == nil {
				current = &kaasv1alpha1.ClusterStatus{}
			}
			var got []string
			for _, e := range validateAddons(p, tc.spec, env, current) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
		})
	}
}

func TestValidateAddonCatalog(t *testing.T) {
	oci := envv1alpha1.AddonSource{OCI: &envv1alpha1.OCISource{URL: "oci://r/a", Tag: "1"}}
	cases := map[string]struct {
		catalog []envv1alpha1.Addon
		want    []string
	}{
		"Valid": {catalog: []envv1alpha1.Addon{
			{Name: "a", Source: oci, Substitute: map[string]envv1alpha1.AddonValue{"cluster_name": "clusterName"}},
			{Name: "b", Source: envv1alpha1.AddonSource{Git: &envv1alpha1.GitSource{URL: "https://g/r.git", Branch: "main"}}, DependsOn: []string{"a"}},
			{Name: "c", Source: envv1alpha1.AddonSource{SourceRef: &envv1alpha1.FluxSourceRef{Kind: "OCIRepository", Name: "c", Namespace: "flux-system"}, Path: "c"}},
		}},
		"Invalid": {catalog: []envv1alpha1.Addon{
			{Name: "A_", Source: oci},
			{Name: "b", Source: envv1alpha1.AddonSource{}, DependsOn: []string{"b", "c"}},
			{Name: "b", Source: envv1alpha1.AddonSource{OCI: &envv1alpha1.OCISource{URL: "https://r/a"}}},
			{Name: "d", Source: oci, Substitute: map[string]envv1alpha1.AddonValue{"1x": "clusterName", "y": "password"}},
			{Name: "e", Source: envv1alpha1.AddonSource{SourceRef: &envv1alpha1.FluxSourceRef{Kind: "HelmRepository", Name: "E", Namespace: "flux_system"}, SecretRef: "pull"}},
			{Name: "f", Source: envv1alpha1.AddonSource{OCI: oci.OCI, SourceRef: &envv1alpha1.FluxSourceRef{Kind: "OCIRepository", Name: "f"}}},
		}, want: []string{
			`data.addons[0].name: Invalid value: "A_": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
			"data.addons[1].source: Required value: exactly one of oci, git and sourceRef",
			`data.addons[1].dependsOn[0]: Invalid value: "b": must name another add-on of the catalog`,
			`data.addons[1].dependsOn[1]: Invalid value: "c": must name another add-on of the catalog`,
			`data.addons[2].name: Duplicate value: "b"`,
			`data.addons[2].source.oci.url: Invalid value: "https://r/a": must start with oci://`,
			`data.addons[3].substitute[1x]: Invalid value: "1x": must be a variable name such as cluster_name`,
			`data.addons[3].substitute[y]: Unsupported value: "password": supported values: "clusterName", "namespace", "environment", "region", "backend", "kubernetesVersion"`,
			`data.addons[4].source.sourceRef.kind: Unsupported value: "HelmRepository": supported values: "OCIRepository", "GitRepository", "Bucket"`,
			`data.addons[4].source.sourceRef.name: Invalid value: "E": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
			`data.addons[4].source.sourceRef.namespace: Invalid value: "flux_system": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
			"data.addons[4].source.secretRef: Forbidden: a platform's source carries its own credentials; set them there",
			"data.addons[5].source: Forbidden: set exactly one of oci, git and sourceRef",
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, e := range validateAddonCatalog(field.NewPath("data", "addons"), tc.catalog) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
		})
	}
}

// TestPreviewAddonsEdit: kubectl scs diff's preview of a Ready cluster says what an edit of
// spec.addons does before it is applied: disabling an installed add-on turns its
// Kustomization to Delete (Flux prunes it), enabling one creates its Flux objects.
func TestPreviewAddonsEdit(t *testing.T) {
	observed := map[string]ObservedResource{
		"addon-kustomization-base":       kustomization("base", "Orphan", "True", "ReconciliationSucceeded"),
		"addon-kustomization-monitoring": kustomization("monitoring", "Orphan", "True", "ReconciliationSucceeded"),
	}
	render := func(addons *kaasv1alpha1.AddonsSpec) *Output {
		out, err := NewRegistry(fakeBackend{ready: true}).Reconcile(Input{Cluster: namespacedCluster(addons),
			Required: addonEnvironments(addonCatalog()), Observed: observed, KubeconfigSecret: "demo-kubeconfig"})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	current := render(nil)
	p := PreviewEdit(current, render(&kaasv1alpha1.AddonsSpec{Enable: []string{"extra"}, Disable: []string{"monitoring"}}), nil)
	type change struct{ Resource, Action, Fields string }
	var got []change
	for _, o := range p.Objects {
		var fields []string
		for _, f := range o.Fields {
			fields = append(fields, f.Path)
		}
		got = append(got, change{o.Resource, string(o.Action), strings.Join(fields, ",")})
	}
	want := []change{
		{"addon-source-extra", "create", ""}, {"addon-kustomization-extra", "create", ""},
		{"addon-kustomization-monitoring", "update", "spec.deletionPolicy"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("objects: -want, +got:\n%s", diff)
	}
	var edits []string
	for _, e := range p.Edits {
		edits = append(edits, string(e.Field)+": "+e.Summary())
	}
	wantEdits := []string{
		`addons.enable, disable: in place: spec.addons.disable (unset) -> ["monitoring"]`,
		`addons.enable, disable: in place: spec.addons.enable (unset) -> ["extra"]`,
	}
	if diff := cmp.Diff(wantEdits, edits); diff != "" {
		t.Errorf("edits: -want, +got:\n%s", diff)
	}
	var addons []string
	for _, a := range p.Addons {
		addons = append(addons, a.Summary())
	}
	wantAddons := []string{
		"add-on extra: installed on the cluster by Flux",
		"add-on monitoring: removed from the cluster: Flux prunes what it applied",
	}
	if diff := cmp.Diff(wantAddons, addons); diff != "" {
		t.Errorf("add-ons: -want, +got:\n%s", diff)
	}
}

// TestAddonsNeedTheirKubeconfigSecret: a composite that stops naming the kubeconfig Secret
// while add-ons are installed is refused, naming the field and the add-ons; its Flux
// objects are not dropped.
func TestAddonsNeedTheirKubeconfigSecret(t *testing.T) {
	observed := map[string]ObservedResource{
		"addon-kustomization-base":       kustomization("base", "Orphan", "True", "ReconciliationSucceeded"),
		"addon-kustomization-monitoring": kustomization("monitoring", "Orphan", "True", "ReconciliationSucceeded"),
	}
	_, err := NewRegistry(fakeBackend{ready: true}).Reconcile(Input{Cluster: namespacedCluster(nil),
		Required: addonEnvironments(addonCatalog()), Observed: observed})
	want := `XSCSCluster "demo" is invalid (1 problem): spec.writeConnectionSecretToRef: Required value: add-ons base, monitoring are installed, and Flux reaches the cluster through its kubeconfig Secret: name it again (enforced add-ons stay; others may be disabled first in spec.addons.disable)`
	if err == nil || err.Error() != want {
		t.Errorf("Reconcile: %v\nwant %s", err, want)
	}
}

// TestDisablingARetainedAddonCompletes: a team disables an add-on the catalog dropped. The
// first reconcile turns its Kustomization to Delete and takes it out of status.addons; the
// next, with that status, must still accept the name and retire the Kustomization.
func TestDisablingARetainedAddonCompletes(t *testing.T) {
	xr := namespacedCluster(&kaasv1alpha1.AddonsSpec{Disable: []string{"monitoring"}})
	xr.Status.Addons = []kaasv1alpha1.AddonStatus{{Name: "base", Ready: true}, {Name: "monitoring", Ready: true, Retained: true}}
	observed := map[string]ObservedResource{
		"addon-kustomization-base":       kustomization("base", "Orphan", "True", "ReconciliationSucceeded"),
		"addon-kustomization-monitoring": kustomization("monitoring", "Orphan", "True", "ReconciliationSucceeded"),
	}
	reconcile := func() *Output {
		t.Helper()
		out, err := NewRegistry(fakeBackend{ready: true}).Reconcile(Input{Cluster: xr,
			Required: addonEnvironments(addonCatalog()[:1]), Observed: observed, KubeconfigSecret: "demo-kubeconfig"})
		if err != nil {
			t.Fatalf("Reconcile: %v", err)
		}
		return out
	}
	policy := func(out *Output) string {
		for _, r := range out.Rendering.Resources {
			if r.Name == "addon-kustomization-monitoring" {
				p, _, _ := unstructured.NestedString(r.Object.Object, "spec", "deletionPolicy")
				return p
			}
		}
		return "dropped"
	}
	first := reconcile()
	if got := policy(first); got != "Delete" {
		t.Fatalf("first reconcile: monitoring's Kustomization is %s, want Delete", got)
	}
	xr.Status.Addons = first.Status.Addons
	observed["addon-kustomization-monitoring"] = kustomization("monitoring", "Delete", "True", "ReconciliationSucceeded")
	if got := policy(reconcile()); got != "dropped" {
		t.Errorf("second reconcile: monitoring's Kustomization is %s, want dropped", got)
	}
}
