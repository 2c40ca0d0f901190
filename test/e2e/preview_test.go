package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// previewed is what kubectl scs diff -o json says of an edit.
type previewed struct {
	Changes bool               `json:"changes"`
	Refused *model.Refusal     `json:"refused"`
	Edits   []previewedEdit    `json:"edits"`
	Objects []model.ObjectDiff `json:"objects"`
}

// previewedEdit is one changed portable field of a preview.
type previewedEdit struct {
	Path   string       `json:"path"`
	Effect model.Effect `json:"effect"`
}

// TestPreviewHoldsOnEveryBackend: on a Ready cluster of every backend, kubectl scs diff
// previews a scale, a +1 minor upgrade, a machine type, a label and a refused change
// against the live control plane; each edit is then applied, and what the preview said
// holds: the native object changes in exactly the previewed fields of its spec and keeps
// its UID, a refused edit is refused with the previewed message, and on Cluster API the
// real topology controller rolls what the preview said rolls.
func TestPreviewHoldsOnEveryBackend(t *testing.T) {
	needEnv(t)
	cli := newCLI(t)
	type edit struct {
		name string
		// change edits the claim's spec.
		change func(spec map[string]any)
		// effect is the effect the preview must give the edit on this backend.
		effect model.Effect
	}
	pool0 := func(spec map[string]any) map[string]any { return spec["nodePools"].([]any)[0].(map[string]any) }
	scale := func(n int64) edit {
		return edit{"scale", func(s map[string]any) { pool0(s)["count"] = n }, model.EffectInPlace}
	}
	scaleMax := edit{"scale", func(s map[string]any) { pool0(s)["autoscaling"].(map[string]any)["max"] = int64(5) }, model.EffectInPlace}
	minor := edit{"minor upgrade", func(s map[string]any) { s["kubernetes"].(map[string]any)["version"] = "1.34" }, model.EffectRollsControlPlane}
	machineType := func(effect model.Effect) edit {
		return edit{"machine type", func(s map[string]any) { pool0(s)["machineType"] = "SCS-8V-32" }, effect}
	}
	label := func(effect model.Effect) edit {
		return edit{"label", func(s map[string]any) {
			pool0(s)["labels"] = map[string]any{"node-role.kubernetes.io/edge": ""}
		}, effect}
	}
	zones := func(z string) edit {
		return edit{"zones", func(s map[string]any) { pool0(s)["zones"] = []any{z} }, model.EffectRefused}
	}
	capiSpec := clusterStackSpec("1.33", 3)
	capiSpec["nodePools"] = capiSpec["nodePools"].([]any)[:1]
	capiZones := []string{"default-az1", "default-az2", "default-az3"}
	cases := []struct {
		backendCase
		spec  map[string]any
		edits []edit
		// check holds, after an edit, what the backend's own controllers did against
		// the effect previewed.
		check func(ctx context.Context, t *testing.T, native string, e edit)
	}{
		{backendCases()[0], smallSpec("1.33", 1, 3),
			[]edit{scaleMax, machineType(model.EffectRollsNodes), label(model.EffectInPlace), minor, zones("az1")}, nil},
		{backendCase{backend: "magnum", native: backendCases()[2].native, ready: func(ctx context.Context, t *testing.T, native string) {
			magnumReadyAt(ctx, t, native, "v1.33.6")
		}}, magnumSpec("1.33", "SCS-4V-8", false),
			[]edit{scale(3), machineType(model.EffectRefused), label(model.EffectNotHonoured), minor, zones("az9")}, nil},
		// Cluster API's topology controller acts on every edit: the Cluster is not paused
		// (as clusterStackReady does for a Ready one), only its infrastructure simulated.
		{backendCase{backend: "clusterstack", native: backendCases()[1].native, ready: func(ctx context.Context, t *testing.T, native string) {
			topo := waitTopology(ctx, t, cp, clusterStackNamespace, native, capiZones...)
			simulateInfrastructureReady(ctx, t, cp, clusterStackNamespace, native, "203.0.113.30", 6443)
			waitObject(ctx, t, cp.Dynamic.Resource(kcpGVR).Namespace(clusterStackNamespace), topo.controlPlane.GetName(), "KubeadmControlPlane reports v1.33.9", func(k *unstructured.Unstructured) error {
				if v, _, _ := unstructured.NestedSlice(k.Object, "status", "versions"); !strings.Contains(fmt.Sprint(v), "v1.33.9") {
					return fmt.Errorf("status.versions %v", v)
				}
				return nil
			})
			checkTopology(ctx, t, native, capiZones, "")
		}}, capiSpec,
			// The minor comes after the machine type: once the control plane upgrades
			// (which never completes without machines), Cluster API rotated no
			// MachineDeployment template here.
			[]edit{scale(6), machineType(model.EffectRollsNodes), label(model.EffectInPlace), minor, zones("az1")},
			func(ctx context.Context, t *testing.T, native string, e edit) {
				checkTopology(ctx, t, native, capiZones, e.effect)
			}},
	}
	for _, c := range cases {
		t.Run(c.backend, func(t *testing.T) {
			ctx := testContext(t)
			name := "preview-" + c.backend
			apply(ctx, t, newClaim(name, c.spec))
			_, native := clusterOf(ctx, t, name)
			waitFor(ctx, t, deadline, c.backend+" object of "+native, func(ctx context.Context) (bool, error) {
				_, err := c.native(ctx, native)
				return err == nil, err
			})
			c.ready(ctx, t, native)
			if c.backend != "clusterstack" {
				waitClaim(ctx, t, deadline, name, "Ready", hasCondition("Ready", "True", ""))
			}
			spec := c.spec
			for _, e := range c.edits {
				t.Run(e.name, func(t *testing.T) {
					edited := deepCopyMap(spec)
					e.change(edited)
					p := previewEdit(ctx, t, cli, name, edited)
					before, err := c.native(ctx, native)
					if err != nil {
						t.Fatal(err)
					}
					if e.effect == model.EffectRefused {
						if p.Refused == nil {
							t.Fatalf("the preview does not refuse the edit: %+v", p.Edits)
						}
						// Most refusals are the XRD's too (CEL with oldSelf): the API server
						// refuses first, naming the field the function's message names.
						if err := cp.ApplyObjects(ctx, newClaim(name, edited)); err != nil {
							field := fieldRef.FindString(p.Refused.Message)
							if field == "" || !strings.Contains(err.Error(), field) {
								t.Fatalf("the API server refused with %q, the preview with %q", err, p.Refused.Message)
							}
							t.Logf("refused at admission, naming %s as the preview did", field)
							return
						}
						waitClaim(ctx, t, deadline, name, "refused as previewed", func(c *unstructured.Unstructured) error {
							if cond := model.ConditionOf(c, kaasv1alpha1.ConditionRendered); cond.Status != "False" || !strings.Contains(cond.Message, p.Refused.Message) {
								return fmt.Errorf("Rendered %v; previewed %q", cond, p.Refused.Message)
							}
							return nil
						})
						apply(ctx, t, newClaim(name, spec))
						rendered(ctx, t, name)
						return
					}
					apply(ctx, t, newClaim(name, edited))
					if p.Refused != nil {
						t.Fatalf("refused: %s", p.Refused.Message)
					}
					if !slices.ContainsFunc(p.Edits, func(x previewedEdit) bool { return x.Effect == e.effect }) {
						t.Errorf("the preview gives no edit the effect %q: %+v", e.effect, p.Edits)
					}
					if e.effect == model.EffectNotHonoured {
						// Nothing changes in the backend; the claim says what is not honoured.
						if len(p.Objects) > 0 {
							t.Errorf("an edit not honoured changes native objects: %+v", p.Objects)
						}
						waitClaim(ctx, t, deadline, name, "SpecSupported False", hasCondition("SpecSupported", "False", ""))
					}
					want := previewedSpecPaths(p, native)
					after := waitNativeChanged(ctx, t, c.native, native, before, want)
					if after.GetUID() != before.GetUID() {
						t.Fatalf("%s was replaced (UID %s, before %s)", native, after.GetUID(), before.GetUID())
					}
					if c.check != nil {
						c.check(ctx, t, native, e)
					}
					spec = edited
				})
			}
		})
	}
}

// topologyState is what Cluster API's topology controller made of a Cluster, by UID and
// the fields that say whether machines roll.
var topologyState = map[string]map[string]string{}

// checkTopology holds the KubeadmControlPlane and MachineDeployments against the
// previewed effect: "rolls nodes" gives the MachineDeployments a new machine template,
// "control plane rolls" the KubeadmControlPlane a new version, and an edit in place
// replaces neither template nor object.
func checkTopology(ctx context.Context, t *testing.T, native string, mds []string, effect model.Effect) {
	t.Helper()
	state := func() map[string]string {
		topo := waitTopology(ctx, t, cp, clusterStackNamespace, native, mds...)
		out := map[string]string{
			"kcp uid":     string(topo.controlPlane.GetUID()),
			"kcp version": str(topo.controlPlane, "spec", "version"),
		}
		for name, md := range topo.machineDeployments {
			out[name+" uid"] = string(md.GetUID())
			out[name+" template"] = str(md, "spec", "template", "spec", "infrastructureRef", "name")
		}
		return out
	}
	was := topologyState[native]
	var now map[string]string
	waitFor(ctx, t, deadline, "Cluster API's topology controller acts as previewed ("+string(effect)+")", func(context.Context) (bool, error) {
		now = state()
		if was == nil {
			return true, nil
		}
		for k, v := range now {
			changed := v != was[k]
			want := false
			switch {
			case strings.HasSuffix(k, " uid"):
			case k == "kcp version":
				want = effect == model.EffectRollsControlPlane
			case strings.HasSuffix(k, " template"):
				// A new minor rolls the workers after the control plane.
				want = effect == model.EffectRollsNodes || effect == model.EffectRollsControlPlane
			}
			if changed != want && !(effect == model.EffectRollsControlPlane && strings.HasSuffix(k, " template")) {
				return false, fmt.Errorf("%s %q -> %q: want changed=%v", k, was[k], v, want)
			}
		}
		return true, nil
	})
	topologyState[native] = now
}

// fieldRef finds the first field path of the spec in a message.
var fieldRef = regexp.MustCompile(`spec\.[A-Za-z]+(\[[^\]]+\]|\.[A-Za-z]+)*`)

// previewEdit runs kubectl scs diff -o json for the claim with an edited spec.
func previewEdit(ctx context.Context, t *testing.T, cli *kubectlSCS, name string, spec map[string]any) previewed {
	t.Helper()
	raw, err := json.Marshal(newClaim(name, spec).Object)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), name+".json")
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	res := cli.run(ctx, "diff", "-f", file, "-o", "json")
	if res.code != 1 && res.code != 3 {
		t.Fatalf("kubectl scs diff exited %d, want 1 (changes) or 3 (refused):\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	var p previewed
	if err := json.Unmarshal([]byte(res.stdout), &p); err != nil {
		t.Fatalf("%v:\n%s", err, res.stdout)
	}
	return p
}

// previewedSpecPaths are the paths of the native object's spec the preview says change.
func previewedSpecPaths(p previewed, native string) []string {
	var out []string
	for _, o := range p.Objects {
		if o.Action != model.ActionUpdate || !strings.HasPrefix(o.Name, native) {
			continue
		}
		for _, f := range o.Fields {
			if strings.HasPrefix(f.Path, "spec.") {
				out = append(out, f.Path)
			}
		}
	}
	slices.Sort(out)
	return out
}

// waitNativeChanged waits until the native object's spec has changed at every previewed
// path, and then fails if it changed anywhere else.
func waitNativeChanged(ctx context.Context, t *testing.T, get func(context.Context, string) (*unstructured.Unstructured, error),
	native string, before *unstructured.Unstructured, want []string) *unstructured.Unstructured {
	t.Helper()
	var after *unstructured.Unstructured
	var got []string
	waitFor(ctx, t, deadline, native+" changed at "+strings.Join(want, ", "), func(ctx context.Context) (bool, error) {
		var err error
		if after, err = get(ctx, native); err != nil {
			return false, err
		}
		got = specChanges(before, after)
		for _, p := range want {
			if !slices.Contains(got, p) {
				return false, fmt.Errorf("not yet changed at %s (changed: %v)", p, got)
			}
		}
		return true, nil
	})
	if !slices.Equal(got, want) {
		t.Errorf("%s changed at %v; the preview said %v", native, got, want)
	}
	return after
}

func specChanges(before, after *unstructured.Unstructured) []string {
	b, _ := before.Object["spec"].(map[string]any)
	a, _ := after.Object["spec"].(map[string]any)
	var out []string
	for _, d := range model.FieldDiffs(map[string]any{"spec": b}, map[string]any{"spec": a}) {
		out = append(out, d.Path)
	}
	slices.Sort(out)
	return out
}

func deepCopyMap(m map[string]any) map[string]any {
	return (&unstructured.Unstructured{Object: m}).DeepCopy().Object
}
