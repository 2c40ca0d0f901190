package model

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

func TestNativeName(t *testing.T) {
	cases := map[string]struct {
		id   Identity
		max  int
		want string
	}{
		"Short":                {Identity{"team1", "dev"}, 16, "dev-mfn4yr"},
		"SameNameOtherTeam":    {Identity{"team2", "dev"}, 16, "dev-mnegsk"},
		"LongForGardener":      {Identity{"team1", "payments-production-eu"}, 16, "payments-fspvbz"},
		"LongElsewhere":        {Identity{"team1", "payments-production-eu-central-blue-green"}, 40, "payments-production-eu-central-bl-xvrp5s"},
		"LeadingDigit":         {Identity{"team1", "1st"}, 16, "c1st-bppuoq"},
		"DotsAndCapitals":      {Identity{"", "Shop.EU"}, 40, "shop-eu-pu2gsv"},
		"CutBeforeADash":       {Identity{"team1", "abcdefgh-jk"}, 16, "abcdefgh-ct4niw"},
		"LimitBelowTheMinimum": {Identity{"team1", "dev"}, 3, "d-mfn4yr"},
		"NoNamespaceComposite": {Identity{"", "dev"}, 16, "dev-54ta5g"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := NativeName(tc.id, tc.max); got != tc.want {
				t.Errorf("NativeName(%v, %d) = %q, want %q", tc.id, tc.max, got, tc.want)
			}
		})
	}
}

// TestNativeNameProperties: for many identities and limits, every name fits the limit, is a
// DNS label that starts with a letter and has no "--" (what every backend accepts), and
// the same name in different namespaces gives different native names.
func TestNativeNameProperties(t *testing.T) {
	seen := map[string]Identity{}
	for _, max := range []int{8, 11, 16, 21, 40} {
		for i := range 300 {
			ns := fmt.Sprintf("team%d", i%30)
			raw := []string{"dev", "payments-production-eu-" + strings.Repeat("x", i%60), "9lives", "a.b.c", "--x--", "Z"}[i%6]
			id := Identity{ns, raw}
			n := NativeName(id, max)
			if len(n) > max || len(validation.IsDNS1123Label(n)) > 0 || n[0] < 'a' || n[0] > 'z' || strings.Contains(n, "--") {
				t.Fatalf("NativeName(%v, %d) = %q: not a short DNS label starting with a letter without --", id, max, n)
			}
			if other, ok := seen[fmt.Sprint(max, n)]; ok && other != id {
				t.Fatalf("%v and %v both get %q", other, id, n)
			}
			seen[fmt.Sprint(max, n)] = id
		}
	}
}

func TestClusterName(t *testing.T) {
	env := &Environment{}
	claim := testCluster()
	claim.Name = "dev-x7k2p"
	claim.SetLabels(map[string]string{LabelClaimNamespace: "team1", LabelClaimName: "dev"})
	labelled := func(name string) map[string]ObservedResource {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}}
		u.SetLabels(map[string]string{LabelCluster: name})
		return map[string]ObservedResource{"fake-cluster": {Object: u}, "platform-extra": {Object: &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"labels": map[string]any{LabelCluster: "other"}}}}}}
	}
	recorded := func(name string) *kaasv1alpha1.XSCSCluster {
		xr := *claim
		xr.Status.Backend = &kaasv1alpha1.BackendStatus{Type: "fake", Environment: "regionone", Name: name}
		return &xr
	}
	cases := map[string]struct {
		xr       *kaasv1alpha1.XSCSCluster
		observed map[string]ObservedResource
		want     string
	}{
		"NewClaimGetsANameFromItsIdentity": {xr: claim, want: "dev-mfn4yr"},
		"RecordedNameStays":                {xr: recorded("dev-mfn4yr"), want: "dev-mfn4yr"},
		// Built before names were recorded: the composite's name, as it was built with.
		"BuiltBeforeNamesWereRecorded": {xr: recorded(""), want: "dev-x7k2p"},
		// What exists wins, even over a lost or edited status.
		"ObservedObjectsDecide": {xr: claim, observed: labelled("dev-x7k2p"), want: "dev-x7k2p"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := clusterName(tc.xr, fakeBackend{}, env, tc.observed); got != tc.want {
				t.Errorf("clusterName = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestIdentityOf: a claim's composite is the claim; a namespaced composite is itself, and
// claim labels its team wrote on it change nothing, so that no team speaks for another's
// namespace.
func TestIdentityOf(t *testing.T) {
	composite := func(namespace, name string, labels map[string]string) *kaasv1alpha1.XSCSCluster {
		xr := &kaasv1alpha1.XSCSCluster{}
		xr.SetNamespace(namespace)
		xr.SetName(name)
		xr.SetLabels(labels)
		return xr
	}
	claimOf := map[string]string{LabelClaimNamespace: "team1", LabelClaimName: "dev"}
	cases := map[string]struct {
		xr   *kaasv1alpha1.XSCSCluster
		want Identity
	}{
		"LegacyCompositeIsItsClaim":        {xr: composite("", "dev-x7k2p", claimOf), want: Identity{Namespace: "team1", Name: "dev"}},
		"LegacyCompositeWithoutClaim":      {xr: composite("", "dev-x7k2p", nil), want: Identity{Name: "dev-x7k2p"}},
		"LegacyCompositeWithHalfALabel":    {xr: composite("", "dev-x7k2p", map[string]string{LabelClaimName: "dev"}), want: Identity{Name: "dev-x7k2p"}},
		"NamespacedCompositeIsItself":      {xr: composite("team2", "dev", nil), want: Identity{Namespace: "team2", Name: "dev"}},
		"NamespacedCompositeIgnoresForged": {xr: composite("team2", "mine", claimOf), want: Identity{Namespace: "team2", Name: "mine"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := IdentityOf(tc.xr); got != tc.want {
				t.Errorf("IdentityOf = %+v, want %+v", got, tc.want)
			}
		})
	}
}
