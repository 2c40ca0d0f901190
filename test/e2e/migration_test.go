package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gardensim"
)

// TestMigration is docs/migration.md, step by step, on the Gardener backend: clusters made
// through claims move to namespaced SCSClusters of the same namespaces and names without
// their Shoots being recreated or even changed. A production cluster (protected: its
// Objects orphan already, the admission policy is what must let it go) and a development
// one (unprotected: the annotation is what makes its Objects orphan) take the path
// together. It runs in make e2e's third pass (SCS_KAAS_E2E_FLAVOUR=migration), which
// starts with the legacy flavour installed.
func TestMigration(t *testing.T) {
	needFlavour(t, flavourMigration)
	ctx := testContext(t)
	type moving struct {
		name, native string
		spec         map[string]any
		before       *unstructured.Unstructured
	}
	var clusters []*moving
	for _, purpose := range []string{"production", "development"} {
		spec := smallSpec("1.34", 1, 3)
		spec["purpose"] = purpose
		spec["writeConnectionSecretToRef"] = map[string]any{"name": "moving-" + purpose + "-kubeconfig"}
		clusters = append(clusters, &moving{name: "moving-" + purpose, spec: spec})
	}
	secretOf := func(c *moving) string { return c.name + "-kubeconfig" }

	// Clusters made the legacy way, Ready with their kubeconfigs.
	for _, c := range clusters {
		apply(ctx, t, newClaim(c.name, c.spec))
	}
	for _, c := range clusters {
		_, c.native, _ = waitShoot(ctx, t, c.name)
		if _, err := gardensim.Write(ctx, garden.Client, garden.Dynamic, gardenNamespace, c.native, gardensim.Healthy); err != nil {
			t.Fatal(err)
		}
		waitClaim(ctx, t, deadline, c.name, "Ready", hasCondition("Ready", "True", ""))
		waitKubeconfigSecret(ctx, t, secretOf(c))
		var err error
		if c.before, err = shoots().Get(ctx, c.native, metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	prod, dev := clusters[0], clusters[1]
	if err := claims().Delete(ctx, prod.name, metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}); !apierrors.IsForbidden(err) {
		t.Fatalf("deleting the protected claim before it is released: want Forbidden, got %v", err)
	}
	if p := str(mustGet(ctx, t, objects(), dev.native+"-shoot"), "spec", "deletionPolicy"); p != "Delete" {
		t.Fatalf("the unprotected cluster's Object has deletionPolicy %q before the release; want Delete", p)
	}

	// Step 1: release. The function orphans every Object that holds a cluster and says so
	// in the status; only then does the policy let the protected claim go.
	start := time.Now()
	for _, c := range clusters {
		annotate(ctx, t, claims(), c.name, kaasv1alpha1.AnnotationDeletionPolicy, string(kaasv1alpha1.DeletionOrphan))
	}
	for _, c := range clusters {
		waitClaim(ctx, t, deadline, c.name, "status.backend.deletionPolicy Orphan",
			fieldIs(string(kaasv1alpha1.DeletionOrphan), "status", "backend", "deletionPolicy"))
		if p := str(mustGet(ctx, t, objects(), c.native+"-shoot"), "spec", "deletionPolicy"); p != "Orphan" {
			t.Fatalf("%s: the status says Orphan, but the Shoot's Object has deletionPolicy %q", c.name, p)
		}
	}
	measure(t, "annotation deletion-policy=Orphan -> status says Orphan (unprotected cluster)", start)

	// Step 2: delete the claims. Their Shoots stay, untouched.
	for _, c := range clusters {
		if err := claims().Delete(ctx, c.name, metav1.DeleteOptions{}); err != nil {
			t.Fatalf("deleting the released claim %s: %v", c.name, err)
		}
	}
	for _, c := range clusters {
		waitFor(ctx, t, deadline, "claim "+c.name+" gone", gone(claims(), c.name))
		waitFor(ctx, t, faultDeadline, "Object "+c.native+"-shoot gone", gone(objects(), c.native+"-shoot"))
		// The claim's connection Secret goes with it; the namespaced SCSCluster composes
		// one of the same name.
		waitFor(ctx, t, deadline, "the connection Secret of claim "+c.name+" gone", func(ctx context.Context) (bool, error) {
			_, err := cp.Client.CoreV1().Secrets(claimNamespace).Get(ctx, secretOf(c), metav1.GetOptions{})
			return apierrors.IsNotFound(err), err
		})
		assertUntouched(t, c.before, mustGet(ctx, t, shoots(), c.native))
	}

	// Step 3: swap the legacy Configuration for the namespaced one. Both own SCSCluster, so
	// the legacy Configuration, its XRD and their CRDs go first.
	start = time.Now()
	swapToNamespaced(ctx, t)
	measure(t, "legacy Configuration deleted -> namespaced Configuration installed, its XRD established", start)
	// The uninstall of docs/install.md: released clusters outlive their Configuration.
	for _, c := range clusters {
		assertUntouched(t, c.before, mustGet(ctx, t, shoots(), c.native))
	}

	// Step 4: the same manifests, now namespaced SCSClusters, take the Shoots over.
	start = time.Now()
	for _, c := range clusters {
		m := newClaim(c.name, c.spec)
		m.SetAnnotations(map[string]string{kaasv1alpha1.AnnotationDeletionPolicy: string(kaasv1alpha1.DeletionOrphan)})
		apply(ctx, t, m)
	}
	for _, c := range clusters {
		if _, adopted := clusterOf(ctx, t, c.name); adopted != c.native {
			t.Fatalf("the namespaced SCSCluster %s names its Shoot %s; the claim's was %s", c.name, adopted, c.native)
		}
		waitClaim(ctx, t, deadline, c.name, "Ready", hasCondition("Ready", "True", ""))
		waitKubeconfigSecret(ctx, t, secretOf(c))
		assertUntouched(t, c.before, mustGet(ctx, t, shoots(), c.native))
	}
	measure(t, "namespaced SCSClusters applied -> Ready on the adopted Shoots", start)

	// Step 5: the annotation goes, and the clusters are fully managed again: a change
	// reaches the same Shoot, and deleting the unprotected one deletes its Shoot.
	dev.spec["nodePools"].([]any)[0].(map[string]any)["autoscaling"] = map[string]any{"min": int64(1), "max": int64(4)}
	for _, c := range clusters {
		apply(ctx, t, newClaim(c.name, c.spec)) // the manifest without the annotation
	}
	waitShootMatches(ctx, t, deadline, dev.native, "maximum 4 and the same UID", func(s *unstructured.Unstructured) bool {
		return s.GetUID() == dev.before.GetUID() && strings.Contains(fmt.Sprint(workers(s)), "maximum:4")
	})
	waitClaim(ctx, t, deadline, dev.name, "status.backend.deletionPolicy Delete",
		fieldIs(string(kaasv1alpha1.DeletionDelete), "status", "backend", "deletionPolicy"))
	if err := claims().Delete(ctx, prod.name, metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}); !apierrors.IsForbidden(err) {
		t.Errorf("deleting the protected SCSCluster without the annotation: want Forbidden, got %v", err)
	}
	if err := claims().Delete(ctx, dev.name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, faultDeadline, "Shoot "+dev.native+" deleted", gone(shoots(), dev.native))
}

// mustGet reads an object or fails the test.
func mustGet(ctx context.Context, t *testing.T, ri interface {
	Get(context.Context, string, metav1.GetOptions, ...string) (*unstructured.Unstructured, error)
}, name string) *unstructured.Unstructured {
	t.Helper()
	o, err := ri.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return o
}

// waitKubeconfigSecret waits until the claim's kubeconfig Secret holds a kubeconfig.
func waitKubeconfigSecret(ctx context.Context, t *testing.T, name string) {
	t.Helper()
	waitKubeconfigSecretIn(ctx, t, claimNamespace, name)
}

// annotate sets (value non-empty) or removes an annotation with a merge patch, as
// kubectl annotate does.
func annotate(ctx context.Context, t *testing.T, ri interface {
	Patch(context.Context, string, types.PatchType, []byte, metav1.PatchOptions, ...string) (*unstructured.Unstructured, error)
}, name, key, value string) {
	t.Helper()
	v := "null"
	if value != "" {
		v = fmt.Sprintf("%q", value)
	}
	if _, err := ri.Patch(ctx, name, types.MergePatchType, []byte(fmt.Sprintf(`{"metadata":{"annotations":{%q:%s}}}`, key, v)), metav1.PatchOptions{}); err != nil {
		t.Fatalf("annotating %s: %v", name, err)
	}
}

// swapToNamespaced replaces configuration-scs-kaas-claims with configuration-scs-kaas, as
// docs/migration.md has a platform do: the legacy Configuration deleted (its XRD and the
// claim's CRD go with it), then the namespaced one installed from the same mirror.
func swapToNamespaced(ctx context.Context, t *testing.T) {
	t.Helper()
	install := filepath.Join(repoRoot, "examples", "install")
	legacy, err := controlplane.ReadManifests(filepath.Join(install, "configuration-claims.yaml"))
	if err != nil || len(legacy) != 1 {
		t.Fatalf("reading the legacy Configuration: %v", err)
	}
	configurations := cp.Dynamic.Resource(schema.GroupVersionResource{Group: "pkg.crossplane.io", Version: "v1", Resource: "configurations"})
	if err := configurations.Delete(ctx, legacy[0].GetName(), metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting Configuration %s: %v", legacy[0].GetName(), err)
	}
	crds := cp.Dynamic.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	for _, crd := range []string{"xscsclusters.kaas.scs.community", "scsclusters.kaas.scs.community"} {
		waitFor(ctx, t, faultDeadline, "CRD "+crd+" removed with the legacy Configuration", gone(crds, crd))
	}
	if err := env.InstallConfiguration(ctx, filepath.Join(install, "mirror.yaml"), filepath.Join(install, "configuration.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := cp.WaitXRD(ctx, "apiextensions.crossplane.io/v2", "scsclusters.kaas.scs.community"); err != nil {
		t.Fatal(err)
	}
}
