package main

import (
	"cmp"
	"strings"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	gocmp "github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// memoryLost is what a composite keeps of its status after its control plane was lost:
// from Git, nothing; from a backup (docs/recovery.md), its status but the conditions, as
// kubectl scs backup writes it.
type memoryLost string

const (
	fromGit    memoryLost = "git"
	fromBackup memoryLost = "backup"
)

// TestLostControlPlaneChangesNothing: every Ready cluster of every backend and flavour is
// applied again to a new control plane, from Git (nothing remembered) and from a backup
// (its memory restored), while its environment was edited in every leaf since. The function
// looks for the natives before it manages them, reads its memory back from what runs where
// it has none, and then desires every native object exactly as before: nothing is changed
// or recreated. What Git alone cannot recover, as docs/recovery.md says: Magnum (its
// provider finds a cluster only by its UUID, which only a backup holds), and a cluster whose
// environment's placement was edited (it is looked for where clusters go now).
func TestLostControlPlaneChangesNothing(t *testing.T) {
	for _, c := range readyClusters(t) {
		ready := run(t, c.req)
		before := backendNatives(ready)
		c.req = runningAsApplied(t, c.req, ready)
		data := environmentData(c)
		edits := append([]leafEdit{{}}, leafEdits(data)...)
		for _, lost := range []memoryLost{fromGit, fromBackup} {
			if lost == fromGit && strings.HasPrefix(c.name, "magnum") {
				continue
			}
			for _, e := range edits {
				backend := kaasv1alpha1.BackendType(data["backend"].(string))
				if s, ok := declaredSetting(backend, e.path); lost == fromGit && ok && s.Change.Effect == model.EffectRefused {
					// Git alone finds a cluster where its environment places clusters now:
					// after a placement edit, only the backup knows where it is.
					continue
				}
				if lost == fromGit && strings.HasPrefix(e.path, "clusterStack.variableNames.") {
					// A Cluster's variables are read back through today's names: after a
					// rename, only the backup knows which name means what.
					continue
				}
				t.Run(c.name+"/"+string(lost)+"/"+cmp.Or(e.path, "unedited"), func(t *testing.T) {
					req := proto.Clone(c.req).(*fnv1.RunFunctionRequest)
					if e.path != "" {
						editEnvironmentLeaf(t, req, c.environment, e)
					}
					rsp, refusal := recoverCluster(t, req, lost)
					if refusal != nil {
						if refusal.GetReason() == kaasv1alpha1.ReasonInvalidEnvironment {
							return // the environment itself is refused, rightly
						}
						t.Fatalf("the recovered cluster is refused: %s: %s", refusal.GetReason(), refusal.GetMessage())
					}
					now := backendNatives(rsp)
					for name, was := range before {
						if s, ok := declaredSetting(kaasv1alpha1.BackendType(data["backend"].(string)), e.path); ok && s.Follows {
							break // a setting every cluster follows at once, recovered or not
						}
						if now[name] != was {
							t.Errorf("%s changes with the recovery:\nwas: %s\nnow: %s", name, was, now[name])
						}
					}
				})
			}
		}
	}
}

// backendNatives are the desired resources of the backend, as JSON, by resource name.
func backendNatives(rsp *fnv1.RunFunctionResponse) map[string]string {
	out := map[string]string{}
	for name, raw := range desiredNatives(rsp) {
		for _, b := range kaasv1alpha1.BackendTypes() {
			if strings.HasPrefix(name, string(b)+"-") {
				out[name] = raw
			}
		}
	}
	return out
}

// recoverCluster applies a Ready cluster's composite again to a control plane that lost
// it, with what lost keeps of its status and nothing composed, and plays Crossplane and
// the providers until the function manages it again: each lookout answered from what runs
// (the ready request's observed natives), the status written back. It returns the first
// response that manages the cluster again, or the refusal.
func recoverCluster(t *testing.T, ready *fnv1.RunFunctionRequest, lost memoryLost) (*fnv1.RunFunctionResponse, *fnv1.Result) {
	t.Helper()
	running := ready.GetObserved().GetResources()
	req := proto.Clone(ready).(*fnv1.RunFunctionRequest)
	req.Observed.Resources = nil
	req.Observed.Composite.ConnectionDetails = nil
	status := req.GetObserved().GetComposite().GetResource().GetFields()["status"].GetStructValue()
	kept := &structpb.Struct{Fields: map[string]*structpb.Value{}}
	if lost == fromBackup {
		for f, v := range status.GetFields() {
			if f != "conditions" {
				kept.Fields[f] = v
			}
		}
	}
	req.Observed.Composite.Resource.Fields["status"] = structpb.NewStructValue(kept)
	for range 4 {
		rsp := run(t, req)
		if r := fatalResult(rsp); r != nil {
			return nil, r
		}
		// Crossplane writes the status the function desires, once it asks for nothing more.
		if s, ok := rsp.GetDesired().GetComposite().GetResource().GetFields()["status"]; ok {
			req.Observed.Composite.Resource.Fields["status"] = s
		}
		looked := answerLookups(t, req, rsp, running)
		if responseCondition(rsp, kaasv1alpha1.ConditionBackendReady).GetReason() != kaasv1alpha1.ReasonAdopting && !looked {
			return rsp, nil
		}
		if responseCondition(rsp, kaasv1alpha1.ConditionBackendReady).GetReason() != kaasv1alpha1.ReasonAdopting {
			continue
		}
		// Each observe-only Object or managed resource reports what it observes, as it runs.
		for name, d := range rsp.GetDesired().GetResources() {
			if _, reported := req.GetObserved().GetResources()[name]; reported || !observesOnly(d) {
				continue
			}
			req.Observed.Resources = ensure(req.Observed.Resources)
			if r, ok := running[name]; ok {
				req.Observed.Resources[name] = &fnv1.Resource{Resource: mustStruct(t, observedAs(t, d, r, name)), ConnectionDetails: r.GetConnectionDetails()}
			} else {
				req.Observed.Resources[name] = &fnv1.Resource{Resource: mustStruct(t, observedNothing(t, d, name))}
			}
		}
		// Once read back or found, the natives are managed again: Crossplane observes them as they run.
		if !stillLooking(rsp) {
			req.Observed.Resources = running
		}
	}
	t.Fatal("the recovery does not settle")
	return nil, nil
}

// answerLookups fetches each lookup by name from what runs: the local native, or nothing.
func answerLookups(t *testing.T, req *fnv1.RunFunctionRequest, rsp *fnv1.RunFunctionResponse, running map[string]*fnv1.Resource) bool {
	looked := false
	for name := range rsp.GetRequirements().GetResources() {
		resource, ok := strings.CutPrefix(name, model.LookupRequirementPrefix)
		if _, fetched := req.GetRequiredResources()[name]; !ok || fetched {
			continue
		}
		items := &fnv1.Resources{}
		if r, exists := running[resource]; exists {
			items.Items = []*fnv1.Resource{{Resource: r.GetResource()}}
		}
		req.RequiredResources[name], looked = items, true
	}
	return looked
}

// stillLooking says whether the function waits for a lookout not reported yet.
func stillLooking(rsp *fnv1.RunFunctionResponse) bool {
	return strings.HasPrefix(responseCondition(rsp, kaasv1alpha1.ConditionBackendReady).GetMessage(), "observing before managing")
}

// observedAs is an observe-only resource the function desires, reported by its provider
// as the running one it observes: its status.
func observedAs(t *testing.T, desired, running *fnv1.Resource, name string) map[string]any {
	o := lastApplied(t, desired, name)
	if s, ok := running.GetResource().AsMap()["status"]; ok {
		o["status"] = s
	}
	if a, ok := running.GetResource().AsMap()["metadata"].(map[string]any)["annotations"].(map[string]any)[model.ExternalNameAnnotation]; ok {
		o["metadata"].(map[string]any)["annotations"].(map[string]any)[model.ExternalNameAnnotation] = a
	}
	return o
}

func ensure(m map[string]*fnv1.Resource) map[string]*fnv1.Resource {
	if m == nil {
		return map[string]*fnv1.Resource{}
	}
	return m
}

// runningAsApplied is a Ready cluster whose natives run as the function applied them (the
// examples show only part of them), with the status their providers report: an Object's
// remote object is its manifest with the observed object's status.
func runningAsApplied(t *testing.T, req *fnv1.RunFunctionRequest, ready *fnv1.RunFunctionResponse) *fnv1.RunFunctionRequest {
	t.Helper()
	out := proto.Clone(req).(*fnv1.RunFunctionRequest)
	for name, observed := range out.GetObserved().GetResources() {
		desired, ok := ready.GetDesired().GetResources()[name]
		if !ok || !strings.Contains(name, "-") || observesOnly(desired) {
			continue
		}
		o := observed.GetResource().AsMap()
		applied := lastApplied(t, desired, name)
		for k, v := range o["metadata"].(map[string]any)["annotations"].(map[string]any) {
			applied["metadata"].(map[string]any)["annotations"].(map[string]any)[k] = v
		}
		if s, ok := o["status"].(map[string]any); ok {
			s = deepCopy(s)
			atProvider, _ := s["atProvider"].(map[string]any)
			if remote, ok := atProvider["manifest"].(map[string]any); ok {
				manifest := deepCopy(applied["spec"].(map[string]any)["forProvider"].(map[string]any)["manifest"].(map[string]any))
				manifest["status"] = remote["status"]
				atProvider["manifest"] = manifest
			}
			applied["status"] = s
		}
		observed.Resource = mustStruct(t, applied)
	}
	return out
}

// TestLookoutRefusalIsFatal: a Shoot found where the cluster's would be but labelled for
// another cluster is refused with a Fatal result, the desired state exactly as it came in:
// Crossplane then keeps what the lookout composed and changes nothing.
func TestLookoutRefusalIsFatal(t *testing.T) {
	ready := readyClusters(t)[0] // gardener/legacy
	req := withPreviousStep(proto.Clone(ready.req).(*fnv1.RunFunctionRequest))
	req.Observed.Resources = nil
	req.Observed.Composite.Resource.Fields["status"] = structpb.NewStructValue(&structpb.Struct{})
	looking := run(t, req)
	if r := fatalResult(looking); r != nil {
		t.Fatalf("looking is refused: %s", r.GetMessage())
	}
	desired := looking.GetDesired().GetResources()["gardener-shoot"]
	if !observesOnly(desired) {
		t.Fatalf("the first call composes the Shoot's Object to write: %v", desired)
	}
	found := lastApplied(t, desired, "gardener-shoot")
	shoot := deepCopy(ready.req.GetObserved().GetResources()["gardener-shoot"].GetResource().AsMap()["status"].(map[string]any)["atProvider"].(map[string]any)["manifest"].(map[string]any))
	shoot["metadata"].(map[string]any)["labels"] = map[string]any{model.LabelIdentity: "0123"}
	found["status"] = map[string]any{"atProvider": map[string]any{"manifest": shoot}}
	req.Observed.Resources = map[string]*fnv1.Resource{"gardener-shoot": {Resource: mustStruct(t, found)}}
	rsp := run(t, req)
	r := fatalResult(rsp)
	if r == nil || r.GetReason() != kaasv1alpha1.ReasonReplacementRefused || !strings.Contains(r.GetMessage(), "belongs to another cluster (label kaas.scs.community/identity=0123") {
		t.Fatalf("a Shoot of another cluster: want a Fatal ReplacementRefused naming its label, got %v", r)
	}
	if diff := gocmp.Diff(req.GetDesired(), rsp.GetDesired(), protocmp.Transform()); diff != "" {
		t.Errorf("the refusal changed the desired state (-request, +response):\n%s", diff)
	}
}
