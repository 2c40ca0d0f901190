package model

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// magnumPlacement is a setting as a backend declares it.
var magnumPlacement = Setting{Path: "data.magnum.providerConfigName"}

func TestKeepSettings(t *testing.T) {
	env := func(region, pc string) *Environment {
		return &Environment{Name: "regionone", Environment: envv1alpha1.Environment{Region: region, Magnum: &envv1alpha1.Magnum{ProviderConfigName: pc}}}
	}
	settings := []Setting{regionSetting, magnumPlacement}
	cases := map[string]struct {
		env         *Environment
		kept        map[string]string
		want        map[string]string
		wantEnv     *Environment
		wantChanges []string
	}{
		"NewClusterTakesTheEnvironment": {
			env: env("RegionOne", "cloud"), want: map[string]string{"data.region": "RegionOne", "data.magnum.providerConfigName": "cloud"},
			wantEnv: env("RegionOne", "cloud"),
		},
		"UnchangedEnvironment": {
			env: env("RegionOne", "cloud"), kept: map[string]string{"data.region": "RegionOne", "data.magnum.providerConfigName": "cloud"},
			want: map[string]string{"data.region": "RegionOne", "data.magnum.providerConfigName": "cloud"}, wantEnv: env("RegionOne", "cloud"),
		},
		"EditedSettingIsKept": {
			env: env("RegionOne", "other-cloud"), kept: map[string]string{"data.region": "RegionOne", "data.magnum.providerConfigName": "cloud"},
			want: map[string]string{"data.region": "RegionOne", "data.magnum.providerConfigName": "cloud"}, wantEnv: env("RegionOne", "cloud"),
			wantChanges: []string{"data.magnum.providerConfigName: the cluster stays on cloud; the environment names other-cloud now, which applies to new clusters"},
		},
		"UnsetIsAValueToKeep": {
			env: env("RegionOne", "cloud"), kept: map[string]string{"data.region": "RegionOne", "data.magnum.providerConfigName": ""},
			want: map[string]string{"data.region": "RegionOne", "data.magnum.providerConfigName": ""}, wantEnv: env("RegionOne", ""),
			wantChanges: []string{"data.magnum.providerConfigName: the cluster stays on (unset); the environment names cloud now, which applies to new clusters"},
		},
		// A setting a newer version declares was not recorded: it takes the environment's.
		"SettingNotRecordedYet": {
			env: env("RegionTwo", "cloud"), kept: map[string]string{"data.region": "RegionOne"},
			want: map[string]string{"data.region": "RegionOne", "data.magnum.providerConfigName": "cloud"}, wantEnv: env("RegionOne", "cloud"),
			wantChanges: []string{"data.region: the cluster stays on RegionOne; the environment names RegionTwo now, which applies to new clusters"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			before := *tc.env
			kept, got, changes, err := keepSettings(tc.env, settings, tc.kept, "1.34")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("kept placement: -want, +got:\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantEnv, kept); diff != "" {
				t.Errorf("environment: -want, +got:\n%s", diff)
			}
			if diff := cmp.Diff(&before, tc.env); diff != "" {
				t.Errorf("the environment given changed: -before, +after:\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantChanges, changes); diff != "" {
				t.Errorf("changes: -want, +got:\n%s", diff)
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
