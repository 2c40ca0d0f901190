package input

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/all"
	"github.com/SovereignCloudStack/scs-kaas/model/gardener"
)

const examples = "../../examples"

// readObjects reads every object of the YAML files at path (a file or a directory).
func readObjects(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	files := []string{path}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		files, _ = filepath.Glob(filepath.Join(path, "*.yaml"))
	}
	var out []*unstructured.Unstructured
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
		for {
			obj := map[string]any{}
			if err := dec.Decode(&obj); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				t.Fatalf("%s: %v", f, err)
			}
			if len(obj) > 0 {
				out = append(out, &unstructured.Unstructured{Object: obj})
			}
		}
	}
	return out
}

func readObject(t *testing.T, path string) *unstructured.Unstructured {
	t.Helper()
	objs := readObjects(t, path)
	if len(objs) != 1 {
		t.Fatalf("%s: want one object, got %d", path, len(objs))
	}
	return objs[0]
}

func TestDecode(t *testing.T) {
	opts := model.Options{ConnectionSecretNamespace: "crossplane-system"}
	details := map[string][]byte{"kubeconfig": []byte("delivered")}
	legacy := readObject(t, examples+"/render/gardener/xr.yaml").Object
	withSecretNamespace := readObject(t, examples+"/render/gardener/xr.yaml").Object
	withSecretNamespace["spec"].(map[string]any)["writeConnectionSecretToRef"] = map[string]any{"name": "x", "namespace": "platform"}
	namespaced := readObject(t, examples+"/claims/gardener-minimal.yaml").Object

	type want struct {
		name, namespace, kubeconfigSecret, secretNamespace, connectionSecret string
		details                                                              map[string][]byte
		err                                                                  string
	}
	cases := map[string]struct {
		xr   map[string]any
		want want
	}{
		"LegacyComposite": {xr: legacy,
			want: want{name: "shop-x7k2p", secretNamespace: "crossplane-system", details: details}},
		"LegacyCompositeWithItsSecretsNamespace": {xr: withSecretNamespace,
			want: want{name: "shop-x7k2p", secretNamespace: "platform", connectionSecret: "x", details: details}},
		// Crossplane v2 gives namespaced composites no connection details: the model
		// composes their kubeconfig Secret.
		"NamespacedComposite": {xr: namespaced,
			want: want{name: "dev", namespace: "team1", kubeconfigSecret: "dev-kubeconfig", secretNamespace: "crossplane-system"}},
		"NoComposite": {want: want{err: "the request has no observed composite resource"}},
		"NotOurs": {xr: map[string]any{"apiVersion": "example.org/v1", "kind": "XDatabase", "metadata": map[string]any{"name": "db"}},
			want: want{err: "the composite resource is a example.org/v1 XDatabase; this function composes kaas.scs.community/v1alpha1 XSCSCluster (cluster-scoped, with claims) and namespaced SCSCluster only"}},
		"AClusterScopedSCSCluster": {xr: map[string]any{"apiVersion": kaasv1alpha1.APIVersion, "kind": kaasv1alpha1.ClaimKind, "metadata": map[string]any{"name": "dev"}},
			want: want{err: "the composite resource is a kaas.scs.community/v1alpha1 SCSCluster; this function composes kaas.scs.community/v1alpha1 XSCSCluster (cluster-scoped, with claims) and namespaced SCSCluster only"}},
		// encoding/json's words: the field and the type it wants.
		"Undecodable": {xr: map[string]any{"apiVersion": kaasv1alpha1.APIVersion, "kind": kaasv1alpha1.CompositeKind, "spec": map[string]any{"nodePools": "three"}},
			want: want{err: "cannot decode the observed composite resource as XSCSCluster: json: cannot unmarshal string into Go struct field ClusterSpec.spec.nodePools of type []v1alpha1.NodePool"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			in, err := Decode(Snapshot{Composite: tc.xr, ConnectionDetails: details}, opts)
			got := want{err: ""}
			if err != nil {
				got.err = err.Error()
			} else {
				got = want{name: in.Cluster.Name, namespace: in.Cluster.Namespace, kubeconfigSecret: in.KubeconfigSecret,
					secretNamespace: in.Options.ConnectionSecretNamespace, connectionSecret: in.ConnectionSecret, details: in.ConnectionDetails}
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("Decode: -want, +got:\n%s", diff)
			}
		})
	}
}

func TestCompositeOfClaim(t *testing.T) {
	claim := readObject(t, examples+"/claims/gardener-minimal.yaml")
	claim.SetAnnotations(map[string]string{"note": "kept"})
	before := claim.DeepCopy()
	bound := claim.DeepCopy()
	_ = unstructured.SetNestedField(bound.Object, "dev-x7k2p", "spec", "resourceRef", "name")
	_ = unstructured.SetNestedField(bound.Object, "Delete", "spec", "compositeDeletePolicy")
	_ = unstructured.SetNestedField(bound.Object, "Ready", "status", "phase")

	for name, tc := range map[string]struct {
		claim    *unstructured.Unstructured
		wantName string
		status   map[string]any
	}{
		"Unbound": {claim: claim, wantName: "dev"},
		"Bound":   {claim: bound, wantName: "dev-x7k2p", status: map[string]any{"phase": "Ready"}},
	} {
		t.Run(name, func(t *testing.T) {
			xr := CompositeOfClaim(tc.claim)
			want := map[string]any{
				"apiVersion": "kaas.scs.community/v1alpha1", "kind": "XSCSCluster",
				"metadata": map[string]any{"name": tc.wantName,
					"labels":      map[string]any{"crossplane.io/claim-namespace": "team1", "crossplane.io/claim-name": "dev"},
					"annotations": map[string]any{"note": "kept"}},
				"spec": map[string]any{"kubernetes": map[string]any{"version": "1.34"},
					"nodePools": []any{map[string]any{"name": "default", "machineType": "SCS-4V-8", "autoscaling": map[string]any{"min": float64(1), "max": float64(3)}}}},
			}
			if tc.status != nil {
				want["status"] = tc.status
			}
			if diff := cmp.Diff(want, xr.Object); diff != "" {
				t.Errorf("composite: -want, +got:\n%s", diff)
			}
			in, err := Decode(Snapshot{Composite: xr.Object}, model.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if id := model.IdentityOf(in.Cluster); id != (model.Identity{Namespace: "team1", Name: "dev"}) {
				t.Errorf("identity %v, want the claim's", id)
			}
		})
	}
	if diff := cmp.Diff(before.Object, claim.Object); diff != "" {
		t.Errorf("the claim changed: -before, +after:\n%s", diff)
	}
}

// TestResolve plays Crossplane for a Cluster Stacks composite: the environments first, then
// the namespace an environment admits by label, then the backend's releases and kubeconfig
// Secret; each requirement is fetched once.
func TestResolve(t *testing.T) {
	xr := readObject(t, examples+"/render/clusterstack/xr.yaml")
	envs := readObjects(t, examples+"/environments")
	pool := append(envs, readObjects(t, examples+"/render/clusterstack/required")...)
	in, err := Decode(Snapshot{Composite: xr.Object}, model.Options{ConnectionSecretNamespace: "crossplane-system"})
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	fetch := func(name string, sel model.Selector) ([]*unstructured.Unstructured, error) {
		asked = append(asked, name)
		var out []*unstructured.Unstructured
		for _, o := range pool {
			if o.GetAPIVersion() == sel.APIVersion && o.GetKind() == sel.Kind && (sel.Namespace == "" || o.GetNamespace() == sel.Namespace) &&
				(sel.MatchName == "" || o.GetName() == sel.MatchName) {
				out = append(out, o)
			}
		}
		return out, nil
	}
	out, err := Resolve(all.Registry(), in, fetch)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Complete || out.Environment.Name != "clusterstack-regionone" || len(out.Rendering.Resources) == 0 {
		t.Fatalf("not rendered: complete %v, environment %v, %d resources", out.Complete, out.Environment, len(out.Rendering.Resources))
	}
	// An environment admits namespaces by label: the claim's namespace is read, and is
	// not at hand (nothing matched).
	if diff := cmp.Diff([]string{"environments", "namespace", "clusterstack-kubeconfig", "clusterstack-releases", "lookup-clusterstack-cluster"}, asked); diff != "" {
		t.Errorf("requirements fetched: -want, +got:\n%s", diff)
	}
	if len(in.Required) != 0 {
		t.Errorf("the caller's input changed: %v", in.Required)
	}

	// What the caller fetched already is not fetched again.
	asked = nil
	in.Required = map[string][]*unstructured.Unstructured{model.EnvironmentsRequirement: envs, model.NamespaceRequirement: {}}
	if _, err := Resolve(all.Registry(), in, fetch); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"clusterstack-kubeconfig", "clusterstack-releases", "lookup-clusterstack-cluster"}, asked); diff != "" {
		t.Errorf("requirements fetched with the environments given: -want, +got:\n%s", diff)
	}

	// A failing fetch says which requirement.
	_, err = Resolve(all.Registry(), in, func(string, model.Selector) ([]*unstructured.Unstructured, error) {
		return nil, errors.New("no access")
	})
	if err == nil || !strings.Contains(err.Error(), "requirement clusterstack-kubeconfig: no access") {
		t.Errorf("Resolve with a failing fetch: %v", err)
	}
}

// restlessBackend asks for something new on every call: a bug, which Resolve must end.
type restlessBackend struct {
	gardener.Backend
	calls *atomic.Int32
}

func (b restlessBackend) Requirements(*model.Request) map[string]model.Selector {
	n := b.calls.Add(1)
	return map[string]model.Selector{"round-" + string(rune('a'+n)): {APIVersion: "v1", Kind: "ConfigMap", MatchName: "x"}}
}

func TestResolveGivesUp(t *testing.T) {
	xr := readObject(t, examples+"/render/gardener/xr.yaml")
	in, err := Decode(Snapshot{Composite: xr.Object}, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	envs := readObjects(t, examples+"/environments/gardener-regionone.yaml")
	calls := &atomic.Int32{}
	_, err = Resolve(model.NewRegistry(restlessBackend{calls: calls}), in, func(name string, _ model.Selector) ([]*unstructured.Unstructured, error) {
		if name == model.EnvironmentsRequirement {
			return envs, nil
		}
		return nil, nil
	})
	if err == nil || !strings.Contains(err.Error(), "after 5 rounds") {
		t.Errorf("Resolve with requirements that never settle: %v", err)
	}
	if n := calls.Load(); n != MaxRounds-1 {
		t.Errorf("the backend was asked %d times, want %d (the first round asks for the environments only)", n, MaxRounds-1)
	}
}
