package provider

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fieldpath "k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/SovereignCloudStack/scs-kaas/model"
)

// diagnostic is a diagnostic as a user sees it.
type diagnostic struct {
	Severity  string
	Attribute string // empty: none
	Summary   string
	Detail    string
}

func flatten(ds diag.Diagnostics) []diagnostic {
	var out []diagnostic
	for _, d := range ds {
		x := diagnostic{Severity: d.Severity().String(), Summary: d.Summary(), Detail: d.Detail()}
		if a, ok := d.(diag.DiagnosticWithPath); ok {
			x.Attribute = a.Path().String()
		}
		out = append(out, x)
	}
	return out
}

func TestAttributePath(t *testing.T) {
	pools := []string{"default", "gpu"}
	for _, tc := range []struct {
		field string
		want  string // empty: not an attribute
	}{
		{"spec.kubernetes.version", "kubernetes.version"},
		{".spec.kubernetes.version", "kubernetes.version"},
		{"spec.nodePools[1].machineType", "node_pools[1].machine_type"},
		{"spec.nodePools[gpu].zones", "node_pools[1].zones"},
		{"spec.nodePools[0].autoscaling.min", "node_pools[0].autoscaling.min"},
		{"spec.nodePools[0].taints[2].effect", "node_pools[0].taints[2].effect"},
		{"spec.nodePools[0].labels[team]", `node_pools[0].labels["team"]`},
		{"spec.network.podCIDR", "network.pod_cidr"},
		{"spec.maintenance.window.begin", "maintenance.window.begin"},
		{"spec.hibernation.schedules[0].start", "hibernation.schedules[0].start"},
		{"spec.writeConnectionSecretToRef.name", "write_connection_secret_to_ref.name"},
		// As far as the attributes go.
		{"spec.nodePools[unknown].zones", "node_pools"},
		{"spec.network.somethingNew", "network"},
		{"spec.nodePools", "node_pools"},
		{"spec", ""},
		{"metadata.name", ""},
		{"spec.compositionRef.name", ""},
	} {
		p, ok := attributePath(tc.field, pools)
		got := ""
		if ok {
			got = p.String()
		}
		if got != tc.want {
			t.Errorf("attributePath(%q) = %q, want %q", tc.field, got, tc.want)
		}
	}
}

// TestAPIErrorDiagnostics: an Invalid error of the API server (a CEL rule, the schema)
// becomes one diagnostic per cause at the attribute of its field, in the server's words;
// other errors one diagnostic without an attribute.
func TestAPIErrorDiagnostics(t *testing.T) {
	gk := schema.GroupKind{Group: "kaas.scs.community", Kind: "SCSCluster"}
	for _, tc := range []struct {
		name string
		err  error
		want []diagnostic
	}{
		{
			name: "CEL transition rule",
			err: apierrors.NewInvalid(gk, "dev", fieldpath.ErrorList{
				fieldpath.Invalid(fieldpath.NewPath("spec", "kubernetes", "version"), "string",
					"spec.kubernetes.version can move one minor at a time: 1.34 to 1.36 skips a minor"),
			}),
			want: []diagnostic{{
				Severity: "Error", Attribute: "kubernetes",
				Summary: "The Kubernetes API server refused the change",
				Detail:  `updating SCSCluster team1/dev: attribute kubernetes.version (spec.kubernetes.version): Invalid value: "string": spec.kubernetes.version can move one minor at a time: 1.34 to 1.36 skips a minor`,
			}},
		},
		{
			name: "two causes, one on the spec itself",
			err: apierrors.NewInvalid(gk, "dev", fieldpath.ErrorList{
				fieldpath.Forbidden(fieldpath.NewPath("spec", "nodePools").Index(0).Child("zones"),
					"the zones of an existing node pool cannot change"),
				fieldpath.Invalid(fieldpath.NewPath("spec"), "object", "spec.network cannot be removed once set"),
			}),
			want: []diagnostic{
				{
					Severity: "Error", Attribute: "node_pools[0]",
					Summary: "The Kubernetes API server refused the change",
					Detail:  "updating SCSCluster team1/dev: attribute node_pools[0].zones (spec.nodePools[0].zones): Forbidden: the zones of an existing node pool cannot change",
				},
				{
					Severity: "Error",
					Summary:  "The Kubernetes API server refused the change",
					Detail:   `updating SCSCluster team1/dev: spec: Invalid value: "object": spec.network cannot be removed once set`,
				},
			},
		},
		{
			name: "forbidden",
			err:  apierrors.NewForbidden(schema.GroupResource{Group: "kaas.scs.community", Resource: "scsclusters"}, "dev", errors.New("no RBAC")),
			want: []diagnostic{{
				Severity: "Error", Summary: "Forbidden by the Kubernetes API server",
				Detail: `updating SCSCluster team1/dev: scsclusters.kaas.scs.community "dev" is forbidden: no RBAC`,
			}},
		},
		{
			name: "anything else",
			err:  errors.New("connection refused"),
			want: []diagnostic{{Severity: "Error", Summary: "Kubernetes API request failed", Detail: "updating SCSCluster team1/dev: connection refused"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := flatten(apiErrorDiagnostics(tc.err, "updating SCSCluster team1/dev", []string{"default"}))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestRefusalDiagnostics: a Rendered=False condition becomes an error at the attribute the
// function's message names first, with the reason and every attribute named.
func TestRefusalDiagnostics(t *testing.T) {
	const tail = "\n\nNothing was changed in the backend; the cluster keeps running as it was."
	for _, tc := range []struct {
		name string
		cond model.ObservedCondition
		want []diagnostic
	}{
		{
			name: "invalid spec, two fields",
			cond: model.ObservedCondition{Type: "Rendered", Status: "False", Found: true, Reason: "InvalidSpec",
				Message: `XSCSCluster "dev-x7k2p" is invalid (2 problems): spec.nodePools[0].machineType: Unsupported value: "SCS-1V-1": supported values: "SCS-2V-4", "SCS-4V-8"; spec.kubernetes.version: Unsupported value: "1.30"`},
			want: []diagnostic{{
				Severity: "Error", Attribute: "node_pools[0]",
				Summary: "The SCS cluster API refused the spec: InvalidSpec",
				Detail: `SCSCluster team1/dev: condition Rendered is False with reason InvalidSpec; attribute node_pools[0].machine_type, kubernetes.version: ` +
					`XSCSCluster "dev-x7k2p" is invalid (2 problems): spec.nodePools[0].machineType: Unsupported value: "SCS-1V-1": supported values: "SCS-2V-4", "SCS-4V-8"; spec.kubernetes.version: Unsupported value: "1.30"` + tail,
			}},
		},
		{
			name: "pool named by name",
			cond: model.ObservedCondition{Type: "Rendered", Status: "False", Found: true, Reason: "ReplacementRefused",
				Message: "spec.nodePools[gpu].zones: the backend cannot change the zones of a pool in place"},
			want: []diagnostic{{
				Severity: "Error", Attribute: "node_pools[1]",
				Summary: "The SCS cluster API refused the spec: ReplacementRefused",
				Detail:  "SCSCluster team1/dev: condition Rendered is False with reason ReplacementRefused; attribute node_pools[1].zones: spec.nodePools[gpu].zones: the backend cannot change the zones of a pool in place" + tail,
			}},
		},
		{
			name: "no field named",
			cond: model.ObservedCondition{Type: "Rendered", Status: "False", Found: true, Reason: "EnvironmentUnavailable",
				Message: `environment "prod-eu" is not offered to namespace team1; environments offered to namespace team1: dev-eu`},
			want: []diagnostic{{
				Severity: "Error",
				Summary:  "The SCS cluster API refused the spec: EnvironmentUnavailable",
				Detail:   `SCSCluster team1/dev: condition Rendered is False with reason EnvironmentUnavailable: environment "prod-eu" is not offered to namespace team1; environments offered to namespace team1: dev-eu` + tail,
			}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := flatten(refusalDiagnostics(tc.cond, "SCSCluster team1/dev", []string{"default", "gpu"}))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestDeletionDiagnostics: the deletion protection policy's message is passed on as it is,
// with what to do.
func TestDeletionDiagnostics(t *testing.T) {
	const policy = "SCSCluster team1/dev has deletion protection on (spec.deletionProtection); set spec.deletionProtection to false, wait until it is Synced, then delete it"
	err := apierrors.NewForbidden(schema.GroupResource{Group: "kaas.scs.community", Resource: "scsclusters"}, "dev", errors.New(policy))
	err.ErrStatus.Message = `scsclusters.kaas.scs.community "dev" is forbidden: ValidatingAdmissionPolicy 'deletion-protection.kaas.scs.community' with binding 'deletion-protection.kaas.scs.community' denied request: ` + policy
	got := flatten(deletionDiagnostics(err, "deleting SCSCluster team1/dev"))
	want := []diagnostic{{
		Severity: "Error", Summary: "Deletion refused",
		Detail: "deleting SCSCluster team1/dev: " + err.ErrStatus.Message +
			"\n\nTo delete it, set deletion_protection = false, apply, then destroy.",
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := flatten(deletionDiagnostics(errors.New("EOF"), "deleting SCSCluster team1/dev")); got[0].Summary != "Kubernetes API request failed" {
		t.Errorf("other errors: %+v", got)
	}
}

var _ = path.Root // path is used through attributePath's results

// TestConfigPath: diagnostics point at what tofu can find in the configuration.
func TestConfigPath(t *testing.T) {
	for _, tc := range []struct {
		in   path.Path
		want string
	}{
		{path.Root("kubernetes").AtName("version"), "kubernetes"},
		{path.Root("node_pools").AtListIndex(1).AtName("zones"), "node_pools[1]"},
		{path.Root("node_pools").AtListIndex(0), "node_pools[0]"},
		{path.Root("node_pools"), "node_pools"},
		{path.Root("maintenance").AtName("window").AtName("begin"), "maintenance"},
		{path.Root("name"), "name"},
	} {
		if got := configPath(tc.in).String(); got != tc.want {
			t.Errorf("configPath(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
