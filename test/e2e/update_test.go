package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// TestScaleAndMinorUpgradeChangeShootInPlace: resizing a pool and moving up one minor
// update the existing Shoot; neither replaces it (same UID).
func TestScaleAndMinorUpgradeChangeShootInPlace(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	const name = "update"

	apply(ctx, t, newClaim(name, smallSpec("1.33", 1, 3)))
	_, native, created := waitShoot(ctx, t, name)
	rendered(ctx, t, name)

	steps := []struct {
		what    string
		spec    map[string]any
		applied func(*unstructured.Unstructured) bool
	}{
		{"scale pool default to 2..6", smallSpec("1.33", 2, 6), func(s *unstructured.Unstructured) bool {
			w := workers(s)["default"]
			return w["minimum"] == int64(2) && w["maximum"] == int64(6)
		}},
		{"upgrade 1.33 -> 1.34", smallSpec("1.34", 2, 6), func(s *unstructured.Unstructured) bool {
			return str(s, "spec", "kubernetes", "version") == gardenerPatch["1.34"]
		}},
	}
	for _, s := range steps {
		start := time.Now()
		apply(ctx, t, newClaim(name, s.spec))
		shoot := waitShootMatches(ctx, t, deadline, native, s.what, s.applied)
		measure(t, "claim update ("+s.what+") -> Shoot updated", start)
		if shoot.GetUID() != created.GetUID() {
			t.Fatalf("%s replaced the Shoot: UID %s, was %s", s.what, shoot.GetUID(), created.GetUID())
		}
		if shoot.GetGeneration() <= created.GetGeneration() {
			t.Errorf("%s: Shoot generation %d did not move past %d", s.what, shoot.GetGeneration(), created.GetGeneration())
		}
		created = shoot
	}
	// The claim reports the version the cluster now runs: the patch Gardener picked.
	waitClaim(ctx, t, deadline, name, "status.kubernetes.version "+gardenerPatch["1.34"], fieldIs(gardenerPatch["1.34"], "status", "kubernetes", "version"))
}

// TestVersionSkipAndDowngradeRejectedAtAdmission: the API server refuses a jump of two
// minors and a downgrade, with a message that names the field and both versions; the
// claim and its Shoot keep their version.
func TestVersionSkipAndDowngradeRejectedAtAdmission(t *testing.T) {
	needEnv(t)
	ctx := testContext(t)
	const name = "versions"

	apply(ctx, t, newClaim(name, smallSpec("1.34", 1, 3)))
	_, native, shoot := waitShoot(ctx, t, name)
	rendered(ctx, t, name)

	for _, tc := range []struct {
		name, version string
		want          []string
	}{
		{"two minors up", "1.36", []string{"spec.kubernetes.version", "one minor at a time", "1.34", "1.36"}},
		{"one minor down", "1.33", []string{"spec.kubernetes.version", "cannot be downgraded", "1.34", "1.33"}},
		{"patch below the minor's", "1.33.9", []string{"spec.kubernetes.version", "cannot be downgraded"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			patch := fmt.Sprintf(`{"spec":{"kubernetes":{"version":%q}}}`, tc.version)
			_, err := claims().Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
			if err == nil {
				t.Fatalf("the API server accepted version %s after 1.34", tc.version)
			}
			if !apierrors.IsInvalid(err) {
				t.Fatalf("want an Invalid error, got %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message does not mention %q: %v", w, err)
				}
			}
		})
	}
	claim, err := getClaim(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if v := str(claim, "spec", "kubernetes", "version"); v != "1.34" {
		t.Errorf("claim version is %q after rejected updates, want 1.34", v)
	}
	assertShootUntouched(ctx, t, native, shoot)
}
