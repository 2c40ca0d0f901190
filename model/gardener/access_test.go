package gardener

import (
	"testing"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/providerkubernetes"
)

// issuerCA stands for an issuer's PEM CA; the backend carries it as it is.
const issuerCA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

// teamOIDC is an issuer as the model resolves it: email for the user without a prefix,
// groups with the default one, and a CA.
func teamOIDC() *model.OIDC {
	return &model.OIDC{CA: issuerCA, OIDCStatus: kaasv1alpha1.OIDCStatus{IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl",
		UsernameClaim: "email", UsernamePrefix: "", GroupsClaim: "groups", GroupsPrefix: "oidc:"}}
}

// teamConfig is the AuthenticationConfiguration of teamOIDC.
const teamConfig = `apiVersion: apiserver.config.k8s.io/v1beta1
jwt:
- claimMappings:
    groups:
      claim: groups
      prefix: 'oidc:'
    username:
      claim: email
      prefix: ""
  issuer:
    audiences:
    - kubectl
    certificateAuthority: |
      -----BEGIN CERTIFICATE-----
      MIIB
      -----END CERTIFICATE-----
    url: https://login.example.com/realms/team
kind: AuthenticationConfiguration
`

// emptyConfig is what a cluster that stopped signing people in keeps.
const emptyConfig = `apiVersion: apiserver.config.k8s.io/v1beta1
jwt: []
kind: AuthenticationConfiguration
`

// accessRequest is a request for fullSpec whose access the model resolved to access.
func accessRequest(access model.Access, observed *gardencorev1beta1.Shoot) *model.Request {
	req := request(fullSpec(), environment(), observed)
	req.Access = access
	return req
}

// renderedAccess renders and returns the Shoot and the native authentication ConfigMap
// (nil when none is rendered) with the name of the Object around it.
func renderedAccess(t *testing.T, req *model.Request) (*gardencorev1beta1.Shoot, map[string]any, string) {
	t.Helper()
	r, err := renderOf(req)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	shoot := &gardencorev1beta1.Shoot{}
	var cm map[string]any
	var wrapper string
	for _, res := range r.Resources {
		m := res.Object.Object
		if providerkubernetes.IsObject(res.Object) {
			m, _, _ = unstructured.NestedMap(m, "spec", "forProvider", "manifest")
		}
		switch res.Name {
		case ResourceShoot:
			if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(m, shoot, true); err != nil {
				t.Fatalf("the rendered manifest is not a valid Shoot: %v", err)
			}
		case ResourceAuthentication:
			cm, wrapper = m, res.Object.GetName()
		}
	}
	return shoot, cm, wrapper
}

// authenticationConfigMapOf is the ConfigMap the backend must render with the given
// configuration, as the garden cluster gets it.
func authenticationConfigMapOf(config string) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "shop-x7k2p-authn", "namespace": "garden-team1", "labels": map[string]any{"kaas.scs.community/cluster": "shop-x7k2p"}},
		"data":     map[string]any{"config.yaml": config},
	}
}

// TestRenderAccess writes down what the Shoot and its ConfigMap carry of the access the
// model resolved: structured authentication for an issuer, the ACL extension for ranges.
func TestRenderAccess(t *testing.T) {
	structured := &gardencorev1beta1.KubeAPIServerConfig{StructuredAuthentication: &gardencorev1beta1.StructuredAuthentication{ConfigMapName: "shop-x7k2p-authn"}}
	acl := []gardencorev1beta1.Extension{{Type: "acl", ProviderConfig: &runtime.RawExtension{Raw: []byte(
		`{"rule":{"action":"ALLOW","type":"remote_ip","cidrs":["10.0.0.0/8","203.0.113.0/24"]}}`)}}}
	cases := map[string]struct {
		access         model.Access
		wantAPIServer  *gardencorev1beta1.KubeAPIServerConfig
		wantExtensions []gardencorev1beta1.Extension
		wantConfigMap  map[string]any
	}{
		"NoAccess": {},
		"IssuerAndRanges": {
			access:         model.Access{OIDC: teamOIDC(), AllowedSourceRanges: []string{"10.0.0.0/8", "203.0.113.0/24"}},
			wantAPIServer:  structured,
			wantExtensions: acl,
			wantConfigMap:  authenticationConfigMapOf(teamConfig),
		},
		"PubliclyTrustedIssuerWithoutGroups": {
			access: model.Access{OIDC: &model.OIDC{OIDCStatus: kaasv1alpha1.OIDCStatus{IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl",
				UsernameClaim: "sub", UsernamePrefix: "oidc:"}}},
			wantAPIServer: structured,
			wantConfigMap: authenticationConfigMapOf(`apiVersion: apiserver.config.k8s.io/v1beta1
jwt:
- claimMappings:
    username:
      claim: sub
      prefix: 'oidc:'
  issuer:
    audiences:
    - kubectl
    url: https://login.example.com/realms/team
kind: AuthenticationConfiguration
`),
		},
		"RangesOnly": {
			access:         model.Access{AllowedSourceRanges: []string{"10.0.0.0/8", "203.0.113.0/24"}},
			wantExtensions: acl,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			shoot, cm, wrapper := renderedAccess(t, accessRequest(tc.access, nil))
			if diff := cmp.Diff(tc.wantAPIServer, shoot.Spec.Kubernetes.KubeAPIServer); diff != "" {
				t.Errorf("spec.kubernetes.kubeAPIServer: -want, +got:\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantExtensions, shoot.Spec.Extensions, cmpRawJSON); diff != "" {
				t.Errorf("spec.extensions: -want, +got:\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantConfigMap, cm); diff != "" {
				t.Errorf("authentication ConfigMap: -want, +got:\n%s", diff)
			}
			if tc.wantConfigMap != nil && wrapper != "shop-x7k2p-authn" {
				t.Errorf("the ConfigMap's Object is %q, want shop-x7k2p-authn (derived from the immutable name)", wrapper)
			}
		})
	}
}

// observedAuthentication is the authentication ConfigMap as provider-kubernetes reports it.
func observedAuthentication(name, config string) model.ObservedResource {
	m := map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": "garden-team1"},
		"data":     map[string]any{"config.yaml": config},
	}
	o := providerkubernetes.Wrap(map[string]any{}, providerkubernetes.WrapOptions{Name: "shop-x7k2p-authn", ProviderConfigName: "garden"})
	o.Object["status"] = map[string]any{"atProvider": map[string]any{"manifest": m}}
	return model.ObservedResource{Object: o}
}

// TestRenderAccessRemovedKeepsAnEmptyConfigMap: a cluster that stops signing people in
// keeps the ConfigMap it composed, empty, and its Shoot references it no more; one that
// never had an issuer gets none.
func TestRenderAccessRemovedKeepsAnEmptyConfigMap(t *testing.T) {
	s := existingShoot()
	s.Spec.Kubernetes.KubeAPIServer = &gardencorev1beta1.KubeAPIServerConfig{StructuredAuthentication: &gardencorev1beta1.StructuredAuthentication{ConfigMapName: "shop-x7k2p-authn"}}
	req := accessRequest(model.Access{}, s)
	req.Observed[ResourceAuthentication] = observedAuthentication("shop-x7k2p-authn", teamConfig)
	shoot, cm, _ := renderedAccess(t, req)
	if diff := cmp.Diff(authenticationConfigMapOf(emptyConfig), cm); diff != "" {
		t.Errorf("authentication ConfigMap: -want, +got:\n%s", diff)
	}
	if shoot.Spec.Kubernetes.KubeAPIServer != nil {
		t.Errorf("spec.kubernetes.kubeAPIServer = %+v, want none", shoot.Spec.Kubernetes.KubeAPIServer)
	}

	if _, cm, _ := renderedAccess(t, accessRequest(model.Access{}, existingShoot())); cm != nil {
		t.Errorf("a cluster that never had an issuer got an authentication ConfigMap: %v", cm)
	}
}

// TestAccessInForce: status.access is what the observed Shoot and its ConfigMap carry,
// whatever the spec says.
func TestAccessInForce(t *testing.T) {
	withAccess := func(configMap string, extensions ...gardencorev1beta1.Extension) *gardencorev1beta1.Shoot {
		s := existingShoot()
		healthyStatus(s)
		if configMap != "" {
			s.Spec.Kubernetes.KubeAPIServer = &gardencorev1beta1.KubeAPIServerConfig{StructuredAuthentication: &gardencorev1beta1.StructuredAuthentication{ConfigMapName: configMap}}
		}
		s.Spec.Extensions = extensions
		return s
	}
	acl := gardencorev1beta1.Extension{Type: "acl", ProviderConfig: &runtime.RawExtension{Raw: []byte(
		`{"rule":{"action":"ALLOW","type":"remote_ip","cidrs":["10.0.0.0/8","203.0.113.0/24"]}}`)}}
	disabled := *acl.DeepCopy()
	disabled.Disabled = ptrTo(true)
	team := &kaasv1alpha1.OIDCStatus{IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl",
		UsernameClaim: "email", UsernamePrefix: "", GroupsClaim: "groups", GroupsPrefix: "oidc:"}

	cases := map[string]struct {
		shoot     *gardencorev1beta1.Shoot
		configMap *model.ObservedResource
		want      *kaasv1alpha1.AccessStatus
	}{
		"Nothing": {shoot: withAccess("")},
		"IssuerAndRanges": {
			shoot:     withAccess("shop-x7k2p-authn", gardencorev1beta1.Extension{Type: "shoot-dns-service"}, acl),
			configMap: ptrTo(observedAuthentication("shop-x7k2p-authn", teamConfig)),
			want:      &kaasv1alpha1.AccessStatus{OIDC: team, AllowedSourceRanges: []string{"10.0.0.0/8", "203.0.113.0/24"}},
		},
		"ConfigMapNotObservedYet": {
			shoot: withAccess("shop-x7k2p-authn", acl),
			want:  &kaasv1alpha1.AccessStatus{AllowedSourceRanges: []string{"10.0.0.0/8", "203.0.113.0/24"}},
		},
		"ShootReferencesAnotherConfigMap": {
			shoot:     withAccess("someone-elses"),
			configMap: ptrTo(observedAuthentication("shop-x7k2p-authn", teamConfig)),
		},
		"ShootNoLongerReferencesIt": {
			shoot:     withAccess(""),
			configMap: ptrTo(observedAuthentication("shop-x7k2p-authn", teamConfig)),
		},
		"EmptyConfiguration": {
			shoot:     withAccess("shop-x7k2p-authn"),
			configMap: ptrTo(observedAuthentication("shop-x7k2p-authn", emptyConfig)),
		},
		"DisabledACL": {shoot: withAccess("", disabled)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			req := accessRequest(model.Access{}, tc.shoot)
			if tc.configMap != nil {
				req.Observed[ResourceAuthentication] = *tc.configMap
			}
			obs, err := observeOf(req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, obs.Status.Access); diff != "" {
				t.Errorf("status.access: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestPreviewAccessEdit: kubectl scs diff classifies an access edit with the effect the
// Gardener backend declares: a new issuer rolls the kube-apiserver, new ranges apply in
// place.
func TestPreviewAccessEdit(t *testing.T) {
	current, edited := fullSpec(), fullSpec()
	current.Access = &kaasv1alpha1.AccessSpec{
		OIDC:                &kaasv1alpha1.OIDCSpec{OIDCClaims: kaasv1alpha1.OIDCClaims{IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl"}},
		AllowedSourceRanges: []string{"203.0.113.0/24"},
	}
	edited.Access = &kaasv1alpha1.AccessSpec{
		OIDC:                &kaasv1alpha1.OIDCSpec{OIDCClaims: kaasv1alpha1.OIDCClaims{IssuerURL: "https://login.example.com/realms/team", ClientID: "kubelogin"}},
		AllowedSourceRanges: []string{"198.51.100.0/24"},
	}
	var got []string
	for _, e := range model.Edits(New().Capabilities(), &current, &edited) {
		got = append(got, string(e.Field)+": "+e.Summary())
	}
	want := []string{
		`access.allowedSourceRanges: in place: spec.access.allowedSourceRanges ["203.0.113.0/24"] -> ["198.51.100.0/24"]`,
		"access.oidc: control plane rolls: spec.access.oidc.clientID kubectl -> kubelogin (Gardener rolls the kube-apiserver with the new authentication configuration)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("edits: -want, +got:\n%s", diff)
	}
}
