package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
)

// TestEnvironmentUnavailableLeavesShootUntouched: when the claim's environment disappears
// or becomes ambiguous, the function refuses to render; the claim says why and the Shoot
// stays exactly as it was over several reconciles. When the environment is back,
// reconciling resumes.
func TestEnvironmentUnavailableLeavesShootUntouched(t *testing.T) {
	needEnv(t)
	for _, tc := range []struct {
		name, claim string
		// break makes the environment unavailable; the test restores it afterwards.
		breakEnv func(context.Context, *testing.T)
		// want are parts of the Rendered message.
		want []string
	}{
		{
			name:  "deleted",
			claim: "envgone",
			breakEnv: func(ctx context.Context, t *testing.T) {
				if err := cp.Dynamic.Resource(envGVR).Delete(ctx, exampleEnvironment, metav1.DeleteOptions{}); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{`environment "` + exampleEnvironment + `", where this cluster runs, does not exist any more`},
		},
		{
			name:  "ambiguous",
			claim: "envtwo",
			breakEnv: func(ctx context.Context, t *testing.T) {
				// A second EnvironmentConfig claiming the same environment name.
				twin := exampleEnvironmentConfig(t)
				twin.SetName(exampleEnvironment + "-twin")
				twin.SetResourceVersion("")
				if err := cp.ApplyObjects(ctx, twin); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{`environment "` + exampleEnvironment + `" is ambiguous`, exampleEnvironment + "-twin"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testContext(t)
			apply(ctx, t, newClaim(tc.claim, smallSpec("1.34", 1, 3)))
			xr, native, shoot := waitShoot(ctx, t, tc.claim)
			rendered(ctx, t, tc.claim)
			before := refusals(t, xr)

			t.Cleanup(func() { restoreEnvironment(t) })
			tc.breakEnv(ctx, t)

			claim := waitClaim(ctx, t, deadline, tc.claim, "Rendered=False/"+kaasv1alpha1.ReasonEnvironmentUnavailable,
				hasCondition(kaasv1alpha1.ConditionRendered, "False", kaasv1alpha1.ReasonEnvironmentUnavailable))
			msg := model.ConditionOf(claim, kaasv1alpha1.ConditionRendered).Message
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("Rendered message does not say %q: %s", w, msg)
				}
			}
			// Evidence of several reconciles, not a sleep: the function logs every refusal.
			start := time.Now()
			waitRefusals(ctx, t, xr, before)
			t.Logf("%d refused reconciles within %.1fs", refusals(t, xr)-before, time.Since(start).Seconds())
			assertShootUntouched(ctx, t, native, shoot)
			if c := model.ConditionOf(claim, kaasv1alpha1.ConditionRendered); c.Status != "False" {
				t.Errorf("claim Rendered = %v", c)
			}

			// The environment is back: the claim renders again, still the same Shoot.
			restoreEnvironment(t)
			rendered(ctx, t, tc.claim)
			assertShootUntouched(ctx, t, native, shoot)
		})
	}
}

// exampleEnvironmentConfig reads the example EnvironmentConfig the control plane installed.
func exampleEnvironmentConfig(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	objs, err := readExampleEnvironments()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if o.GetName() == exampleEnvironment {
			return o
		}
	}
	t.Fatalf("no EnvironmentConfig %s in examples/environments", exampleEnvironment)
	return nil
}

// environmentVariant installs the environment of examples/environments/<example> under
// another name (not the default), with the data fields set as given (paths below data,
// dot-separated), and removes it when the test ends. Claims choose it with
// spec.environment.
func environmentVariant(ctx context.Context, t *testing.T, example, name string, data map[string]any) {
	t.Helper()
	objs, err := controlplane.ReadManifests(filepath.Join(repoRoot, "examples", "environments", example))
	if err != nil || len(objs) != 1 {
		t.Fatalf("reading the example environment %s: %v", example, err)
	}
	variant := objs[0]
	variant.SetName(name)
	variant.SetLabels(map[string]string{"kaas.scs.community/environment": name})
	for path, v := range data {
		if err := unstructured.SetNestedField(variant.Object, v, append([]string{"data"}, strings.Split(path, ".")...)...); err != nil {
			t.Fatal(err)
		}
	}
	if err := cp.ApplyObjects(ctx, variant); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cp.Dynamic.Resource(envGVR).Delete(context.Background(), name, metav1.DeleteOptions{})
	})
}

// restoreEnvironment puts the example environment back as it was: the example
// EnvironmentConfig applied, the twin removed. Idempotent, so it also runs as a cleanup.
func restoreEnvironment(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	objs, err := readExampleEnvironments()
	if err == nil {
		err = cp.ApplyObjects(ctx, objs...)
	}
	if err != nil {
		t.Errorf("restoring the example environment: %v", err)
	}
	err = cp.Dynamic.Resource(envGVR).Delete(ctx, exampleEnvironment+"-twin", metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("removing the twin environment: %v", err)
	}
}

func readExampleEnvironments() ([]*unstructured.Unstructured, error) {
	return controlplane.ReadManifests(filepath.Join(repoRoot, "examples", "environments"))
}
