package gardener

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gardener/gardener/pkg/api/core/validation"
	"github.com/gardener/gardener/pkg/apis/core"
	"github.com/gardener/gardener/pkg/apis/core/install"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"github.com/gardener/gardener/pkg/apiserver/features"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/SovereignCloudStack/scs-kaas/model"
	gardenerbackend "github.com/SovereignCloudStack/scs-kaas/model/gardener"
	"github.com/SovereignCloudStack/scs-kaas/model/input"
)

const rootDir = "../.."

var scheme = runtime.NewScheme()

func TestMain(m *testing.M) {
	// gardener-apiserver registers its feature gates before validating; without them the
	// validation code panics.
	features.RegisterFeatureGates()
	install.Install(scheme)
	os.Exit(m.Run())
}

// TestGoldenShootsPassGardenerValidation checks the Shoots in the function's golden
// responses, which render the examples under examples/render.
func TestGoldenShootsPassGardenerValidation(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(rootDir, "functions/function-scs-kaas/testdata/golden/gardener-*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden responses found: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			rsp := readObjects(t, f)[0]
			shoots := shootsInResponse(rsp)
			if len(shoots) == 0 && !strings.Contains(f, "looks-before") {
				t.Fatalf("%s renders no Shoot", f)
			}
			for _, s := range shoots {
				if errs := validation.ValidateShoot(internalShoot(t, s)); len(errs) > 0 {
					t.Errorf("Gardener rejects Shoot %s/%s: %v", s.GetNamespace(), s.GetName(), errs.ToAggregate())
				}
			}
		})
	}
}

// TestClaimExamplesPassGardenerValidation renders every Gardener claim under
// examples/claims through the model layer and validates the Shoots.
func TestClaimExamplesPassGardenerValidation(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(rootDir, "examples/claims/gardener-*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Gardener claim examples found: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			shoot := renderClaim(t, readObjects(t, f)[0], nil)
			if errs := validation.ValidateShoot(internalShoot(t, shoot)); len(errs) > 0 {
				t.Errorf("Gardener rejects the Shoot of %s: %v", f, errs.ToAggregate())
			}
		})
	}
}

// TestReRenderIsAValidUpdate renders a cluster again over the Shoot Gardener keeps (with
// its patch version and machine images) and checks that Gardener accepts the result as an
// update of it, for the same spec, a pool scaled, and a one-minor upgrade.
func TestReRenderIsAValidUpdate(t *testing.T) {
	claim := readObjects(t, filepath.Join(rootDir, "examples/claims/gardener-production.yaml"))[0]
	observed := readObjects(t, filepath.Join(rootDir, "examples/render/gardener/observed-ready.yaml"))[0]
	existing := &unstructured.Unstructured{Object: observed["status"].(map[string]any)["atProvider"].(map[string]any)["manifest"].(map[string]any)}

	cases := map[string]func(spec map[string]any){
		"SameSpec": func(map[string]any) {},
		"ScaledPool": func(spec map[string]any) {
			spec["nodePools"].([]any)[1].(map[string]any)["autoscaling"] = map[string]any{"min": int64(3), "max": int64(15)}
		},
		"NextMinor": func(spec map[string]any) { spec["kubernetes"] = map[string]any{"version": "1.35"} },
	}
	for name, edit := range cases {
		t.Run(name, func(t *testing.T) {
			c := deepCopy(claim)
			edit(c["spec"].(map[string]any))
			updated := renderClaim(t, c, observed)
			oldShoot := internalShoot(t, existing)
			newShoot := internalShoot(t, updated)
			// The API server carries these over from the stored object.
			oldShoot.ResourceVersion, newShoot.ResourceVersion = "1", "2"
			newShoot.UID, newShoot.Generation = oldShoot.UID, oldShoot.Generation+1
			if errs := validation.ValidateShootUpdate(newShoot, oldShoot); len(errs) > 0 {
				t.Errorf("Gardener rejects the update: %v", errs.ToAggregate())
			}
		})
	}
}

// internalShoot defaults a v1beta1 Shoot and converts it to Gardener's internal API, as
// gardener-apiserver does before validating. Machine image versions come from the
// CloudProfile at admission; the check stands in a version where the Shoot has none.
func internalShoot(t *testing.T, u *unstructured.Unstructured) *core.Shoot {
	t.Helper()
	v1 := &gardencorev1beta1.Shoot{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, v1, true); err != nil {
		t.Fatalf("not a v1beta1 Shoot: %v", err)
	}
	for i := range v1.Spec.Provider.Workers {
		m := &v1.Spec.Provider.Workers[i].Machine
		if m.Image == nil {
			m.Image = &gardencorev1beta1.ShootMachineImage{Name: "gardenlinux"}
		}
		if m.Image.Version == nil {
			v := "1877.3.0"
			m.Image.Version = &v
		}
	}
	scheme.Default(v1)
	internal := &core.Shoot{}
	if err := scheme.Convert(v1, internal, nil); err != nil {
		t.Fatalf("cannot convert the Shoot to Gardener's internal API: %v", err)
	}
	return internal
}

// renderClaim turns a claim into its composite resource, as Crossplane does and the function
// reads it (model/input), and renders it with the model layer and the example environment,
// over an observed Object if given.
func renderClaim(t *testing.T, claim map[string]any, observedObject map[string]any) *unstructured.Unstructured {
	t.Helper()
	c := &unstructured.Unstructured{Object: deepCopy(claim)}
	// Bound to a composite of its own name, as Crossplane names it.
	if err := unstructured.SetNestedField(c.Object, c.GetName()+"-x7k2p", "spec", "resourceRef", "name"); err != nil {
		t.Fatal(err)
	}
	in, err := input.Decode(input.Snapshot{Composite: input.CompositeOfClaim(c).Object}, model.Options{})
	if err != nil {
		t.Fatalf("the claim does not decode: %v", err)
	}

	var envs []*unstructured.Unstructured
	for _, e := range readObjects(t, filepath.Join(rootDir, "examples/environments/gardener-regionone.yaml")) {
		envs = append(envs, &unstructured.Unstructured{Object: e})
	}
	if observedObject != nil {
		in.Observed = map[string]model.ObservedResource{gardenerbackend.ResourceShoot: {Object: &unstructured.Unstructured{Object: observedObject}}}
	}
	out, err := input.Resolve(model.NewRegistry(gardenerbackend.New()), in, func(name string, _ model.Selector) ([]*unstructured.Unstructured, error) {
		if name == model.EnvironmentsRequirement {
			return envs, nil
		}
		return nil, nil
	})
	if err != nil {
		t.Fatalf("the model layer refuses the claim: %v", err)
	}
	for _, r := range out.Rendering.Resources {
		if s := shootIn(r.Object.Object); s != nil {
			return s
		}
	}
	t.Fatal("no Shoot rendered")
	return nil
}

func shootsInResponse(rsp map[string]any) []*unstructured.Unstructured {
	desired, _ := rsp["desired"].(map[string]any)
	resources, _ := desired["resources"].(map[string]any)
	names := make([]string, 0, len(resources))
	for n := range resources {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []*unstructured.Unstructured
	for _, n := range names {
		r := resources[n].(map[string]any)["resource"].(map[string]any)
		if s := shootIn(r); s != nil {
			out = append(out, s)
		}
	}
	return out
}

// shootIn returns the Shoot an object is or wraps, or nil.
func shootIn(obj map[string]any) *unstructured.Unstructured {
	if obj["kind"] == "Shoot" {
		return &unstructured.Unstructured{Object: obj}
	}
	if obj["kind"] != "Object" {
		return nil
	}
	// An Object that only observes (the lookout before managing) applies nothing.
	if p, _, _ := unstructured.NestedStringSlice(obj, "spec", "managementPolicies"); len(p) == 1 && p[0] == "Observe" {
		return nil
	}
	m, _, _ := unstructured.NestedMap(obj, "spec", "forProvider", "manifest")
	if m["kind"] != "Shoot" {
		return nil
	}
	return &unstructured.Unstructured{Object: m}
}

func readObjects(t *testing.T, path string) []map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	var out []map[string]any
	for {
		obj := map[string]any{}
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatalf("%s: %v", path, err)
		}
		if len(obj) > 0 {
			out = append(out, obj)
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s holds no object", path)
	}
	return out
}

func deepCopy(in map[string]any) map[string]any {
	return runtime.DeepCopyJSON(in)
}
