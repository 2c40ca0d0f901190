package magnum

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// teamOIDC is an issuer as the model resolves it, publicly trusted.
func teamOIDC(usernamePrefix string) *model.OIDC {
	return &model.OIDC{OIDCStatus: kaasv1alpha1.OIDCStatus{IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl",
		UsernameClaim: "email", UsernamePrefix: usernamePrefix}}
}

// accessRequest is a request for s whose access the model resolved to access.
func accessRequest(s kaasv1alpha1.ClusterSpec, env *model.Environment, access model.Access, observed ...*unstructured.Unstructured) *model.Request {
	req := request(s, env, observed...)
	req.Access = access
	return req
}

// renderedLabels are the labels of the rendered ClusterV1.
func renderedLabels(t *testing.T, req *model.Request) map[string]any {
	t.Helper()
	r, err := renderOf(req)
	if err != nil {
		t.Fatal(err)
	}
	labels, _, _ := unstructured.NestedMap(resource(t, r, ResourceCluster), "spec", "forProvider", "labels")
	return labels
}

// TestRenderAccess writes down the ClusterV1's labels of the access: kube-apiserver's
// --oidc-* flags ("-" for no username prefix) and the load balancer's allowed CIDRs.
func TestRenderAccess(t *testing.T) {
	labels := func(access map[string]any) map[string]any {
		out := map[string]any{
			"auto_scaling_enabled": "true", "availability_zone": "nova",
			"calico_ipv4pool": "10.100.0.0/16", "service_cluster_ip_range": "10.254.0.0/16",
			"ingress_controller": "octavia",
		}
		for k, v := range access {
			out[k] = v
		}
		return out
	}
	cases := map[string]struct {
		access model.Access
		want   map[string]any
	}{
		"NoAccess": {want: labels(nil)},
		"EmptyUsernamePrefixAndNoGroups": {
			access: model.Access{OIDC: teamOIDC("")},
			want: labels(map[string]any{
				"oidc_issuer_url": "https://login.example.com/realms/team", "oidc_client_id": "kubectl",
				"oidc_username_claim": "email", "oidc_username_prefix": "-",
			}),
		},
		"PrefixesGroupsAndRanges": {
			access: model.Access{
				OIDC: &model.OIDC{OIDCStatus: kaasv1alpha1.OIDCStatus{IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl",
					UsernameClaim: "sub", UsernamePrefix: "oidc:", GroupsClaim: "groups", GroupsPrefix: "team:"}},
				AllowedSourceRanges: []string{"10.0.0.0/8", "192.0.2.10/32", "203.0.113.0/24"},
			},
			want: labels(map[string]any{
				"oidc_issuer_url": "https://login.example.com/realms/team", "oidc_client_id": "kubectl",
				"oidc_username_claim": "sub", "oidc_username_prefix": "oidc:",
				"oidc_groups_claim": "groups", "oidc_groups_prefix": "team:",
				"master_lb_allowed_cidrs": "10.0.0.0/8,192.0.2.10/32,203.0.113.0/24",
			}),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, renderedLabels(t, accessRequest(spec(), environment(), tc.access))); diff != "" {
				t.Errorf("ClusterV1 labels: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestValidateAccess: what Magnum cannot apply is refused, naming the field: an issuer's
// CA (no label takes one), and ranges without a load balancer in front of the API server.
func TestValidateAccess(t *testing.T) {
	withCA := teamOIDC("oidc:")
	withCA.CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
	ref := &kaasv1alpha1.AccessSpec{OIDC: &kaasv1alpha1.OIDCSpec{
		OIDCClaims:              kaasv1alpha1.OIDCClaims{IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl"},
		CertificateAuthorityRef: &kaasv1alpha1.ConfigMapKeyRef{Name: "issuer-ca"}}}
	ranges := model.Access{AllowedSourceRanges: []string{"203.0.113.0/24"}}
	single := func(s *kaasv1alpha1.ClusterSpec) { s.ControlPlane.HighAvailability = ptrTo(false) }
	cases := map[string]struct {
		spec   func(s *kaasv1alpha1.ClusterSpec)
		env    func(e *model.Environment)
		access model.Access
		want   []string
	}{
		"PubliclyTrustedIssuerAndRangesOfAHACluster": {access: model.Access{OIDC: teamOIDC(""), AllowedSourceRanges: []string{"203.0.113.0/24"}}},
		"CAOfTheSpec": {
			spec:   func(s *kaasv1alpha1.ClusterSpec) { s.Access = ref },
			access: model.Access{OIDC: withCA},
			want:   []string{"spec.access.oidc.certificateAuthorityRef: Forbidden: the CA cannot reach the API server: Magnum has no label for an issuer's CA, so its certificate must be publicly trusted"},
		},
		"CAOfTheEnvironment": {
			access: model.Access{OIDC: withCA},
			want:   []string{"spec.access.oidc: Forbidden: the issuer's CA (from the environment's defaults.access.oidc.certificateAuthority) cannot reach the API server: Magnum has no label for an issuer's CA, so its certificate must be publicly trusted"},
		},
		"RangesOfASingleControlPlaneNode": {
			spec: single, access: ranges,
			want: []string{"spec.access.allowedSourceRanges: Forbidden: Magnum restricts the API server at its load balancer (label master_lb_allowed_cidrs), and a single control plane node gets none in this environment: set spec.controlPlane.highAvailability, or ask for data.magnum.masterLBEnabled"},
		},
		"RangesOfASingleNodeBehindTheEnvironmentsLoadBalancer": {
			spec: single, env: func(e *model.Environment) { e.Magnum.MasterLBEnabled = true }, access: ranges,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := spec()
			if tc.spec != nil {
				tc.spec(&s)
			}
			env := environment()
			if tc.env != nil {
				tc.env(env)
			}
			var got []string
			for _, e := range invalidOf(accessRequest(s, env, tc.access)) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("refusals: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestAccessChangesAreRefused: the access labels are ForceNew: a change on an existing
// cluster is refused naming spec.access, never applied.
func TestAccessChangesAreRefused(t *testing.T) {
	created := model.Access{OIDC: teamOIDC(""), AllowedSourceRanges: []string{"203.0.113.0/24"}}
	cases := map[string]struct {
		before, after model.Access
		want          []string
	}{
		"Unchanged": {before: created, after: created},
		"OtherIssuer": {
			before: created,
			after: model.Access{OIDC: &model.OIDC{OIDCStatus: kaasv1alpha1.OIDCStatus{IssuerURL: "https://login.example.com/realms/other", ClientID: "kubectl",
				UsernameClaim: "email"}}, AllowedSourceRanges: []string{"203.0.113.0/24"}},
			want: []string{`spec.access.oidc: Forbidden: Magnum cannot change label oidc_issuer_url of the Magnum cluster in place ("https://login.example.com/realms/team", now "https://login.example.com/realms/other"): it would need a new cluster or node group, so nothing was changed; revert the change or create a new cluster`},
		},
		"GroupsAdded": {
			before: created,
			after: model.Access{OIDC: &model.OIDC{OIDCStatus: kaasv1alpha1.OIDCStatus{IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl",
				UsernameClaim: "email", GroupsClaim: "groups", GroupsPrefix: "oidc:"}}, AllowedSourceRanges: []string{"203.0.113.0/24"}},
			want: []string{
				`spec.access.oidc: Forbidden: Magnum cannot change label oidc_groups_claim of the Magnum cluster in place ("unset", now "groups"): it would need a new cluster or node group, so nothing was changed; revert the change or create a new cluster`,
				`spec.access.oidc: Forbidden: Magnum cannot change label oidc_groups_prefix of the Magnum cluster in place ("unset", now "oidc:"): it would need a new cluster or node group, so nothing was changed; revert the change or create a new cluster`,
			},
		},
		"IssuerAddedToAClusterWithoutOne": {
			after: model.Access{OIDC: teamOIDC("")},
			want: []string{
				`spec.access.oidc: Forbidden: Magnum cannot change label oidc_client_id of the Magnum cluster in place ("unset", now "kubectl"): it would need a new cluster or node group, so nothing was changed; revert the change or create a new cluster`,
				`spec.access.oidc: Forbidden: Magnum cannot change label oidc_issuer_url of the Magnum cluster in place ("unset", now "https://login.example.com/realms/team"): it would need a new cluster or node group, so nothing was changed; revert the change or create a new cluster`,
				`spec.access.oidc: Forbidden: Magnum cannot change label oidc_username_claim of the Magnum cluster in place ("unset", now "email"): it would need a new cluster or node group, so nothing was changed; revert the change or create a new cluster`,
				`spec.access.oidc: Forbidden: Magnum cannot change label oidc_username_prefix of the Magnum cluster in place ("unset", now "-"): it would need a new cluster or node group, so nothing was changed; revert the change or create a new cluster`,
			},
		},
		"OtherRanges": {
			before: created,
			after:  model.Access{OIDC: teamOIDC(""), AllowedSourceRanges: []string{"198.51.100.0/24", "203.0.113.0/24"}},
			want:   []string{`spec.access.allowedSourceRanges: Forbidden: Magnum cannot change label master_lb_allowed_cidrs of the Magnum cluster in place ("203.0.113.0/24", now "198.51.100.0/24,203.0.113.0/24"): it would need a new cluster or node group, so nothing was changed; revert the change or create a new cluster`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			before := accessRequest(spec(), environment(), tc.before)
			cluster := applied(t, before, ResourceCluster, "magnum-id", true)
			var got []string
			for _, e := range invalidOf(accessRequest(spec(), environment(), tc.after, cluster)) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("refusals: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestAccessInForce: status.access is what Magnum reports applied, else what was asked of
// it; "-" is no prefix.
func TestAccessInForce(t *testing.T) {
	base := accessRequest(spec(), environment(), model.Access{OIDC: teamOIDC(""), AllowedSourceRanges: []string{"10.0.0.0/8", "203.0.113.0/24"}})
	asked := applied(t, base, ResourceCluster, "magnum-id", true)
	reported := asked.DeepCopy()
	_ = unstructured.SetNestedStringMap(reported.Object, map[string]string{
		"kube_tag": "v1.34.3", "oidc_issuer_url": "https://login.example.com/realms/applied", "oidc_client_id": "kubectl",
		"oidc_username_claim": "sub", "oidc_username_prefix": "oidc:", "oidc_groups_claim": "groups", "oidc_groups_prefix": "oidc:",
	}, "status", "atProvider", "labels")
	nothing := applied(t, request(spec(), environment()), ResourceCluster, "magnum-id", true)

	access := model.Access{OIDC: teamOIDC(""), AllowedSourceRanges: []string{"10.0.0.0/8", "203.0.113.0/24"}}
	cases := map[string]struct {
		cluster *unstructured.Unstructured
		access  model.Access
		want    *kaasv1alpha1.AccessStatus
	}{
		"AskedOf": {
			cluster: asked, access: access,
			want: &kaasv1alpha1.AccessStatus{
				OIDC:                &kaasv1alpha1.OIDCStatus{IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl", UsernameClaim: "email", UsernamePrefix: ""},
				AllowedSourceRanges: []string{"10.0.0.0/8", "203.0.113.0/24"},
			},
		},
		"ReportedByMagnum": {
			cluster: reported, access: access,
			want: &kaasv1alpha1.AccessStatus{OIDC: &kaasv1alpha1.OIDCStatus{IssuerURL: "https://login.example.com/realms/applied", ClientID: "kubectl",
				UsernameClaim: "sub", UsernamePrefix: "oidc:", GroupsClaim: "groups", GroupsPrefix: "oidc:"}},
		},
		"Nothing": {cluster: nothing},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			// Observed with the access it was asked for: the status says what the cluster has.
			obs, err := observeOf(accessRequest(spec(), environment(), tc.access, tc.cluster))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, obs.Status.Access); diff != "" {
				t.Errorf("status.access: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestPreviewAccessEdit: kubectl scs diff classifies an access edit of a Magnum cluster as
// refused, as the backend declares: the labels are ForceNew.
func TestPreviewAccessEdit(t *testing.T) {
	current, edited := spec(), spec()
	current.Access = &kaasv1alpha1.AccessSpec{
		OIDC:                &kaasv1alpha1.OIDCSpec{OIDCClaims: kaasv1alpha1.OIDCClaims{IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl"}},
		AllowedSourceRanges: []string{"203.0.113.0/24"},
	}
	edited.Access = &kaasv1alpha1.AccessSpec{
		OIDC:                &kaasv1alpha1.OIDCSpec{OIDCClaims: kaasv1alpha1.OIDCClaims{IssuerURL: "https://login.example.com/realms/other", ClientID: "kubectl"}},
		AllowedSourceRanges: []string{"198.51.100.0/24"},
	}
	var got []string
	for _, e := range model.Edits(New().Capabilities(), &current, &edited) {
		got = append(got, string(e.Field)+": "+e.Summary()+" ("+e.Note+")")
	}
	want := []string{
		`access.allowedSourceRanges: refused: spec.access.allowedSourceRanges ["203.0.113.0/24"] -> ["198.51.100.0/24"] (the label is ForceNew: Magnum cannot change it without a new cluster)`,
		"access.oidc: refused: spec.access.oidc.issuerURL https://login.example.com/realms/team -> https://login.example.com/realms/other (the labels are ForceNew: Magnum cannot change them without a new cluster)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("edits: -want, +got:\n%s", diff)
	}
}

// The tests below hold what the access feature promises and the code does not do yet. Each
// is skipped with the bug it shows; remove the Skip with the fix.

// TestAccessRemovalIsRefused: removing the access of an existing cluster changes ForceNew
// labels just as changing it does, and the capabilities declare it refused.
func TestAccessRemovalIsRefused(t *testing.T) {
	before := accessRequest(spec(), environment(), model.Access{OIDC: teamOIDC(""), AllowedSourceRanges: []string{"203.0.113.0/24"}})
	cluster := applied(t, before, ResourceCluster, "magnum-id", true)
	fields := map[string]bool{}
	for _, e := range invalidOf(accessRequest(spec(), environment(), model.Access{}, cluster)) {
		fields[e.Field] = true
	}
	if diff := cmp.Diff(map[string]bool{"spec.access.oidc": true, "spec.access.allowedSourceRanges": true}, fields); diff != "" {
		t.Errorf("refused fields: -want, +got:\n%s", diff)
	}
}

// TestAlwaysAllowedRangesEditKeepsRunningClusters: the environment's always-allowed ranges
// are "a setting the cluster keeps" (model.resolveAccess): an edit of them must not make
// every running Magnum cluster with ranges a ForceNew refusal of its own spec.
func TestAlwaysAllowedRangesEditKeepsRunningClusters(t *testing.T) {
	environments := func(always ...any) map[string][]*unstructured.Unstructured {
		return map[string][]*unstructured.Unstructured{model.EnvironmentsRequirement: {{Object: map[string]any{
			"apiVersion": model.EnvironmentConfigAPIVersion, "kind": model.EnvironmentConfigKind,
			"metadata": map[string]any{"name": "magnum-regionone", "labels": map[string]any{"kaas.scs.community/environment": "magnum", "kaas.scs.community/default": "true"}},
			"data": map[string]any{"backend": "magnum", "region": "RegionOne",
				"catalog": map[string]any{"kubernetesVersions": []any{"1.34"}, "zones": []any{"nova", "az2"}},
				"magnum": map[string]any{"providerConfigName": "openstack", "templates": []any{
					map[string]any{"kubernetesVersion": "1.34", "id": "tpl-134", "kubeTag": "v1.34.3", "networkDriver": "calico"}}},
				"apiServerAccess": map[string]any{"restrictSourceRanges": true, "alwaysAllowedSourceRanges": always},
			},
		}}}}
	}
	xr := &kaasv1alpha1.XSCSCluster{Spec: spec()}
	xr.Name = "shop"
	xr.Spec.Access = &kaasv1alpha1.AccessSpec{AllowedSourceRanges: []string{"203.0.113.0/24"}}
	reg := model.NewRegistry(New())
	out, err := reg.Reconcile(model.Input{Cluster: xr, Required: environments("192.0.2.10/32")})
	if err != nil {
		t.Fatal(err)
	}
	created := out.Rendering.Resources[0].Object.DeepCopy()
	created.SetAnnotations(map[string]string{"crossplane.io/composition-resource-name": ResourceCluster})
	created.Object["status"] = map[string]any{"atProvider": map[string]any{"id": "magnum-id"}}
	xr.Status = out.Status
	out, err = reg.Reconcile(model.Input{Cluster: xr, Required: environments("192.0.2.10/32", "192.0.2.11/32"),
		Observed: map[string]model.ObservedResource{ResourceCluster: {Object: created}}})
	if err != nil {
		t.Fatalf("Reconcile after the environment's edit: %v", err)
	}
	labels, _, _ := unstructured.NestedStringMap(out.Rendering.Resources[0].Object.Object, "spec", "forProvider", "labels")
	if got := labels["master_lb_allowed_cidrs"]; got != "192.0.2.10/32,203.0.113.0/24" {
		t.Errorf("master_lb_allowed_cidrs = %q, want the value the cluster was created with", got)
	}
}
