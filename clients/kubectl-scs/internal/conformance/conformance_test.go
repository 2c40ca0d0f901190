package conformance

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"

	"github.com/SovereignCloudStack/scs-kaas/clients/kubectl-scs/internal/fields"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// provider plays the provider's control plane on a fake dynamic client: a created SCSCluster
// gets its kubeconfig Secret, and reading one reports it Ready at the version and pool size
// its spec asks for, as the function would once the backend is done. Knobs break it in the
// ways the checks must notice.
type provider struct {
	t   *testing.T
	dyn *dynamicfake.FakeDynamicClient

	mu sync.Mutex
	// never: clusters never become Ready.
	never bool
	// stalls: the function refuses every cluster's spec (Stalled, Rendered False).
	stalls bool
	// refusesScaling: the function refuses a raised lower bound of a pool, as Magnum's
	// does for the first pool.
	refusesScaling bool
	// acceptDowngrade: the API server takes a downgrade.
	acceptDowngrade bool
	// refuseWithout: the refusal names no field.
	refuseWithout bool
	// answers: the version every cluster answers with; "" the minor of its spec.
	answers string
	// zones are the zone labels of the nodes of every cluster.
	zones map[string]string
	// addons is what every Ready cluster reports of its add-ons: "applied", "failing",
	// "inconsistent" (AddonsReady True, an add-on not applied), "optional" (offered, none
	// enforced or default) or "" (none offered).
	addons string
	// onCreate is called after a cluster is created.
	onCreate func(name string)
}

// addonsStatus is the status.addons and AddonsReady condition of p.addons.
func (p *provider) addonsStatus() ([]any, map[string]any) {
	hello := map[string]any{"name": "hello", "ready": true, "revision": "1@sha256:1"}
	switch p.addons {
	case "applied":
		return []any{hello, map[string]any{"name": "web", "ready": true, "revision": "1@sha256:2"}},
			map[string]any{"type": "AddonsReady", "status": "True", "reason": "AddonsApplied"}
	case "failing":
		return []any{hello, map[string]any{"name": "web", "message": "ArtifactFailed: not found"}},
			map[string]any{"type": "AddonsReady", "status": "False", "reason": "ArtifactFailed", "message": "add-ons not ready: web: ArtifactFailed: not found"}
	case "optional":
		return nil, map[string]any{"type": "AddonsReady", "status": "True", "reason": "NoAddons", "message": "the cluster has no add-ons"}
	case "inconsistent":
		return []any{hello, map[string]any{"name": "web"}},
			map[string]any{"type": "AddonsReady", "status": "True", "reason": "AddonsApplied"}
	}
	return nil, nil
}

var listKinds = map[schema.GroupVersionResource]string{
	ClusterGVR:   "SCSClusterList",
	SecretGVR:    "SecretList",
	NamespaceGVR: "NamespaceList",
	EnvConfigGVR: "EnvironmentConfigList",
}

func newProvider(t *testing.T, objs ...runtime.Object) *provider {
	p := &provider{t: t, zones: map[string]string{"node-a": "az1", "node-b": "az2"}, addons: "applied"}
	p.dyn = dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds, objs...)
	tracker := p.dyn.Tracker()
	p.dyn.PrependReactor("create", "scsclusters", func(a clienttesting.Action) (bool, runtime.Object, error) {
		obj := a.(clienttesting.CreateAction).GetObject().(*unstructured.Unstructured)
		secret := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"name": obj.GetName() + "-kubeconfig", "namespace": obj.GetNamespace()},
			"data": map[string]any{
				"kubeconfig": base64.StdEncoding.EncodeToString([]byte(obj.GetName())),
				"endpoint":   base64.StdEncoding.EncodeToString([]byte("https://127.0.0.1:6443")),
				"ca.crt":     base64.StdEncoding.EncodeToString([]byte("ca")),
			},
		}}
		if err := tracker.Create(SecretGVR, secret, obj.GetNamespace()); err != nil {
			return true, nil, err
		}
		obj.SetGeneration(1)
		if err := tracker.Create(ClusterGVR, obj, obj.GetNamespace()); err != nil {
			return true, nil, err
		}
		if p.onCreate != nil {
			p.onCreate(obj.GetName())
		}
		return true, obj, nil
	})
	p.dyn.PrependReactor("get", "scsclusters", func(a clienttesting.Action) (bool, runtime.Object, error) {
		g := a.(clienttesting.GetAction)
		o, err := tracker.Get(ClusterGVR, g.GetNamespace(), g.GetName())
		if err != nil {
			return true, nil, err
		}
		obj := o.(*unstructured.Unstructured).DeepCopy()
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.stalls {
			obj.Object["status"] = map[string]any{"conditions": []any{
				map[string]any{"type": "Ready", "status": "False", "reason": "Creating"},
				map[string]any{"type": "Stalled", "status": "True", "reason": "InvalidSpec", "observedGeneration": obj.GetGeneration(),
					"message": "spec.nodePools[0].autoscaling.max: Invalid value: 3: Gardener needs at least one node per zone"},
			}}
		}
		if p.refusesScaling && strings.Contains(fmt.Sprint(obj.Object["spec"]), "min:2") {
			obj.Object["status"] = map[string]any{"conditions": []any{
				map[string]any{"type": "Ready", "status": "True", "reason": "Available"},
				map[string]any{"type": "Stalled", "status": "True", "reason": "InvalidSpec", "observedGeneration": obj.GetGeneration(),
					"message": "spec.nodePools[1].autoscaling: Forbidden: Magnum cannot change label min_node_count"},
			}}
			return true, obj, nil
		}
		if !p.never && !p.stalls {
			version := fields.String(obj, "spec", "kubernetes", "version")
			pools, _, _ := unstructured.NestedSlice(obj.Object, "spec", "nodePools")
			var status []any
			for _, pl := range pools {
				m := pl.(map[string]any)
				as := m["autoscaling"].(map[string]any)
				status = append(status, map[string]any{"name": m["name"], "min": as["min"], "max": as["max"]})
			}
			obj.Object["status"] = map[string]any{
				"phase":      "Ready",
				"kubernetes": map[string]any{"version": version},
				"nodePools":  status,
				"conditions": []any{map[string]any{"type": "Ready", "status": "True", "reason": "Available"}},
				"offered": map[string]any{"kubernetesVersions": []any{"1.33", "1.34", "1.35"}, "machineTypes": []any{"SCS-2V-4"},
					"zones": []any{"az1", "az2", "az3"}},
			}
			if addons, cond := p.addonsStatus(); cond != nil {
				obj.Object["status"].(map[string]any)["addons"] = addons
				obj.Object["status"].(map[string]any)["conditions"] = append(obj.Object["status"].(map[string]any)["conditions"].([]any), cond)
			}
		}
		return true, obj, nil
	})
	p.dyn.PrependReactor("patch", "scsclusters", func(a clienttesting.Action) (bool, runtime.Object, error) {
		pa := a.(clienttesting.PatchAction)
		var ops []map[string]any
		if err := json.Unmarshal(pa.GetPatch(), &ops); err != nil {
			return true, nil, err
		}
		o, err := tracker.Get(ClusterGVR, pa.GetNamespace(), pa.GetName())
		if err != nil {
			return true, nil, err
		}
		cur, _ := model.ParseVersion(fields.String(o.(*unstructured.Unstructured), "spec", "kubernetes", "version"))
		for _, op := range ops {
			if op["path"] != "/spec/kubernetes/version" || op["op"] != "replace" {
				continue
			}
			want, _ := model.ParseVersion(op["value"].(string))
			p.mu.Lock()
			accept, without := p.acceptDowngrade, p.refuseWithout
			p.mu.Unlock()
			if want.Minor < cur.Minor && !accept {
				path := field.NewPath("spec", "kubernetes", "version")
				if without {
					path = field.NewPath("spec")
				}
				return true, nil, apierrors.NewInvalid(schema.GroupKind{Group: "kaas.scs.community", Kind: "SCSCluster"}, pa.GetName(),
					field.ErrorList{field.Forbidden(path, "cannot be downgraded")})
			}
		}
		// The tracker applies the patch; the generation follows the spec.
		obj := o.(*unstructured.Unstructured).DeepCopy()
		obj.SetGeneration(obj.GetGeneration() + 1)
		if err := tracker.Update(ClusterGVR, obj, obj.GetNamespace()); err != nil {
			return true, nil, err
		}
		return false, nil, nil
	})
	return p
}

// connect is the provider's new clusters: each answers with the minor its SCSCluster asks
// for (the fake kubeconfig is the cluster's name), or with p.answers.
func (p *provider) connect(kubeconfig []byte) (Workload, error) {
	o, err := p.dyn.Tracker().Get(ClusterGVR, "team1", string(kubeconfig))
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	v := p.answers
	if v == "" {
		v = "v" + fields.String(o.(*unstructured.Unstructured), "spec", "kubernetes", "version") + ".3"
	}
	zones := map[string]string{}
	for k, z := range p.zones {
		zones[k] = z
	}
	return fakeWorkload{version: v, zones: zones}, nil
}

type fakeWorkload struct {
	version string
	zones   map[string]string
}

func (w fakeWorkload) ServerVersion(context.Context) (string, error) { return w.version, nil }
func (w fakeWorkload) NodeZones(context.Context) (map[string]string, error) {
	return w.zones, nil
}

func environmentConfig(t *testing.T, versions string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	data, err := yaml.YAMLToJSON([]byte(`
apiVersion: apiextensions.crossplane.io/v1beta1
kind: EnvironmentConfig
metadata:
  name: gardener-regionone
  labels: {kaas.scs.community/environment: gardener-regionone}
data:
  backend: gardener
  access: {namespaces: [team1]}
  catalog:
    kubernetesVersions: ` + versions + `
    machineTypes: [SCS-2V-4, SCS-4V-8]
    zones: [az1, az2, az3]
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := obj.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	return obj
}

func (p *provider) kit(minors ...string) *Kit {
	return &Kit{Dynamic: p.dyn, Connect: p.connect, Options: Options{
		Environment: "gardener-regionone", Namespace: "team1", Minors: minors, RunID: "t1",
		Timeout: 2 * time.Second, PollInterval: time.Millisecond,
	}}
}

// verdicts is id=verdict for every result, in order.
func verdicts(o *Outcome) string {
	var out []string
	for _, r := range o.Results {
		out = append(out, r.ID+"="+string(r.Verdict))
	}
	return strings.Join(out, " ")
}

func (p *provider) remaining(t *testing.T) []string {
	t.Helper()
	list, err := p.dyn.Resource(ClusterGVR).Namespace("team1").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range list.Items {
		names = append(names, c.GetName())
	}
	return names
}

func runKit(ctx context.Context, t *testing.T, k *Kit) *Outcome {
	t.Helper()
	out, err := k.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRunPassesEveryOfferedMinor(t *testing.T) {
	p := newProvider(t, environmentConfig(t, `["1.33", "1.34", "1.35"]`))
	out := runKit(context.Background(), t, p.kit())
	want := "environment-offers=passed " +
		"create-ready-1.33=passed kubeconfig-version-1.33=passed node-zones-1.33=passed addons-1.33=passed " +
		"create-ready-1.34=passed kubeconfig-version-1.34=passed node-zones-1.34=passed addons-1.34=passed " +
		"create-ready-1.35=passed kubeconfig-version-1.35=passed node-zones-1.35=passed addons-1.35=passed " +
		"scale-pool=passed upgrade-minor=passed refused-change=passed delete-cleanup=passed"
	if got := verdicts(out); got != want {
		t.Errorf("verdicts:\n got %s\nwant %s\n%s", got, want, messages(out))
	}
	if !out.Passed() {
		t.Errorf("run did not pass:\n%s", messages(out))
	}
	if left := p.remaining(t); len(left) > 0 {
		t.Errorf("clusters left after the run: %v", left)
	}
	// The upgrade took the 1.34 cluster to 1.35, the newest tested minor.
	if m := result(out, "upgrade-minor").Message; !strings.Contains(m, "conformance-t1-1-34 upgraded from 1.34 to 1.35") || !strings.Contains(m, "answers with v1.35.3") {
		t.Errorf("upgrade-minor message = %q", m)
	}
	if m := result(out, "refused-change").Message; !strings.Contains(m, "spec.kubernetes.version") {
		t.Errorf("refused-change message = %q", m)
	}
	if m, want := result(out, "addons-1.34").Message, "2 add-ons applied to conformance-t1-1-34 and healthy: hello at 1@sha256:1, web at 1@sha256:2"; m != want {
		t.Errorf("addons-1.34 message = %q, want %q", m, want)
	}
	// Every created cluster carries the run's label and asks for no protection.
	for _, a := range p.dyn.Actions() {
		if c, ok := a.(clienttesting.CreateAction); ok && a.GetResource() == ClusterGVR {
			obj := c.GetObject().(*unstructured.Unstructured)
			if obj.GetLabels()[LabelRun] != "t1" {
				t.Errorf("%s lacks label %s=t1", obj.GetName(), LabelRun)
			}
			if v, _, _ := unstructured.NestedBool(obj.Object, "spec", "deletionProtection"); v {
				t.Errorf("%s asks for deletion protection", obj.GetName())
			}
		}
	}
}

func messages(o *Outcome) string {
	var b strings.Builder
	for _, r := range o.Results {
		fmt.Fprintf(&b, "  %s %s: %s\n", r.Verdict, r.ID, r.Message)
	}
	return b.String()
}

func result(o *Outcome, id string) Result {
	for _, r := range o.Results {
		if r.ID == id {
			return r
		}
	}
	return Result{}
}

// The failures each check must notice.
func TestRunFails(t *testing.T) {
	for _, c := range []struct {
		name   string
		breaks func(p *provider)
		minors []string
		failed string
		says   string
	}{
		{"the cluster answers with another minor", func(p *provider) { p.answers = "v1.35.0" }, []string{"1.34"},
			"kubeconfig-version-1.34", "answers with Kubernetes v1.35.0, not 1.34"},
		{"a node without zone", func(p *provider) { p.zones["node-c"] = "" }, []string{"1.34"},
			"node-zones-1.34", "node-c has no topology.kubernetes.io/zone"},
		{"a node in a zone not offered", func(p *provider) { p.zones["node-c"] = "az9" }, []string{"1.34"},
			"node-zones-1.34", "node-c is in zone az9, which the environment does not offer"},
		{"no nodes", func(p *provider) { p.zones = map[string]string{} }, []string{"1.34"},
			"node-zones-1.34", "the cluster has no nodes"},
		{"a downgrade accepted", func(p *provider) { p.acceptDowngrade = true }, []string{"1.34"},
			"refused-change", "the downgrade of conformance-t1-1-34 from 1.34 to 1.33 was accepted"},
		{"a refusal that names no field", func(p *provider) { p.refuseWithout = true }, []string{"1.34"},
			"refused-change", "refused without naming spec.kubernetes.version"},
		{"never Ready", func(p *provider) { p.never = true }, []string{"1.34"},
			"create-ready-1.34", "not Ready within 2s: Ready is not reported"},
		{"refused by the function", func(p *provider) { p.stalls = true }, []string{"1.34"},
			"create-ready-1.34", "conformance-t1-1-34 will not become Ready: Stalled True/InvalidSpec (spec.nodePools[0].autoscaling.max: Invalid value: 3"},
		{"scaling refused", func(p *provider) { p.refusesScaling = true }, []string{"1.34"},
			"scale-pool", "the scaling of pool scale was refused: Stalled True/InvalidSpec (spec.nodePools[1].autoscaling: Forbidden"},
		{"an add-on failing", func(p *provider) { p.addons = "failing" }, []string{"1.34"},
			"addons-1.34", "AddonsReady is False/ArtifactFailed (add-ons not ready: web: ArtifactFailed: not found)"},
		{"an add-on not applied while AddonsReady", func(p *provider) { p.addons = "inconsistent" }, []string{"1.34"},
			"addons-1.34", `has add-ons not applied: web (ready <nil>, revision "")`},
		{"a minor not offered", func(*provider) {}, []string{"1.36"},
			"environment-offers", "minors 1.36 are not offered (offered: 1.33, 1.34, 1.35)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newProvider(t, environmentConfig(t, `["1.33", "1.34", "1.35"]`))
			c.breaks(p)
			k := p.kit(c.minors...)
			k.Options.Timeout = 200 * time.Millisecond
			if c.name == "never Ready" {
				k.Options.Timeout = 2 * time.Second
			}
			out := runKit(context.Background(), t, k)
			if out.Passed() {
				t.Fatalf("run passed:\n%s", messages(out))
			}
			if r := result(out, c.failed); r.Verdict != Failed || !strings.Contains(r.Message, c.says) {
				t.Errorf("%s = %s: %q, want failed saying %q\n%s", c.failed, r.Verdict, r.Message, c.says, messages(out))
			}
			if left := p.remaining(t); len(left) > 0 {
				t.Errorf("clusters left after a failed run: %v", left)
			}
		})
	}
}

// An environment without add-ons, or with optional ones only, skips the add-on check,
// saying why, and the run passes.
func TestRunWithoutAddons(t *testing.T) {
	for addons, want := range map[string]string{
		"":         "the environment offers no add-ons: the cluster has no AddonsReady condition",
		"optional": "the environment's add-ons are all optional: none is enforced or on by default, so the cluster has none",
	} {
		p := newProvider(t, environmentConfig(t, `["1.34"]`))
		p.addons = addons
		out := runKit(context.Background(), t, p.kit("1.34"))
		if r := result(out, "addons-1.34"); r.Verdict != Skipped || r.Message != want {
			t.Errorf("addons %q: addons-1.34 = %s: %q, want skipped: %q", addons, r.Verdict, r.Message, want)
		}
		if !out.Passed() {
			t.Errorf("addons %q: run did not pass:\n%s", addons, messages(out))
		}
	}
}
