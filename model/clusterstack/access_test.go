package clusterstack

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// accessEnvironment is an scs2 environment that maps both access variables and runs its
// API server load balancer on Octavia amphora, where allowed CIDRs apply.
func accessEnvironment() *model.Environment {
	env := environment("local")
	env.ClusterStack.VariableNames["oidcConfig"] = "oidcConfig"
	env.ClusterStack.VariableNames["apiServerAllowedCIDRs"] = "apiServerLoadBalancerOctaviaAmphoraAllowedCIDRs"
	env.ClusterStack.Variables["apiServerLoadBalancer"] = json.RawMessage(`"octavia-amphora"`)
	return env
}

// accessRequest is a request whose access the model resolved to access; spec, when not
// nil, is the spec's own access, which the backend reads only to say where a CA came from.
func accessRequest(env *model.Environment, access model.Access, own *kaasv1alpha1.AccessSpec, observed *clusterv1.Cluster) *model.Request {
	s := spec()
	s.Access = own
	req := request(s, env, standardReleases(), observed)
	req.Access = access
	return req
}

func teamOIDC(prefix string) *model.OIDC {
	return &model.OIDC{OIDCStatus: kaasv1alpha1.OIDCStatus{IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl",
		UsernameClaim: "email", UsernamePrefix: prefix}}
}

// TestRenderAccess writes down the topology variables of the access: oidcConfig with all
// six fields (the ClusterClass would default the groups claim otherwise, and "-" is
// kube-apiserver's "no prefix"), and the amphora load balancer's allowed CIDRs.
func TestRenderAccess(t *testing.T) {
	// The variables every cluster of accessEnvironment has, sorted by name as rendered.
	lb := clusterv1.ClusterVariable{Name: "apiServerLoadBalancer", Value: jsonValue(`"octavia-amphora"`)}
	common := []clusterv1.ClusterVariable{
		{Name: "controlPlaneAvailabilityZones", Value: jsonValue(`["az1","az2","az3"]`)},
		{Name: "identityRef", Value: jsonValue(`{"name":"openstack","cloudName":"openstack"}`)},
		{Name: "networkExternalID", Value: jsonValue(`"ebfe5546-f09f-4f42-ab54-094e457d42ec"`)},
		{Name: "nodeCIDR", Value: jsonValue(`"10.8.0.0/20"`)},
	}
	cases := map[string]struct {
		access model.Access
		want   []clusterv1.ClusterVariable
	}{
		"NoAccess": {want: append([]clusterv1.ClusterVariable{lb}, common...)},
		"EmptyUsernamePrefixAndNoGroups": {
			access: model.Access{OIDC: teamOIDC("")},
			want: append(append([]clusterv1.ClusterVariable{lb}, common...), clusterv1.ClusterVariable{Name: "oidcConfig", Value: jsonValue(
				`{"issuerURL":"https://login.example.com/realms/team","clientID":"kubectl","usernameClaim":"email","usernamePrefix":"-","groupsClaim":"","groupsPrefix":""}`)}),
		},
		"PrefixesAndGroups": {
			access: model.Access{OIDC: &model.OIDC{OIDCStatus: kaasv1alpha1.OIDCStatus{IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl",
				UsernameClaim: "sub", UsernamePrefix: "oidc:", GroupsClaim: "groups", GroupsPrefix: "team:"}}},
			want: append(append([]clusterv1.ClusterVariable{lb}, common...), clusterv1.ClusterVariable{Name: "oidcConfig", Value: jsonValue(
				`{"issuerURL":"https://login.example.com/realms/team","clientID":"kubectl","usernameClaim":"sub","usernamePrefix":"oidc:","groupsClaim":"groups","groupsPrefix":"team:"}`)}),
		},
		"Ranges": {
			access: model.Access{AllowedSourceRanges: []string{"10.0.0.0/8", "203.0.113.0/24"}},
			want: append([]clusterv1.ClusterVariable{lb,
				{Name: "apiServerLoadBalancerOctaviaAmphoraAllowedCIDRs", Value: jsonValue(`["10.0.0.0/8","203.0.113.0/24"]`)}}, common...),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, _ := renderedCluster(t, accessRequest(accessEnvironment(), tc.access, nil, nil))
			if diff := cmp.Diff(tc.want, c.Spec.Topology.Variables, cmpJSON); diff != "" {
				t.Errorf("topology variables: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestValidateAccess: what the stack cannot apply is refused, naming the field, never left
// open while the status says it is closed.
func TestValidateAccess(t *testing.T) {
	ref := &kaasv1alpha1.AccessSpec{OIDC: &kaasv1alpha1.OIDCSpec{
		OIDCClaims:              kaasv1alpha1.OIDCClaims{IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl"},
		CertificateAuthorityRef: &kaasv1alpha1.ConfigMapKeyRef{Name: "issuer-ca"}}}
	withCA := teamOIDC("oidc:")
	withCA.CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
	ranges := model.Access{AllowedSourceRanges: []string{"203.0.113.0/24"}}
	cases := map[string]struct {
		env    func(e *model.Environment)
		access model.Access
		spec   *kaasv1alpha1.AccessSpec
		want   []string
	}{
		"IssuerAndRanges": {access: model.Access{OIDC: teamOIDC(""), AllowedSourceRanges: []string{"203.0.113.0/24"}}},
		"CAOfTheSpec": {
			access: model.Access{OIDC: withCA}, spec: ref,
			want: []string{"spec.access.oidc.certificateAuthorityRef: Forbidden: the CA cannot reach the API server: the Cluster Stack's oidcConfig variable takes no CA, so the issuer's certificate must be publicly trusted"},
		},
		"CAOfTheEnvironment": {
			access: model.Access{OIDC: withCA},
			want:   []string{"spec.access.oidc: Forbidden: the issuer's CA (from the environment's defaults.access.oidc.certificateAuthority) cannot reach the API server: the Cluster Stack's oidcConfig variable takes no CA, so the issuer's certificate must be publicly trusted"},
		},
		"NoOIDCVariable": {
			env:    func(e *model.Environment) { delete(e.ClusterStack.VariableNames, "oidcConfig") },
			access: model.Access{OIDC: teamOIDC("")},
			want:   []string{"spec.access.oidc: Forbidden: this Cluster Stack environment maps no topology variable to it (data.clusterStack.variableNames.oidcConfig; scs2: oidcConfig)"},
		},
		"NoCIDRVariable": {
			env:    func(e *model.Environment) { delete(e.ClusterStack.VariableNames, "apiServerAllowedCIDRs") },
			access: ranges,
			want:   []string{"spec.access.allowedSourceRanges: Forbidden: this Cluster Stack environment maps no topology variable to it (data.clusterStack.variableNames.apiServerAllowedCIDRs; scs2: apiServerLoadBalancerOctaviaAmphoraAllowedCIDRs)"},
		},
		// scs2 defaults its load balancer to octavia-ovn, where the amphora variable does nothing.
		"AmphoraVariableWithTheDefaultLoadBalancer": {
			env:    func(e *model.Environment) { delete(e.ClusterStack.Variables, "apiServerLoadBalancer") },
			access: ranges,
			want:   []string{`spec.access.allowedSourceRanges: Forbidden: the stack applies apiServerLoadBalancerOctaviaAmphoraAllowedCIDRs only with data.clusterStack.variables.apiServerLoadBalancer "octavia-amphora", and this environment's API server load balancer is "octavia-ovn"`},
		},
		"AmphoraVariableWithAnotherLoadBalancer": {
			env: func(e *model.Environment) {
				e.ClusterStack.Variables["apiServerLoadBalancer"] = json.RawMessage(`"none"`)
			},
			access: ranges,
			want:   []string{`spec.access.allowedSourceRanges: Forbidden: the stack applies apiServerLoadBalancerOctaviaAmphoraAllowedCIDRs only with data.clusterStack.variables.apiServerLoadBalancer "octavia-amphora", and this environment's API server load balancer is "none"`},
		},
		// A stack whose variable is not the amphora one decides itself where it applies.
		"AnotherCIDRVariable": {
			env: func(e *model.Environment) {
				e.ClusterStack.VariableNames["apiServerAllowedCIDRs"] = "api_server_allowed_cidrs"
				delete(e.ClusterStack.Variables, "apiServerLoadBalancer")
			},
			access: ranges,
		},
		// Without access, nothing about it is checked.
		"NoAccessNeedsNoVariables": {
			env: func(e *model.Environment) {
				delete(e.ClusterStack.VariableNames, "oidcConfig")
				delete(e.ClusterStack.VariableNames, "apiServerAllowedCIDRs")
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			env := accessEnvironment()
			if tc.env != nil {
				tc.env(env)
			}
			var got []string
			for _, e := range invalidOf(accessRequest(env, tc.access, tc.spec, nil)) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("refusals: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestAccessInForce: status.access is what the observed Cluster's variables carry; "-" is
// no prefix.
func TestAccessInForce(t *testing.T) {
	observed := func(vars ...clusterv1.ClusterVariable) *clusterv1.Cluster {
		c := existingCluster()
		c.Spec.Topology.Variables = append([]clusterv1.ClusterVariable{{Name: "nodeCIDR", Value: jsonValue(`"10.8.0.0/20"`)}}, vars...)
		return c
	}
	oidc := clusterv1.ClusterVariable{Name: "oidcConfig", Value: jsonValue(
		`{"issuerURL":"https://login.example.com/realms/team","clientID":"kubectl","usernameClaim":"email","usernamePrefix":"-","groupsClaim":"groups","groupsPrefix":"oidc:"}`)}
	cidrs := clusterv1.ClusterVariable{Name: "apiServerLoadBalancerOctaviaAmphoraAllowedCIDRs", Value: jsonValue(`["10.0.0.0/8","203.0.113.0/24"]`)}
	cases := map[string]struct {
		env      func(e *model.Environment)
		observed *clusterv1.Cluster
		want     *kaasv1alpha1.AccessStatus
	}{
		"Nothing": {observed: observed()},
		"IssuerAndRanges": {
			observed: observed(oidc, cidrs),
			want: &kaasv1alpha1.AccessStatus{
				OIDC: &kaasv1alpha1.OIDCStatus{IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl",
					UsernameClaim: "email", UsernamePrefix: "", GroupsClaim: "groups", GroupsPrefix: "oidc:"},
				AllowedSourceRanges: []string{"10.0.0.0/8", "203.0.113.0/24"},
			},
		},
		"OIDCConfigWithoutIssuer": {
			observed: observed(clusterv1.ClusterVariable{Name: "oidcConfig", Value: jsonValue(`{"issuerURL":""}`)}),
		},
		// Variables the environment maps to nothing are not the access's.
		"Unmapped": {
			env: func(e *model.Environment) {
				delete(e.ClusterStack.VariableNames, "oidcConfig")
				delete(e.ClusterStack.VariableNames, "apiServerAllowedCIDRs")
			},
			observed: observed(oidc, cidrs),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			env := accessEnvironment()
			if tc.env != nil {
				tc.env(env)
			}
			obs, err := observeOf(accessRequest(env, model.Access{}, nil, tc.observed))
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
// Cluster Stacks backend declares: new flags roll the control plane, new CIDRs apply in
// place.
func TestPreviewAccessEdit(t *testing.T) {
	current, edited := spec(), spec()
	current.Access = &kaasv1alpha1.AccessSpec{
		OIDC:                &kaasv1alpha1.OIDCSpec{OIDCClaims: kaasv1alpha1.OIDCClaims{IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl"}},
		AllowedSourceRanges: []string{"203.0.113.0/24"},
	}
	edited.Access = &kaasv1alpha1.AccessSpec{
		OIDC: &kaasv1alpha1.OIDCSpec{OIDCClaims: kaasv1alpha1.OIDCClaims{IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl",
			GroupsClaim: "groups"}},
		AllowedSourceRanges: []string{"203.0.113.0/24", "198.51.100.0/24"},
	}
	var got []string
	for _, e := range model.Edits(New().Capabilities(), &current, &edited) {
		got = append(got, string(e.Field)+": "+e.Summary())
	}
	want := []string{
		`access.allowedSourceRanges: in place: spec.access.allowedSourceRanges ["203.0.113.0/24"] -> ["203.0.113.0/24","198.51.100.0/24"]`,
		"access.oidc: control plane rolls: spec.access.oidc.groupsClaim (unset) -> groups (the KubeadmControlPlane rolls the control plane machines with the new flags)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("edits: -want, +got:\n%s", diff)
	}
}

// TestValidateEnvironmentAcceptsTheAccessVariables: an environment may map both access
// variables; without them, a cluster that asks for access is refused.
func TestValidateEnvironmentAcceptsTheAccessVariables(t *testing.T) {
	if errs := New().ValidateEnvironment(accessEnvironment()); len(errs) > 0 {
		t.Errorf("ValidateEnvironment: %v", errs.ToAggregate())
	}
}
