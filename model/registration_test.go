package model

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// Kubeconfigs as backends deliver them: client certificates, a token, and an exec plugin.
// The credentials are stand-ins, so that a leak is recognisable in a failure.
const (
	certKubeconfig = `apiVersion: v1
kind: Config
current-context: admin
contexts:
- name: admin
  context: {cluster: demo, user: admin}
- name: other
  context: {cluster: other, user: other}
clusters:
- name: other
  cluster: {server: "https://other.example:6443"}
- name: demo
  cluster: {server: "https://demo.example:6443", certificate-authority-data: Q0EtREFUQQ==}
users:
- name: other
  user: {token: OTHER-TOKEN}
- name: admin
  user: {client-certificate-data: Q0VSVC1EQVRB, client-key-data: S0VZLURBVEE=}
`
	tokenKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: demo
  cluster: {server: "https://demo.example:6443", insecure-skip-tls-verify: true}
users:
- name: admin
  user: {token: SECRET-TOKEN}
`
	execKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: demo
  cluster: {server: "https://demo.example:6443"}
users:
- name: admin
  user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: kubectl, args: [oidc-login, get-token, --client-secret=SECRET-ARG]}}
`
)

func registrationEnvironments(argoCD map[string]any) map[string][]*unstructured.Unstructured {
	data := map[string]any{
		"backend": "fake", "region": "RegionOne",
		"access":  map[string]any{"namespaces": []any{"team-a"}},
		"catalog": map[string]any{"kubernetesVersions": []any{"1.34"}, "zones": []any{"az1"}},
	}
	if argoCD != nil {
		data["argoCD"] = argoCD
	}
	return map[string][]*unstructured.Unstructured{EnvironmentsRequirement: {environmentConfig("cfg",
		map[string]string{"kaas.scs.community/environment": "regionone", "kaas.scs.community/default": "true"}, data)},
		// Looked for before it is managed: not there.
		LookupRequirementPrefix + "fake-cluster": nil}
}

// argoCDSecret is the cluster Secret a registration composes, as Argo CD documents it.
func argoCDSecret(name, namespace, identityNamespace, server, config string) *unstructured.Unstructured {
	labels := map[string]any{
		LabelCluster: "demo-dfqog7", LabelIdentity: Identity{Namespace: identityNamespace, Name: "demo"}.Hash(),
		"argocd.argoproj.io/secret-type": "cluster",
		"kaas.scs.community/environment": "regionone", "kaas.scs.community/backend": "fake",
		"kaas.scs.community/region": "RegionOne", "kaas.scs.community/kubernetes-minor": "1.34",
	}
	if identityNamespace != "" {
		labels["kaas.scs.community/namespace"] = identityNamespace
	}
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
		"metadata": map[string]any{"name": name, "namespace": namespace, "labels": labels},
		"data":     map[string]any{"name": b64(name), "server": b64(server), "config": b64(config)},
	}}
}

func TestRegisterArgoCD(t *testing.T) {
	const certConfig = `{"tlsClientConfig":{"insecure":false,"caData":"Q0EtREFUQQ==","certData":"Q0VSVC1EQVRB","keyData":"S0VZLURBVEE="}}`
	registered := argoCDSecret("demo-dfqog7", "argocd", "team-a", "https://demo.example:6443", certConfig)
	claim := func() *kaasv1alpha1.XSCSCluster {
		xr := testCluster()
		xr.Labels = map[string]string{LabelClaimNamespace: "team-a", LabelClaimName: "demo"}
		return xr
	}
	// stale is a registration made earlier, under a name and in a namespace of its own,
	// whose server and credentials have changed since.
	stale := argoCDSecret("older-name", "argocd", "team-a", "https://old.example:6443", `{"bearerToken":"OLD-SECRET"}`)
	observedStale := func() map[string]ObservedResource {
		u := stale.DeepCopy()
		u.SetUID("u1")
		return map[string]ObservedResource{ResourceArgoCDCluster: {Object: u}}
	}
	renewed := argoCDSecret("older-name", "argocd", "team-a", "https://demo.example:6443", certConfig)
	const (
		otherContextKubeconfig = `apiVersion: v1
kind: Config
current-context: gone
clusters:
- {name: a, cluster: {server: "https://a.example:6443"}}
- {name: b, cluster: {server: "https://b.example:6443"}}
users:
- {name: admin, user: {token: SECRET-TOKEN}}
`
		serverNameAndProxyKubeconfig = `apiVersion: v1
kind: Config
clusters:
- {name: demo, cluster: {server: "https://10.0.0.1:6443", tls-server-name: api.demo.example, proxy-url: "http://proxy.example:3128", certificate-authority-data: Q0EtREFUQQ==}}
users:
- {name: admin, user: {token: SECRET-TOKEN}}
`
		caFileKubeconfig = `apiVersion: v1
kind: Config
clusters:
- {name: demo, cluster: {server: "https://demo.example:6443", certificate-authority: /etc/ca.crt}}
users:
- {name: admin, user: {token: SECRET-TOKEN}}
`
		tokenAndHalfACertKubeconfig = `apiVersion: v1
kind: Config
clusters:
- {name: demo, cluster: {server: "https://demo.example:6443"}}
users:
- {name: admin, user: {token: SECRET-TOKEN, client-certificate-data: Q0VSVC1EQVRB}}
`
	)

	cases := map[string]struct {
		cluster    *kaasv1alpha1.XSCSCluster
		argoCD     map[string]any
		ready      bool
		kubeconfig string
		observed   map[string]ObservedResource
		// want is the registration rendered; nil: none.
		want      *unstructured.Unstructured
		wantEvent string
	}{
		"NotWhenTheEnvironmentHasNoArgoCD": {cluster: claim(), ready: true, kubeconfig: certKubeconfig},
		"NotBeforeTheClusterIsReady":       {cluster: claim(), argoCD: map[string]any{"namespace": "argocd"}, kubeconfig: certKubeconfig},
		"AClaimInTheEnvironmentsNamespace": {cluster: claim(), argoCD: map[string]any{"namespace": "argocd"}, ready: true, kubeconfig: certKubeconfig,
			want: registered},
		"ANamespacedCompositeInItsOwn": {cluster: namespacedCluster(nil), argoCD: map[string]any{"namespace": "argocd"}, ready: true, kubeconfig: certKubeconfig,
			want: argoCDSecret("demo-dfqog7", "team-a", "team-a", "https://demo.example:6443", certConfig)},
		"ATokenAndNoCA": {cluster: claim(), argoCD: map[string]any{"namespace": "argocd"}, ready: true, kubeconfig: tokenKubeconfig,
			want: argoCDSecret("demo-dfqog7", "argocd", "team-a", "https://demo.example:6443", `{"bearerToken":"SECRET-TOKEN","tlsClientConfig":{"insecure":true}}`)},
		"AnExecKubeconfigIsNotRegistered": {cluster: claim(), argoCD: map[string]any{"namespace": "argocd"}, ready: true, kubeconfig: execKubeconfig,
			wantEvent: "the cluster is not registered in Argo CD (namespace argocd): its kubeconfig signs in with a program (exec or auth-provider), which Argo CD cannot run; deliver client certificates or a token"},
		"ATokenWithHalfACertificate": {cluster: claim(), argoCD: map[string]any{"namespace": "argocd"}, ready: true, kubeconfig: tokenAndHalfACertKubeconfig,
			want: argoCDSecret("demo-dfqog7", "argocd", "team-a", "https://demo.example:6443", `{"bearerToken":"SECRET-TOKEN","tlsClientConfig":{"insecure":false}}`)},
		"AServerNameAndAProxy": {cluster: claim(), argoCD: map[string]any{"namespace": "argocd"}, ready: true, kubeconfig: serverNameAndProxyKubeconfig,
			want: argoCDSecret("demo-dfqog7", "argocd", "team-a", "https://10.0.0.1:6443",
				`{"bearerToken":"SECRET-TOKEN","proxyUrl":"http://proxy.example:3128","tlsClientConfig":{"insecure":false,"serverName":"api.demo.example","caData":"Q0EtREFUQQ=="}}`)},
		"ACAByFileIsNotRegistered": {cluster: claim(), argoCD: map[string]any{"namespace": "argocd"}, ready: true, kubeconfig: caFileKubeconfig,
			wantEvent: "the cluster is not registered in Argo CD (namespace argocd): its kubeconfig names its CA by a file (certificate-authority), which Argo CD cannot read; deliver certificate-authority-data"},
		"ACurrentContextThatIsNotThere": {cluster: claim(), argoCD: map[string]any{"namespace": "argocd"}, ready: true, kubeconfig: otherContextKubeconfig,
			wantEvent: "the cluster is not registered in Argo CD (namespace argocd): its kubeconfig names no server for its current context"},
		"StaysWhereItWasMadeRenewed": {cluster: claim(), argoCD: map[string]any{"namespace": "gitops"}, ready: true, kubeconfig: certKubeconfig,
			observed: observedStale(), want: renewed},
		"StaysWhenTheEnvironmentStopsRegistering": {cluster: claim(), ready: true, kubeconfig: certKubeconfig,
			observed: observedStale(), want: renewed},
		"StaysAsItWasWhileNoKubeconfigIsDelivered": {cluster: claim(), argoCD: map[string]any{"namespace": "argocd"},
			observed: observedStale(), want: stale},
		"StaysAsItWasWhenTheKubeconfigCannotBeUsed": {cluster: claim(), argoCD: map[string]any{"namespace": "argocd"}, ready: true, kubeconfig: execKubeconfig,
			observed: observedStale(), want: stale,
			wantEvent: "the cluster's Argo CD registration (namespace argocd) stays as last applied: its kubeconfig signs in with a program (exec or auth-provider), which Argo CD cannot run; deliver client certificates or a token"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := NewRegistry(fakeBackend{ready: tc.ready, kubeconfig: tc.kubeconfig}).Reconcile(Input{Cluster: tc.cluster,
				Required: registrationEnvironments(tc.argoCD), Observed: tc.observed, KubeconfigSecret: "demo-kubeconfig", ConnectionSecret: "demo-kubeconfig"})
			if err != nil {
				t.Fatalf("Reconcile: %v", err)
			}
			var got *unstructured.Unstructured
			for _, r := range out.Rendering.Resources {
				if r.Name == ResourceArgoCDCluster {
					if got != nil {
						t.Errorf("%s is rendered twice", r.Name)
					}
					got = r.Object
					if !out.Observation.ResourceReady[r.Name] {
						t.Errorf("%s is not ready for Crossplane: Argo CD's view would make the cluster un-Ready", r.Name)
					}
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("registration: -want, +got:\n%s", diff)
			}
			var warned []string
			for _, e := range out.Events {
				if e.Type == EventWarning && e.Reason != kaasv1alpha1.ReasonRegistrationImpossible {
					t.Errorf("unexpected warning %s: %s", e.Reason, e.Message)
				}
				if e.Reason == kaasv1alpha1.ReasonRegistrationImpossible {
					warned = append(warned, e.Message)
					if strings.Contains(e.Message, "SECRET") {
						t.Errorf("the event quotes a credential: %s", e.Message)
					}
				}
			}
			if want := tc.wantEvent; (want == "") != (len(warned) == 0) || (want != "" && warned[0] != want) {
				t.Errorf("registration warnings = %q, want %q", warned, want)
			}
		})
	}
}

func TestValidateArgoCDRegistration(t *testing.T) {
	cases := map[string]struct {
		region string
		argoCD *envv1alpha1.ArgoCDRegistration
		want   []string
	}{
		"None":       {region: "any region"},
		"Registered": {region: "RegionOne", argoCD: &envv1alpha1.ArgoCDRegistration{Namespace: "argocd"}},
		"NoNamespace": {region: "RegionOne", argoCD: &envv1alpha1.ArgoCDRegistration{},
			want: []string{"data.argoCD.namespace: Required value: the namespace Argo CD runs in, such as argocd"}},
		"NotANamespace": {region: "RegionOne", argoCD: &envv1alpha1.ArgoCDRegistration{Namespace: "Argo_CD"},
			want: []string{`data.argoCD.namespace: Invalid value: "Argo_CD": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`}},
		"ARegionNoLabelCanCarry": {region: "region one", argoCD: &envv1alpha1.ArgoCDRegistration{Namespace: "argocd"},
			want: []string{`data.region: Invalid value: "region one": labels the Argo CD cluster Secrets (kaas.scs.community/region): a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			env := &Environment{}
			env.Region, env.ArgoCD = tc.region, tc.argoCD
			var got []string
			for _, e := range validateArgoCDRegistration(field.NewPath("data"), env) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
		})
	}
}
