package main

import (
	"fmt"
	"maps"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/all"
	"github.com/SovereignCloudStack/scs-kaas/model/input"
)

// leafEdit is one edit a platform team can make to an environment: a leaf of its data
// set to another value (or removed, or an element added), as the API server would accept.
type leafEdit struct {
	path  string // such as magnum.labels.ingress_controller, under data
	value any    // the new value; nil removes the leaf
}

// leafEdits lists an edit of every leaf of an environment's data but its access (who may
// use it, a matter of tenancy) and its backend (a switch is refused, TestCheckBackendKept),
// and of every list and map a removed element and an added one.
func leafEdits(data map[string]any) []leafEdit {
	var out []leafEdit
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(join(path, k), x[k])
			}
			if path != "" && len(x) > 0 && !strings.HasSuffix(path, "]") {
				out = append(out, leafEdit{path: join(path, "added"), value: "edited"})
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
			if len(x) > 1 {
				out = append(out, leafEdit{path: path, value: x[:len(x)-1]})
			}
		default:
			out = append(out, leafEdit{path: path, value: edited(path, v)})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(data)) {
		if k != "access" && k != "backend" {
			walk(k, data[k])
		}
	}
	// Settings the examples leave out, which a platform may add later.
	section := map[string]string{"gardener": "gardener", "clusterstack": "clusterStack", "magnum": "magnum"}[data["backend"].(string)]
	for _, a := range additions[section] {
		first, _, _ := strings.Cut(strings.TrimPrefix(a.path, section+"."), ".")
		if _, set := data[section].(map[string]any)[first]; !set {
			out = append(out, a)
		}
	}
	return out
}

// additions are edits that set what the example environments leave out.
var additions = map[string][]leafEdit{
	"gardener": {
		{path: "gardener.machineImage", value: map[string]any{"name": "gardenlinux", "version": "1877.3.0"}},
		{path: "gardener.cloudProfileKind", value: "NamespacedCloudProfile"},
		{path: "gardener.namespace", value: "garden-other"},
		{path: "gardener.adminKubeconfig.expirationSeconds", value: 3600.0},
		{path: "gardener.adminKubeconfig.renewBefore", value: "20m"},
		{path: "gardener.adminKubeconfig.providerConfigName", value: "other"},
	},
	"clusterStack": {
		{path: "clusterStack.stackVersion", value: "v3"},
		{path: "clusterStack.taintPropagation", value: true},
	},
	"magnum": {
		{path: "magnum.masterLBEnabled", value: true},
		{path: "magnum.fixedNetwork", value: "tenant-net"},
		{path: "magnum.fixedSubnet", value: "tenant-subnet"},
		{path: "magnum.scope", value: "Namespaced"},
	},
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

var (
	minorPattern  = regexp.MustCompile(`^1\.\d+$`)
	windowPattern = regexp.MustCompile(`^\d{6}\+\d{4}$`)
	// alternatives are the other value of a setting that has few: an edit to a made-up
	// value would only make the environment invalid.
	alternatives = map[string]string{"calico": "cilium", "cilium": "calico", "amphora": "ovn", "openstack": "openstack-next",
		"Cluster": "Namespaced", "CloudProfile": "NamespacedCloudProfile", "RegionOne": "RegionTwo", "local": "other-mgmt"}
)

// edited is another value for a leaf of the same kind, one a platform team could write.
func edited(path string, v any) any {
	switch x := v.(type) {
	case bool:
		return !x
	case float64:
		return x + 1
	case string:
		if p, err := netip.ParsePrefix(x); err == nil {
			return netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 199, 0, 0}), p.Bits()).String()
		}
		switch {
		case alternatives[x] != "":
			return alternatives[x]
		case minorPattern.MatchString(x):
			return "1.36"
		case windowPattern.MatchString(x):
			return "01" + x[2:]
		case strings.HasPrefix(x, "v1."):
			return x + "9"
		}
		return x + "-edited"
	}
	return v
}

// declaredSetting is the setting of the backend that covers path (under data), if any.
func declaredSetting(backend kaasv1alpha1.BackendType, path string) (model.Setting, bool) {
	b, err := all.Registry().For(backend)
	if err != nil {
		return model.Setting{}, false
	}
	selectors := regexp.MustCompile(`\[[^]]*\]`)
	plain := selectors.ReplaceAllString("data."+path, "")
	for _, s := range model.SettingsOf(b) {
		p := selectors.ReplaceAllString(s.Path, "")
		if plain == p || strings.HasPrefix(plain, p+".") {
			return s, true
		}
	}
	return model.Setting{}, false
}

// desiredNatives are the composed resources a response desires, by name, as JSON: what
// Crossplane applies. The kubeconfig Secret is what was delivered, not a native object.
func desiredNatives(rsp *fnv1.RunFunctionResponse) map[string]string {
	out := map[string]string{}
	for name, r := range rsp.GetDesired().GetResources() {
		if name == model.ResourceKubeconfigSecret || name == "platform-extra" {
			continue
		}
		raw, _ := r.GetResource().MarshalJSON()
		out[name] = string(raw)
	}
	return out
}

// TestEnvironmentEditsChangeNoCluster edits every leaf of the environment of a Ready
// cluster of every backend and flavour, one at a time, as a platform team does for the
// clusters it creates from then on. The cluster is not stalled (only an edit that makes the
// environment itself invalid is refused), and no native object changes unless the value
// is one its backend declares to follow the environment, with a reason and an effect.
func TestEnvironmentEditsChangeNoCluster(t *testing.T) {
	for _, c := range readyClusters(t) {
		before := run(t, c.req)
		data := environmentData(c)
		backend := kaasv1alpha1.BackendType(data["backend"].(string))
		for _, e := range leafEdits(data) {
			t.Run(c.name+"/"+e.path, func(t *testing.T) {
				req := proto.Clone(c.req).(*fnv1.RunFunctionRequest)
				editEnvironmentLeaf(t, req, c.environment, e)
				rsp := run(t, req)
				if r := fatalResult(rsp); r != nil {
					if r.GetReason() != kaasv1alpha1.ReasonInvalidEnvironment {
						t.Fatalf("the edit stalls the cluster: %s: %s", r.GetReason(), r.GetMessage())
					}
					return // the environment itself is refused, rightly
				}
				checkNothingTakenBack(t, req, rsp)
				if s, ok := declaredSetting(backend, e.path); ok && !s.Follows && !strings.Contains(s.Path, "[") {
					c := responseCondition(rsp, kaasv1alpha1.ConditionEnvironmentUpToDate)
					if c.GetStatus() != fnv1.Status_STATUS_CONDITION_FALSE || !strings.Contains(c.GetMessage(), s.Path+": the cluster stays on") {
						t.Errorf("EnvironmentUpToDate = %s %q, want False naming %s", c.GetStatus(), c.GetMessage(), s.Path)
					}
				}
				was, now := desiredNatives(before), desiredNatives(rsp)
				if maps.Equal(was, now) {
					return
				}
				if s, ok := declaredSetting(backend, e.path); ok && s.Follows {
					if s.Reason == "" || s.Change.Effect == "" {
						t.Errorf("data.%s follows the environment without a reason or an effect: %+v", e.path, s)
					}
					return
				}
				for name := range now {
					// The add-ons' Flux objects follow the catalog: a new tag reaches every
					// cluster (docs/addons.md#what-follows-the-environment); what is
					// installed is never taken back (checkNothingTakenBack).
					if strings.HasPrefix(name, "addon-") && strings.HasPrefix(e.path, "addons") {
						continue
					}
					if was[name] != now[name] {
						t.Errorf("the edit of data.%s changes %s, and its backend declares no setting that follows the environment for it:\nwas: %s\nnow: %s", e.path, name, was[name], now[name])
					}
				}
			})
		}
	}
}

// environmentData is the data of the Ready cluster's EnvironmentConfig.
func environmentData(c readyCluster) map[string]any {
	for _, item := range c.req.GetRequiredResources()["environments"].GetItems() {
		if e := item.GetResource().AsMap(); e["metadata"].(map[string]any)["name"] == c.environment {
			return e["data"].(map[string]any)
		}
	}
	return nil
}

// editEnvironmentLeaf applies an edit to one environment of the request.
func editEnvironmentLeaf(t *testing.T, req *fnv1.RunFunctionRequest, env string, e leafEdit) {
	t.Helper()
	for _, item := range req.GetRequiredResources()["environments"].GetItems() {
		cfg := item.GetResource().AsMap()
		if cfg["metadata"].(map[string]any)["name"] != env {
			continue
		}
		setLeaf(cfg["data"], e.path, e.value)
		item.Resource = mustStruct(t, cfg)
		return
	}
	t.Fatalf("no environment %s in the request", env)
}

// setLeaf sets (or with nil deletes) the leaf at path, whose parts are map keys and [i]
// list indexes; missing maps on the way are made.
func setLeaf(v any, path string, value any) {
	parts := regexp.MustCompile(`[^.\[\]]+|\[\d+\]`).FindAllString(path, -1)
	for i, p := range parts {
		last := i == len(parts)-1
		switch x := v.(type) {
		case map[string]any:
			if last {
				if value == nil {
					delete(x, p)
				} else {
					x[p] = value
				}
				return
			}
			if _, ok := x[p]; !ok {
				x[p] = map[string]any{}
			}
			v = x[p]
		case []any:
			var idx int
			fmt.Sscanf(p, "[%d]", &idx)
			if last {
				x[idx] = value
				return
			}
			v = x[idx]
		}
	}
}

// TestAdoptingTheEnvironment: a Ready cluster whose owner asks it to adopt its environment's
// values (kaas.scs.community/adopt-environment) takes each edited one its backend can
// change in place, with the effect the preview gives beforehand, and keeps, with a Warning,
// each that would replace it; it is never stalled, and a second call changes nothing more.
func TestAdoptingTheEnvironment(t *testing.T) {
	const request = "2026-12-05T10:00:00Z"
	for _, c := range readyClusters(t) {
		data := environmentData(c)
		backend := kaasv1alpha1.BackendType(data["backend"].(string))
		for _, e := range leafEdits(data) {
			s, ok := declaredSetting(backend, e.path)
			if !ok || s.Follows {
				continue
			}
			t.Run(c.name+"/"+e.path, func(t *testing.T) {
				edited := proto.Clone(c.req).(*fnv1.RunFunctionRequest)
				editEnvironmentLeaf(t, edited, c.environment, e)
				kept := run(t, edited)
				if r := fatalResult(kept); r != nil {
					if r.GetReason() == kaasv1alpha1.ReasonInvalidEnvironment {
						return
					}
					t.Fatalf("the edit stalls the cluster: %s", r.GetMessage())
				}
				adopting := proto.Clone(edited).(*fnv1.RunFunctionRequest)
				setAnnotation(t, adopting, kaasv1alpha1.AnnotationAdoptEnvironment, request)
				rsp := run(t, adopting)
				if r := fatalResult(rsp); r != nil {
					t.Fatalf("adopting stalls the cluster: %s: %s", r.GetReason(), r.GetMessage())
				}
				checkNothingTakenBack(t, adopting, rsp)
				if got := statusBackend(rsp, "adopted"); got != request {
					t.Errorf("status.backend.adopted = %q, want %q", got, request)
				}
				preview := previewOf(t, edited, adopting)
				refused := warningsOf(rsp, kaasv1alpha1.ReasonAdoptionRefused)
				changed := !maps.Equal(desiredNatives(kept), desiredNatives(rsp))
				previewed := false
				for _, p := range preview.Settings {
					previewed = previewed || strings.HasPrefix(p.Path, strings.Split(s.Path, "[")[0]) && p.Effect == s.Change.Effect
				}
				prefix := strings.Split(s.Path, "[")[0]
				switch {
				case !strings.Contains(responseCondition(kept, kaasv1alpha1.ConditionEnvironmentUpToDate).GetMessage(), prefix):
					// The edit does not concern this cluster (another minor's template).
				case s.Change.Effect == model.EffectRefused:
					if changed || !strings.Contains(refused, prefix) || previewed {
						t.Errorf("a value that would replace the cluster: natives changed %v, previewed %v, Warning %q; want it kept with a Warning naming %s", changed, previewed, refused, s.Path)
					}
				case !previewed:
					t.Errorf("adopting %s (%s) is not previewed: %+v", s.Path, s.Change.Effect, preview.Settings)
				case strings.Contains(responseCondition(rsp, kaasv1alpha1.ConditionEnvironmentUpToDate).GetMessage(), s.Path+": the cluster stays on"):
					t.Errorf("the cluster keeps %s after adopting it", s.Path)
				}
				if changed && len(preview.Objects) == 0 {
					t.Errorf("adopting changed the natives, and the preview shows none changing")
				}
				// The next call, with what the adoption recorded, changes nothing more.
				settled := proto.Clone(adopting).(*fnv1.RunFunctionRequest)
				settled.GetObserved().GetComposite().GetResource().GetFields()["status"] = rsp.GetDesired().GetComposite().GetResource().GetFields()["status"]
				again := run(t, settled)
				if !maps.Equal(desiredNatives(rsp), desiredNatives(again)) || warningsOf(again, kaasv1alpha1.ReasonAdoptionRefused) != "" {
					t.Error("the call after the adoption renders something else, or adopts again")
				}
			})
		}
	}
}

// setAnnotation sets an annotation of the request's composite.
func setAnnotation(t *testing.T, req *fnv1.RunFunctionRequest, key, value string) {
	t.Helper()
	xr := req.GetObserved().GetComposite().GetResource().AsMap()
	meta := xr["metadata"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	if annotations == nil {
		annotations = map[string]any{}
	}
	annotations[key] = value
	meta["annotations"] = annotations
	req.GetObserved().GetComposite().Resource = mustStruct(t, xr)
}

// statusBackend is a field of status.backend in a response.
func statusBackend(rsp *fnv1.RunFunctionResponse, field string) string {
	return rsp.GetDesired().GetComposite().GetResource().GetFields()["status"].GetStructValue().GetFields()["backend"].GetStructValue().GetFields()[field].GetStringValue()
}

// warningsOf joins the messages of a response's Warnings of a reason.
func warningsOf(rsp *fnv1.RunFunctionResponse, reason string) string {
	var out []string
	for _, r := range rsp.GetResults() {
		if r.GetSeverity() == fnv1.Severity_SEVERITY_WARNING && r.GetReason() == reason {
			out = append(out, r.GetMessage())
		}
	}
	return strings.Join(out, "\n")
}

// previewOf previews, with the model, the edit of the request's composite to the other's.
func previewOf(t *testing.T, current, edited *fnv1.RunFunctionRequest) *model.Preview {
	t.Helper()
	in, err := decodeInput(current, model.Options{ConnectionSecretNamespace: defaultConnectionSecretNamespace})
	if err != nil {
		t.Fatal(err)
	}
	next, err := decodeInput(edited, model.Options{ConnectionSecretNamespace: defaultConnectionSecretNamespace})
	if err != nil {
		t.Fatal(err)
	}
	in.Now = testNow // the function's clock, as run has it
	p, err := input.Preview(all.Registry(), in, next.Cluster, noFetch)
	if err != nil {
		t.Fatal(err)
	}
	if p.Refused != nil {
		t.Fatalf("the preview refuses: %s", p.Refused.Message)
	}
	return p
}

// TestPreviewEnvironmentEdit: an edit of an EnvironmentConfig is previewed per cluster as
// the function would carry it out: nothing changes now but what follows the environment,
// and adopting it changes what the backend declares, with that effect.
func TestPreviewEnvironmentEdit(t *testing.T) {
	type want struct {
		settings        []string // summaries of the settings the edit changes
		nowChanges      bool     // a native object changes at once
		adoptingChanges bool     // a native object changes when the cluster adopts it
	}
	cases := []struct {
		cluster string
		edit    leafEdit
		want    want
	}{
		{"gardener/legacy", leafEdit{"gardener.loadBalancerProvider", "ovn"}, want{
			settings:        []string{"kept until adopted, then in place: data.gardener.loadBalancerProvider amphora -> ovn"},
			adoptingChanges: true}},
		{"gardener/namespaced", leafEdit{"gardener.credentialsBindingName", "rotated"}, want{
			settings:   []string{"in place: data.gardener.credentialsBindingName openstack-credentials -> rotated (Gardener reconciles the infrastructure with the new credentials)"},
			nowChanges: true, adoptingChanges: true}},
		{"magnum/legacy", leafEdit{"magnum.masterFlavor", "SCS-4V-8"}, want{
			settings: []string{"kept for good: data.magnum.masterFlavor SCS-2V-4 -> SCS-4V-8 (Magnum cannot change it without a new cluster)"}}},
		{"clusterstack/namespaced", leafEdit{"clusterStack.variables.controlPlaneFlavor", "SCS-4V-8"}, want{
			settings:        []string{`kept until adopted, then control plane rolls: data.clusterStack.variables {"controlPlaneFlavor":"SCS-2V-4","identityRef":{"cloudName":"openstack","name":"openstack"},"networkExternalID":"ebfe5546-f09f-4f42-ab54-094e457d42ec"} -> {"controlPlaneFlavor":"SCS-4V-8","identityRef":{"cloudName":"openstack","name":"openstack"},"networkExternalID":"ebfe5546-f09f-4f42-ab54-094e457d42ec"}`},
			adoptingChanges: true}},
	}
	ready := map[string]readyCluster{}
	for _, c := range readyClusters(t) {
		ready[c.name] = c
	}
	for _, tc := range cases {
		t.Run(tc.cluster+"/"+tc.edit.path, func(t *testing.T) {
			c := ready[tc.cluster]
			in, err := decodeInput(c.req, model.Options{ConnectionSecretNamespace: defaultConnectionSecretNamespace})
			if err != nil {
				t.Fatal(err)
			}
			edited := proto.Clone(c.req).(*fnv1.RunFunctionRequest)
			editEnvironmentLeaf(t, edited, c.environment, tc.edit)
			config := &unstructured.Unstructured{}
			for _, item := range edited.GetRequiredResources()["environments"].GetItems() {
				if o := item.GetResource().AsMap(); o["metadata"].(map[string]any)["name"] == c.environment {
					config.Object = o
				}
			}
			fetch := func(name string, _ model.Selector) ([]*unstructured.Unstructured, error) {
				return in.Required[name], nil
			}
			p, err := input.PreviewEnvironment(all.Registry(), in, config, fetch)
			if err != nil {
				t.Fatal(err)
			}
			var settings []string
			for _, s := range p.Settings {
				settings = append(settings, s.Summary())
			}
			got := want{settings: settings, nowChanges: len(p.Now.Objects) > 0, adoptingChanges: len(p.Adopting.Objects) > 0}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("-want, +got:\n%s", diff)
			}
			if p.Now.Refused != nil || p.Adopting.Refused != nil {
				t.Errorf("refused: now %v, adopting %v", p.Now.Refused, p.Adopting.Refused)
			}
		})
	}
}

// TestSettingsFollowUntilTheClusterExists: a cluster whose native objects do not exist
// yet (its first apply refused, say, for an environment's typo) takes the environment as
// the platform team corrects it; once they exist, it keeps what it has.
func TestSettingsFollowUntilTheClusterExists(t *testing.T) {
	for _, c := range readyClusters(t) {
		if c.name != "gardener/legacy" {
			continue
		}
		for _, exists := range []bool{false, true} {
			req := proto.Clone(c.req).(*fnv1.RunFunctionRequest)
			if !exists {
				// Its first apply was refused: nothing composed, nothing recorded as created.
				req.GetObserved().Resources = nil
				delete(req.GetObserved().GetComposite().GetResource().GetFields()["status"].GetStructValue().GetFields()["backend"].GetStructValue().GetFields(), "created")
			}
			editEnvironmentLeaf(t, req, c.environment, leafEdit{"gardener.loadBalancerProvider", "ovn"})
			rsp, _ := runNew(t, req)
			if r := fatalResult(rsp); r != nil {
				t.Fatalf("refused: %s", r.GetMessage())
			}
			want := map[bool]string{false: "ovn", true: "amphora"}[exists]
			shoot := rsp.GetDesired().GetResources()["gardener-shoot"].GetResource().AsMap()
			got, _, _ := unstructured.NestedString(shoot, "spec", "forProvider", "manifest", "spec", "provider", "controlPlaneConfig", "loadBalancerProvider")
			if got != want {
				t.Errorf("native objects exist: %v; the Shoot's load balancer provider is %q, want %q", exists, got, want)
			}
		}
	}
}
