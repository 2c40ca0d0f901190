package model

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// Settings as backends declare them: one that places the cluster, one that it may adopt,
// one that follows the environment.
var (
	magnumPlacement = Setting{Path: "data.magnum.providerConfigName", Change: ChangeEffect{EffectRefused, "another cloud is another cluster"}}
	magnumTemplate  = Setting{Path: "data.magnum.templates[kubernetesVersion={minor}]", Change: ChangeEffect{EffectRollsControlPlane, "an upgrade"}}
	magnumKeypair   = Setting{Path: "data.magnum.keypair", Follows: true, Reason: "for the test", Change: ChangeEffect{Effect: EffectInPlace}}
)

func TestKeepSettings(t *testing.T) {
	env := func(region, pc, template string) *Environment {
		return &Environment{Name: "regionone", Environment: envv1alpha1.Environment{Region: region, Magnum: &envv1alpha1.Magnum{
			ProviderConfigName: pc, Keypair: "now", Templates: []envv1alpha1.MagnumTemplate{{KubernetesVersion: "1.34", ID: template}}}}}
	}
	settings := []Setting{magnumKeypair, magnumPlacement, regionSetting, magnumTemplate}
	record := func(region, pc, template string) map[string]string {
		return map[string]string{"data.region": region, "data.magnum.providerConfigName": pc,
			"data.magnum.templates[kubernetesVersion=1.34]": `{"kubernetesVersion":"1.34","id":"` + template + `"}`}
	}
	cases := map[string]struct {
		env         *Environment
		kept        map[string]string
		adopt       bool
		want        kept
		wantEnv     *Environment
		wantChanges []string
	}{
		"NewClusterTakesTheEnvironment": {
			env: env("RegionOne", "cloud", "t"), want: kept{record: record("RegionOne", "cloud", "t")}, wantEnv: env("RegionOne", "cloud", "t"),
		},
		"UnchangedEnvironment": {
			env: env("RegionOne", "cloud", "t"), kept: record("RegionOne", "cloud", "t"),
			want: kept{record: record("RegionOne", "cloud", "t")}, wantEnv: env("RegionOne", "cloud", "t"),
		},
		"EditedSettingIsKept": {
			env: env("RegionOne", "other-cloud", "t2"), kept: record("RegionOne", "cloud", "t"),
			want: kept{record: record("RegionOne", "cloud", "t"), changes: []string{
				"data.magnum.providerConfigName: the cluster stays on cloud; the environment names other-cloud now, which applies to new clusters (it cannot be adopted: another cloud is another cluster)",
				`data.magnum.templates[kubernetesVersion=1.34]: the cluster stays on {"kubernetesVersion":"1.34","id":"t"}; the environment names {"kubernetesVersion":"1.34","id":"t2"} now, which applies to new clusters (adopting it: control plane rolls)`}},
			wantEnv: env("RegionOne", "cloud", "t"),
		},
		"UnsetIsAValueToKeep": {
			env: env("RegionOne", "cloud", "t"), kept: record("RegionOne", "", "t"),
			want: kept{record: record("RegionOne", "", "t"), changes: []string{
				"data.magnum.providerConfigName: the cluster stays on (unset); the environment names cloud now, which applies to new clusters (it cannot be adopted: another cloud is another cluster)"}},
			wantEnv: env("RegionOne", "", "t"),
		},
		// A setting a newer version declares was not recorded: it takes the environment's.
		"SettingNotRecordedYet": {
			env: env("RegionTwo", "cloud", "t"), kept: map[string]string{"data.region": "RegionOne"},
			want: kept{record: record("RegionOne", "cloud", "t"), changes: []string{
				"data.region: the cluster stays on RegionOne; the environment names RegionTwo now, which applies to new clusters (it cannot be adopted: a cluster in another region is another cluster)"}},
			wantEnv: env("RegionOne", "cloud", "t"),
		},
		// Adopting takes what can change in place and keeps what would replace the cluster.
		"Adopted": {
			env: env("RegionOne", "other-cloud", "t2"), kept: record("RegionOne", "cloud", "t"), adopt: true,
			want: kept{record: record("RegionOne", "cloud", "t2"),
				adopted: []string{`data.magnum.templates[kubernetesVersion=1.34]: {"kubernetesVersion":"1.34","id":"t"} -> {"kubernetesVersion":"1.34","id":"t2"} (control plane rolls)`},
				refused: []string{"data.magnum.providerConfigName stays on cloud, not other-cloud: another cloud is another cluster"},
				changes: []string{"data.magnum.providerConfigName: the cluster stays on cloud; the environment names other-cloud now, which applies to new clusters (it cannot be adopted: another cloud is another cluster)"}},
			wantEnv: env("RegionOne", "cloud", "t2"),
		},
		// The environment no longer has the template the cluster runs: it is kept all the same.
		"KeptWhereTheEnvironmentHasNone": {
			env: func() *Environment { e := env("RegionOne", "cloud", "t"); e.Magnum.Templates = nil; return e }(), kept: record("RegionOne", "cloud", "t"),
			want: kept{record: record("RegionOne", "cloud", "t"), changes: []string{
				`data.magnum.templates[kubernetesVersion=1.34]: the cluster stays on {"kubernetesVersion":"1.34","id":"t"}; the environment names (unset) now, which applies to new clusters (adopting it: control plane rolls)`}},
			wantEnv: env("RegionOne", "cloud", "t"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			before := *tc.env
			before.Environment = *tc.env.DeepCopy()
			got, k, err := keepSettings(tc.env, settings, tc.kept, "1.34", tc.adopt, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, k, cmp.AllowUnexported(kept{})); diff != "" {
				t.Errorf("kept: -want, +got:\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantEnv, got); diff != "" {
				t.Errorf("environment: -want, +got:\n%s", diff)
			}
			if diff := cmp.Diff(&before, tc.env); diff != "" {
				t.Errorf("the environment given changed: -before, +after:\n%s", diff)
			}
		})
	}
}

func TestKeepDelivered(t *testing.T) {
	kubeconfig := func(s string) map[string][]byte {
		return map[string][]byte{ConnectionKeyKubeconfig: []byte(s), ConnectionKeyEndpoint: []byte("https://api"), ConnectionKeyCA: []byte("ca")}
	}
	pending := Condition{Type: kaasv1alpha1.ConditionKubeconfigReady, Status: ConditionFalse, Reason: kaasv1alpha1.ReasonKubeconfigPending, Message: "not delivered yet"}
	delivered := Condition{Type: kaasv1alpha1.ConditionKubeconfigReady, Status: ConditionTrue, Reason: kaasv1alpha1.ReasonKubeconfigDelivered, Message: "delivered"}
	expired := Condition{Type: kaasv1alpha1.ConditionKubeconfigReady, Status: ConditionFalse, Reason: kaasv1alpha1.ReasonKubeconfigExpired, Message: "expired"}
	stale := func(msg string) Condition {
		return Condition{Type: kaasv1alpha1.ConditionKubeconfigReady, Status: ConditionUnknown, Reason: kaasv1alpha1.ReasonKubeconfigStale, Message: msg}
	}
	cases := map[string]struct {
		obs       *Observation
		delivered map[string][]byte
		want      *Observation
	}{
		"NothingDeliveredYet": {
			obs:  &Observation{Conditions: []Condition{pending}},
			want: &Observation{Conditions: []Condition{pending}},
		},
		"ANewDeliveryReplaces": {
			obs:       &Observation{ConnectionDetails: kubeconfig("new"), Conditions: []Condition{delivered}},
			delivered: kubeconfig("old"),
			want:      &Observation{ConnectionDetails: kubeconfig("new"), Conditions: []Condition{delivered}},
		},
		"ANewDeliveryKeepsTheKeysItLacks": {
			obs:       &Observation{ConnectionDetails: map[string][]byte{ConnectionKeyKubeconfig: []byte("new")}, Conditions: []Condition{delivered}},
			delivered: kubeconfig("old"),
			want: &Observation{ConnectionDetails: map[string][]byte{ConnectionKeyKubeconfig: []byte("new"), ConnectionKeyEndpoint: []byte("https://api"), ConnectionKeyCA: []byte("ca")},
				Conditions: []Condition{delivered}},
		},
		"NoKubeconfigNowKeepsTheDeliveredOne": {
			obs:       &Observation{ConnectionDetails: map[string][]byte{ConnectionKeyEndpoint: []byte("https://new-api")}, Conditions: []Condition{pending}},
			delivered: kubeconfig("old"),
			want: &Observation{ConnectionDetails: map[string][]byte{ConnectionKeyKubeconfig: []byte("old"), ConnectionKeyEndpoint: []byte("https://new-api"), ConnectionKeyCA: []byte("ca")},
				Conditions: []Condition{stale("the connection secret keeps the kubeconfig delivered earlier: the backend shows none now (not delivered yet)")}},
		},
		// A backend without a verdict of its own would be given Delivered for the memory.
		"NoVerdictOfTheBackend": {
			obs:       &Observation{},
			delivered: kubeconfig("old"),
			want:      &Observation{ConnectionDetails: kubeconfig("old"), Conditions: []Condition{stale("the connection secret keeps the kubeconfig delivered earlier: the backend shows none now")}},
		},
		"TheBackendKnowsItExpired": {
			obs:       &Observation{Conditions: []Condition{expired}},
			delivered: kubeconfig("old"),
			want:      &Observation{ConnectionDetails: kubeconfig("old"), Conditions: []Condition{expired}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, keepDelivered(tc.obs, tc.delivered)); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
		})
	}
}

func TestDelivered(t *testing.T) {
	secret := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
		"data": map[string]any{"kubeconfig": "a2M=", "ca.crt": "Y2E=", "other": "eA==", "endpoint": ""}}}
	got := Delivered(Input{Observed: map[string]ObservedResource{ResourceKubeconfigSecret: {Object: secret}},
		ConnectionDetails: map[string][]byte{"endpoint": []byte("https://api"), "other": []byte("x")}})
	want := map[string][]byte{"kubeconfig": []byte("kc"), "ca.crt": []byte("ca"), "endpoint": []byte("https://api")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want, +got:\n%s", diff)
	}
}

// remoteObject is a provider-kubernetes Object around a ConfigMap, as observed: reported
// (with the remote object in status.atProvider.manifest) or not yet.
func remoteObject(name string, reported bool, policies ...any) *unstructured.Unstructured {
	manifest := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "namespace": "ns"}}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kubernetes.crossplane.io/v1alpha2", "kind": "Object",
		"metadata": map[string]any{"name": name, "uid": "1234", "resourceVersion": "7"},
		"spec":     map[string]any{"forProvider": map[string]any{"manifest": manifest}}}}
	if len(policies) > 0 {
		u.Object["spec"].(map[string]any)["managementPolicies"] = policies
	}
	if reported {
		u.Object["status"] = map[string]any{"atProvider": map[string]any{"manifest": manifest}}
	} else {
		u.Object["status"] = map[string]any{"conditions": []any{}}
	}
	return u
}

// TestKeepUnobserved: an Object whose provider has not reported it is desired exactly as it
// was last applied, whatever the backend rendered; reported and observe-only ones and
// those of other kinds are the backend's.
func TestKeepUnobserved(t *testing.T) {
	observed := map[string]ObservedResource{
		"fake-cluster":    {Object: remoteObject("dev", false)},
		"fake-nodes":      {Object: remoteObject("dev-nodes", true)},
		"fake-releases":   {Object: remoteObject("dev-releases", false, "Observe")},
		"fake-kubeconfig": {Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret"}}},
	}
	if diff := cmp.Diff([]string{"fake-cluster"}, Unobserved(observed)); diff != "" {
		t.Errorf("Unobserved: -want, +got:\n%s", diff)
	}
	rendered := []Resource{
		{Name: "fake-cluster", Object: remoteObject("dev-renamed", true), Disposable: true},
		{Name: "fake-nodes", Object: remoteObject("dev-nodes", true)},
	}
	lastApplied := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kubernetes.crossplane.io/v1alpha2", "kind": "Object",
		"metadata": map[string]any{"name": "dev"},
		"spec": map[string]any{"forProvider": map[string]any{"manifest": map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "dev", "namespace": "ns"}}}}}}
	want := []Resource{{Name: "fake-cluster", Object: lastApplied, Disposable: true}, rendered[1]}
	got := keepUnobserved(rendered, observed, Unobserved(observed))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-want, +got:\n%s", diff)
	}
	if rendered[0].Object.GetName() != "dev-renamed" {
		t.Error("the rendering given was changed")
	}
	// Not rendered at all: desired all the same.
	if diff := cmp.Diff([]Resource{{Name: "fake-cluster", Object: lastApplied}}, keepUnobserved(nil, observed, []string{"fake-cluster"})); diff != "" {
		t.Errorf("not rendered: -want, +got:\n%s", diff)
	}
}

// TestKeepUnknown: a composed resource no backend renders under its name is kept as it was
// last applied, with a Warning, when it can hold a cluster or its credentials. The kinds
// are a fixed list here: Shoots, provider-kubernetes Objects, every Cluster API group,
// provider-openstack's Magnum kinds, AdminKubeconfigs and Secrets. Others go.
func TestKeepUnknown(t *testing.T) {
	holding := []struct{ apiVersion, kind string }{
		{"core.gardener.cloud/v1beta1", "Shoot"},
		{"kubernetes.crossplane.io/v1alpha2", "Object"},
		{"kubernetes.m.crossplane.io/v1alpha1", "Object"},
		{"cluster.x-k8s.io/v1beta2", "Cluster"},
		{"cluster.x-k8s.io/v1beta1", "MachineDeployment"},
		{"infrastructure.cluster.x-k8s.io/v1beta1", "OpenStackCluster"},
		{"controlplane.cluster.x-k8s.io/v1beta2", "KubeadmControlPlane"},
		{"containerinfra.openstack.crossplane.io/v1alpha1", "ClusterV1"},
		{"containerinfra.openstack.crossplane.io/v1alpha1", "NodegroupV1"},
		{"containerinfra.openstack.m.crossplane.io/v1alpha1", "ClusterV1"},
		{"gardener.kaas.scs.community/v1alpha1", "AdminKubeconfig"},
		{"gardener.m.kaas.scs.community/v1alpha1", "AdminKubeconfig"},
		{"v1", "Secret"},
	}
	passing := []struct{ apiVersion, kind string }{
		{"v1", "ConfigMap"},
		{"apps/v1", "Deployment"},
		{"kubernetes.crossplane.io/v1alpha1", "ObservedObjectCollection"},
		{"example.org/v1", "Shoot"},
	}
	object := func(apiVersion, kind string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind,
			"metadata": map[string]any{"name": "old", "uid": "1"}, "spec": map[string]any{"x": "y"}, "status": map[string]any{"s": "t"}}}
	}
	r := NewRegistry(fakeBackend{})
	for _, k := range holding {
		t.Run("keeps "+k.apiVersion+" "+k.kind, func(t *testing.T) {
			observed := map[string]ObservedResource{"older-name": {Object: object(k.apiVersion, k.kind)}}
			got, events := r.keepUnknown([]Resource{{Name: "fake-cluster"}}, observed)
			want := []Resource{{Name: "fake-cluster"}, {Name: "older-name", Object: &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": k.apiVersion, "kind": k.kind, "metadata": map[string]any{"name": "old"}, "spec": map[string]any{"x": "y"}}}}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
			wantEvents := []Event{{Type: EventWarning, Reason: kaasv1alpha1.ReasonUnknownResourceKept, Message: "composed resource older-name (" + k.kind +
				" old) is not one this version of the function renders; it can hold a cluster or its credentials, so it is kept as it was last applied rather than deleted: delete it by hand once it is not needed"}}
			if diff := cmp.Diff(wantEvents, events); diff != "" {
				t.Errorf("events: -want, +got:\n%s", diff)
			}
		})
	}
	for _, k := range passing {
		t.Run("lets go "+k.apiVersion+" "+k.kind, func(t *testing.T) {
			got, events := r.keepUnknown([]Resource{{Name: "fake-cluster"}}, map[string]ObservedResource{"older-name": {Object: object(k.apiVersion, k.kind)}})
			if len(got) != 1 || len(events) != 0 {
				t.Errorf("kept %v, events %v; want it to go", got, events)
			}
		})
	}
	// A backend's resource, the kubeconfig Secret and what is rendered are others' to keep.
	for _, name := range []string{"fake-nodes", "magnum-cluster", ResourceKubeconfigSecret, "fake-cluster"} {
		got, _ := r.keepUnknown([]Resource{{Name: "fake-cluster"}}, map[string]ObservedResource{name: {Object: object("v1", "Secret")}})
		if len(got) != 1 {
			t.Errorf("%s: kept as unknown: %v", name, got)
		}
	}
}

// TestUnknownObservation: while a native object exists but is not reported, the status as
// last written stays, the backend's verdict is Unknown, and the unobserved resources are
// not ready; the other conditions stay.
func TestUnknownObservation(t *testing.T) {
	rendered := &Observation{
		Status:        kaasv1alpha1.ClusterStatus{Phase: kaasv1alpha1.PhaseProvisioning},
		Ready:         true,
		ResourceReady: map[string]bool{"fake-cluster": true, "fake-nodes": true},
		Conditions: []Condition{{Type: kaasv1alpha1.ConditionBackendReady, Status: ConditionFalse, Reason: kaasv1alpha1.ReasonCreating},
			{Type: kaasv1alpha1.ConditionKubeconfigReady, Status: ConditionTrue}},
	}
	last := &kaasv1alpha1.ClusterStatus{Phase: kaasv1alpha1.PhaseReady, APIServerURL: "https://api"}
	want := &Observation{
		Status:        kaasv1alpha1.ClusterStatus{Phase: kaasv1alpha1.PhaseReady, APIServerURL: "https://api"},
		ResourceReady: map[string]bool{"fake-cluster": false, "fake-nodes": true},
		Conditions: []Condition{{Type: kaasv1alpha1.ConditionBackendReady, Status: ConditionUnknown, Reason: kaasv1alpha1.ReasonNotObservedYet,
			Message: "provider-kubernetes has not reported the object that fake-cluster manages yet; it exists and is kept as it was last applied until its state is known"},
			{Type: kaasv1alpha1.ConditionKubeconfigReady, Status: ConditionTrue}},
	}
	if diff := cmp.Diff(want, unknownObservation(rendered, last, []string{"fake-cluster"})); diff != "" {
		t.Errorf("-want, +got:\n%s", diff)
	}
	if !rendered.ResourceReady["fake-cluster"] {
		t.Error("the observation given was changed")
	}
	// Nothing was ever written: it is provisioning.
	if got := unknownObservation(rendered, &kaasv1alpha1.ClusterStatus{}, []string{"fake-cluster"}).Status.Phase; got != kaasv1alpha1.PhaseProvisioning {
		t.Errorf("phase %s, want Provisioning", got)
	}
}

// TestKeepSettingsMovesToANewerPatchInTheWindow: with automatic patch updates, a cluster
// moves to its minor's template when the environment points the minor at a newer patch, in
// its window only; another template of the same patch is kept until adopted, as every edit.
func TestKeepSettingsMovesToANewerPatchInTheWindow(t *testing.T) {
	const path = "data.magnum.templates[kubernetesVersion=1.34]"
	tpl := func(id, tag string) string {
		return `{"kubernetesVersion":"1.34","id":"` + id + `","kubeTag":"` + tag + `"}`
	}
	env := &Environment{Name: "regionone", Environment: envv1alpha1.Environment{Magnum: &envv1alpha1.Magnum{
		Templates: []envv1alpha1.MagnumTemplate{{KubernetesVersion: "1.34", ID: "t2", KubeTag: "v1.34.8"}}}}}
	patchOf := func(v string) string {
		var m struct{ KubeTag string }
		_ = json.Unmarshal([]byte(v), &m)
		return m.KubeTag
	}
	withPatches := magnumTemplate
	withPatches.PatchUpdate = func(was, now string) (string, string, bool) {
		a, errA := ParseVersion(patchOf(was))
		b, errB := ParseVersion(patchOf(now))
		return patchOf(was), patchOf(now), errA == nil && errB == nil && b.Patch > a.Patch
	}
	window := &kaasv1alpha1.MaintenanceSpec{Window: &kaasv1alpha1.MaintenanceWindow{Begin: "020000+0000", End: "030000+0000"}}
	cases := map[string]struct {
		now         time.Time
		kept        string
		want        string
		wantChanges []string
	}{
		"OutsideTheWindowKept": {now: at("14:00"), kept: tpl("t", "v1.34.7"), want: tpl("t", "v1.34.7"),
			wantChanges: []string{path + `: the cluster stays on ` + tpl("t", "v1.34.7") + ` until its maintenance window, then moves to ` + tpl("t2", "v1.34.8") + ` (UpdatePlanned)`}},
		"InsideTheWindowTaken": {now: at("02:10"), kept: tpl("t", "v1.34.7"), want: tpl("t2", "v1.34.8")},
		"TheSamePatchIsNotAnUpdateOfItsOwn": {now: at("02:10"), kept: tpl("t", "v1.34.8"), want: tpl("t", "v1.34.8"),
			wantChanges: []string{path + `: the cluster stays on ` + tpl("t", "v1.34.8") + `; the environment names ` + tpl("t2", "v1.34.8") + ` now, which applies to new clusters (adopting it: control plane rolls)`}},
		"AnOlderPatchIsNotAnUpdate": {now: at("02:10"), kept: tpl("t", "v1.34.9"), want: tpl("t", "v1.34.9"),
			wantChanges: []string{path + `: the cluster stays on ` + tpl("t", "v1.34.9") + `; the environment names ` + tpl("t2", "v1.34.8") + ` now, which applies to new clusters (adopting it: control plane rolls)`}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			m := NewMaintenance(tc.now, &kaasv1alpha1.ClusterSpec{Maintenance: window}, env, Identity{Name: "shop"}, nil)
			_, k, err := keepSettings(env, []Setting{withPatches}, map[string]string{path: tc.kept}, "1.34", false, m)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(map[string]string{path: tc.want}, k.record); diff != "" {
				t.Errorf("record (-want, +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantChanges, k.changes); diff != "" {
				t.Errorf("changes (-want, +got):\n%s", diff)
			}
		})
	}
}
