package e2e

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestInvalidClaimsRejectedAtAdmission: claims that break the API's rules never get
// stored; the API server's message names the offending field, so a user can fix it.
func TestInvalidClaimsRejectedAtAdmission(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)

	pool := func(name string, minNodes, maxNodes int64) map[string]any {
		return map[string]any{"name": name, "machineType": "SCS-4V-8",
			"autoscaling": map[string]any{"min": minNodes, "max": maxNodes}}
	}
	withNetwork := func(network map[string]any) map[string]any {
		s := smallSpec("1.34", 1, 3)
		s["network"] = network
		return s
	}
	for _, tc := range []struct {
		name string
		spec map[string]any
		// want are parts of the message: the field path first.
		want []string
	}{
		{
			name: "an add-on both enabled and disabled",
			spec: func() map[string]any {
				s := smallSpec("1.34", 1, 3)
				s["addons"] = map[string]any{"enable": []any{"web"}, "disable": []any{"web"}}
				return s
			}(),
			want: []string{"spec.addons", "an add-on cannot be in both enable and disable"},
		},
		{
			name: "pod CIDR not a CIDR",
			spec: withNetwork(map[string]any{"podCIDR": "100.64.0.0/33"}),
			want: []string{"spec.network.podCIDR", "must be a CIDR"},
		},
		{
			name: "node CIDR not canonical",
			spec: withNetwork(map[string]any{"nodeCIDR": "10.250.1.0/16"}),
			want: []string{"spec.network.nodeCIDR", "canonical form"},
		},
		{
			name: "pod and service CIDRs overlap",
			spec: withNetwork(map[string]any{"podCIDR": "100.64.0.0/12", "serviceCIDR": "100.64.0.0/16"}),
			want: []string{"spec.network.serviceCIDR", "must not overlap"},
		},
		{
			name: "autoscaling min above max",
			spec: map[string]any{
				"kubernetes": map[string]any{"version": "1.34"},
				"nodePools":  []any{pool("default", 5, 2)},
			},
			want: []string{"spec.nodePools[0].autoscaling", "min must not be greater than autoscaling.max"},
		},
		{
			name: "duplicate pool names",
			spec: map[string]any{
				"kubernetes": map[string]any{"version": "1.34"},
				"nodePools":  []any{pool("default", 1, 3), pool("other", 1, 3), pool("default", 1, 2)},
			},
			want: []string{"spec.nodePools[2]", "Duplicate value", `"default"`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := claims().Create(ctx, newClaim("invalid", tc.spec), metav1.CreateOptions{})
			if err == nil {
				_ = claims().Delete(ctx, "invalid", metav1.DeleteOptions{})
				t.Fatal("the API server accepted the claim")
			}
			if !apierrors.IsInvalid(err) {
				t.Fatalf("want an Invalid error, got %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message does not mention %q: %v", w, err)
				}
			}
			if _, err := getClaim(ctx, "invalid"); !apierrors.IsNotFound(err) {
				t.Errorf("the rejected claim exists: %v", err)
			}
		})
	}
}
