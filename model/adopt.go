package model

// Observe before managing (docs/recovery.md). A cluster with nothing of its backend composed
// yet may still exist there: its control plane was lost and its manifest applied again from
// Git, or a team applies what kubectl scs import printed. Composing its natives at once would
// write what today's environment and defaults render over what runs: a provider-kubernetes
// Object applies its manifest on its first reconcile, Crossplane applies a local object at
// once. So the cluster first looks, without writing: remote natives through observe-only
// Objects, managed resources whose external name it remembers observe-only, local natives
// as required resources by name. What it finds must be its own. Without memory it reads the
// memory back (Backend.Import) and is managed from the next call on, rendered from it.

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model/providerkubernetes"
)

// ExternalNameAnnotation is where Crossplane keeps the name a provider knows a managed
// resource by.
const ExternalNameAnnotation = "crossplane.io/external-name"

// LookupRequirementPrefix names the requirements that look for local natives by name.
const LookupRequirementPrefix = "lookup-"

// notExistMessage is what crossplane-runtime's managed reconciler says of an observe-only
// resource whose external resource is not there (errExternalResourceNotExist, in a
// ReconcileError Synced condition): the only word a provider gives of an absence.
const notExistMessage = "external resource does not exist"

// probing says whether the cluster's natives are to be looked for before they are managed:
// nothing of its backend is composed but what only observes.
func probing(backend kaasv1alpha1.BackendType, observed map[string]ObservedResource) bool {
	for _, name := range backendResources(backend, observed) {
		if !onlyObserves(observed[name].Object) {
			return false
		}
	}
	return true
}

// onlyObserves says whether a composed resource writes nothing: an Object or managed
// resource whose only management policy is Observe, or a collection.
func onlyObserves(u *unstructured.Unstructured) bool {
	if u.GetKind() == collectionKind {
		return true
	}
	policies, _, _ := unstructured.NestedSlice(u.Object, "spec", "managementPolicies")
	return len(policies) == 1 && policies[0] == "Observe"
}

// isManagedResource says whether a composed resource is a Crossplane managed resource of a
// provider other than provider-kubernetes: one that names its ProviderConfig.
func isManagedResource(u *unstructured.Unstructured) bool {
	_, found, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "providerConfigRef")
	return found && !providerkubernetes.IsObject(u) && u.GetKind() != collectionKind
}

// lookup is how one native of a rendering is looked for.
type lookup struct {
	resource string
	// requirement names the required resource that reads the local object of that name:
	// the native itself where it is local, else the Object or managed resource that would
	// be composed under that name, which must not be someone else's (foreign).
	requirement string
	// composed says the lookout composes the resource observe-only: an Object, or a managed
	// resource with an external name.
	composed bool
	// managed says the local object is a managed resource, which is the native itself: a
	// Magnum ClusterV1 made outside this API is found by its name as well as by its UUID.
	managed bool
	// native is the rendered native object, as messages name it.
	native *unstructured.Unstructured
}

// lookout is what looking for a cluster's natives composes, requires and found.
type lookout struct {
	composed     []Resource
	lookups      []lookup
	requirements map[string]Selector
	found        []*unstructured.Unstructured
	// foreign are local objects of the names the lookout would compose that this cluster
	// did not compose: Crossplane's server-side apply would take them over, so they must be
	// this cluster's (checkAdoptable) before anything is composed.
	foreign []*unstructured.Unstructured
	pending []string
	// readBack is the memory read back from what was found, for a cluster without one.
	readBack *memory
}

// lookFor plans the lookout of a backend's Lookout: Objects and managed resources that have
// an external name observe-only, local natives by name. A managed resource without an
// external name is not composed: its provider could not find it.
//
// named says the team named the cluster (AnnotationNativeName): then every Object and
// managed resource is also read by its own name first, so that what was made under a name
// of the team's choosing is never taken over unseen (Crossplane's server-side apply would
// take over an object nobody controls), and a managed resource found so is the native
// itself: a Magnum ClusterV1 made outside this API is found by its name.
func lookFor(resources []Resource, named bool) *lookout {
	l := &lookout{requirements: map[string]Selector{}}
	for _, res := range resources {
		u := res.Object
		lu := lookup{resource: res.Name, native: u}
		switch {
		case providerkubernetes.IsObject(u):
			manifest, _, _ := unstructured.NestedMap(u.Object, "spec", "forProvider", "manifest")
			lu.composed, lu.native = true, &unstructured.Unstructured{Object: manifest}
		case isManagedResource(u):
			lu.managed = true
			lu.composed = u.GetAnnotations()[ExternalNameAnnotation] != ""
		}
		if (!lu.composed && !lu.managed) || named {
			lu.requirement = LookupRequirementPrefix + res.Name
			l.requirements[lu.requirement] = Selector{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: u.GetNamespace(), MatchName: u.GetName()}
		}
		if lu.composed {
			l.composed = append(l.composed, Resource{Name: res.Name, Object: observeOnly(u)})
		}
		l.lookups = append(l.lookups, lu)
	}
	return l
}

// observeOnly is a copy of an Object or managed resource that only observes what it names.
func observeOnly(u *unstructured.Unstructured) *unstructured.Unstructured {
	out := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(u.Object)}
	spec := out.Object["spec"].(map[string]any)
	spec["managementPolicies"] = []any{"Observe"}
	delete(spec, "deletionPolicy")
	return out
}

// observe sorts each lookup into found (the native as it exists, unwrapped from its
// Object), not there, or pending while its provider has not said, and collects the foreign
// local objects of its names.
func (l *lookout) observe(observed map[string]ObservedResource, required map[string][]*unstructured.Unstructured) error {
	for _, lu := range l.lookups {
		if f := lu.foreign(observed, required); f != nil {
			l.foreign = append(l.foreign, f)
			if lu.managed {
				// The managed resource is the native: found as it is.
				l.found = append(l.found, f)
				continue
			}
		}
		native, known, err := lu.state(observed, required)
		switch {
		case err != nil:
			return Unreadable(err)
		case native != nil:
			l.found = append(l.found, native)
		case !known:
			l.pending = append(l.pending, fmt.Sprintf("%s %s (composed resource %s)", lu.native.GetKind(), objectName(lu.native), lu.resource))
		}
	}
	return nil
}

// foreign is the local object of the lookup's name that this cluster has not composed: an
// Object or managed resource made outside it, nil if there is none.
func (lu lookup) foreign(observed map[string]ObservedResource, required map[string][]*unstructured.Unstructured) *unstructured.Unstructured {
	found := required[lu.requirement]
	if lu.requirement == "" || len(found) == 0 || (!lu.composed && !lu.managed) || observed[lu.resource].Object != nil {
		return nil
	}
	return found[0]
}

// state is the native as it exists (nil: not there or not known), and whether it is known.
func (lu lookup) state(observed map[string]ObservedResource, required map[string][]*unstructured.Unstructured) (*unstructured.Unstructured, bool, error) {
	if !lu.composed {
		if found := required[lu.requirement]; len(found) > 0 && !lu.managed {
			return found[0], true, nil
		}
		return nil, true, nil
	}
	o := observed[lu.resource].Object
	if o == nil {
		return nil, false, nil
	}
	if providerkubernetes.IsObject(o) {
		remote, err := providerkubernetes.Observed(o)
		if remote != nil || err != nil {
			return remote, true, err
		}
	} else if ConditionOf(o, ManagedConditionSynced).Status == string(ConditionTrue) {
		return o, true, nil
	}
	return nil, reportsNotThere(o), nil
}

// reportsNotThere says whether an observe-only resource reports that what it observes does
// not exist.
func reportsNotThere(u *unstructured.Unstructured) bool {
	c := ConditionOf(u, ManagedConditionSynced)
	return c.Status == string(ConditionFalse) && strings.Contains(c.Message, notExistMessage)
}

func objectName(u *unstructured.Unstructured) string {
	if ns := u.GetNamespace(); ns != "" {
		return ns + "/" + u.GetName()
	}
	return u.GetName()
}

// checkAdoptable refuses to adopt a native that is not this cluster's: one labelled with
// another cluster's identity, or one without this cluster's identity label, which was made
// outside this API and is this cluster's only once whoever may write it labels it so (the
// handover kubectl scs import prints). A local object another controller owns is refused
// naming its owner; one a composite of this API controls is this cluster's by its label (a
// composite of the other flavour it migrates from). Messages name no other cluster: only
// its label.
func checkAdoptable(found []*unstructured.Unstructured, id Identity) error {
	for _, u := range found {
		what := fmt.Sprintf("%s %s", u.GetKind(), objectName(u))
		owner := u.GetLabels()[LabelIdentity]
		switch {
		case owner != "" && owner != id.Hash():
			return errorf(kaasv1alpha1.ReasonTakeoverRefused, "%s exists and belongs to another cluster (label %s=%s, this cluster is %s): this cluster must not take it over; nothing was changed",
				what, LabelIdentity, owner, id.Hash())
		case owner == "":
			return errorf(kaasv1alpha1.ReasonTakeoverRefused, "%s exists but was not made for this cluster (it has no label %s%s): to adopt it, whoever may write it labels it %s=%s (kubectl scs import prints the command); until then nothing is changed",
				what, LabelIdentity, managedBy(u), LabelIdentity, id.Hash())
		}
		if ref := metav1.GetControllerOfNoCopy(u); ref != nil && !strings.HasPrefix(ref.APIVersion, kaasv1alpha1.Group+"/") {
			return errorf(kaasv1alpha1.ReasonTakeoverRefused, "%s exists and is controlled by %s %s: this cluster must not take it over; nothing was changed", what, ref.Kind, ref.Name)
		}
	}
	return nil
}

// managedBy names who last wrote an object, from its managed fields, for a refusal.
func managedBy(u *unstructured.Unstructured) string {
	var managers []string
	for _, f := range u.GetManagedFields() {
		if f.Manager != "" && !slices.Contains(managers, f.Manager) {
			managers = append(managers, f.Manager)
		}
	}
	if len(managers) == 0 {
		return ""
	}
	slices.Sort(managers)
	return "; it is managed by " + strings.Join(managers, ", ")
}

// memory is what a cluster recalls: the settings it keeps and the defaults it took, read
// back with what runs.
type memory struct {
	record    map[string]string
	defaulted *kaasv1alpha1.DefaultedValues
	running   kaasv1alpha1.ClusterSpec
}

// readBack rebuilds the memory of a cluster that exists from its natives: the backend's
// settings as they carry them over those of the environment (where they were found), and
// as defaults what they carry of the fields the spec leaves out.
func readBack(backend Backend, req *Request, given *kaasv1alpha1.ClusterSpec, record map[string]string, found []*unstructured.Unstructured) (memory, error) {
	imported, err := backend.Import(found, req.Environment)
	if err != nil {
		return memory{}, errorf(kaasv1alpha1.ReasonImportRefused, "%s exists, but this API cannot manage it: %v; nothing was changed", describeFound(found), err)
	}
	if imported.Name != req.NativeName {
		return memory{}, errorf(kaasv1alpha1.ReasonImportRefused, "%s exists, but reads back as the cluster %q, not %q; nothing was changed", describeFound(found), imported.Name, req.NativeName)
	}
	m := memory{record: maps.Clone(record)}
	for _, s := range SettingsOf(backend) {
		path := s.at(minorOf(imported.Spec.Kubernetes.Version))
		if v, ok := imported.Settings[path]; ok && !s.Follows {
			m.record[path] = v
		}
	}
	m.defaulted = defaultedFrom(given, &imported.Spec)
	m.running = imported.Spec
	return m, nil
}

// defaultedFrom is the record of defaults a cluster whose spec is given took, read from a
// spec in which everything is explicit: what a pool that does not exist yet takes is left to
// the environment.
func defaultedFrom(given, imported *kaasv1alpha1.ClusterSpec) *kaasv1alpha1.DefaultedValues {
	out := given.DeepCopy()
	out.Network = imported.Network
	if out.Network == nil {
		out.Network = &kaasv1alpha1.NetworkSpec{}
	}
	exists := map[string]bool{}
	for i, p := range given.NodePools {
		if j := slices.IndexFunc(imported.NodePools, func(q kaasv1alpha1.NodePool) bool { return q.Name == p.Name }); j >= 0 {
			out.NodePools[i].Zones, out.NodePools[i].RootDiskGiB = imported.NodePools[j].Zones, imported.NodePools[j].RootDiskGiB
			exists[p.Name] = true
		}
	}
	rec := Defaulted(given, out)
	rec.NodePools = slices.DeleteFunc(rec.NodePools, func(p kaasv1alpha1.DefaultedNodePool) bool { return !exists[p.Name] })
	maintenance := kaasv1alpha1.MaintenanceSpec{}
	if imported.Maintenance != nil {
		maintenance = *imported.Maintenance
	}
	rec.Maintenance = maintenanceRecord(given.Maintenance, maintenance)
	access := &kaasv1alpha1.DefaultedAccess{}
	if a := imported.Access; a != nil {
		access.AllowedSourceRanges = slices.Clone(a.AllowedSourceRanges)
		if a.OIDC != nil {
			access.OIDC = a.OIDC.OIDCClaims.DeepCopy()
		}
	}
	rec.Access = accessRecord(given.Access, access)
	return rec
}

// lookupNatives are the natives the lookups look for.
func lookupNatives(lookups []lookup) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, 0, len(lookups))
	for _, lu := range lookups {
		out = append(out, lu.native)
	}
	return out
}

func describeFound(found []*unstructured.Unstructured) string {
	names := make([]string, 0, len(found))
	for _, u := range found {
		names = append(names, u.GetKind()+" "+objectName(u))
	}
	return strings.Join(names, " and ")
}

// adoptingObservation is what is said while the natives are looked for or read back: the
// cluster is not ready, and the reason says why nothing is written yet.
func adoptingObservation(obs *Observation, previous *kaasv1alpha1.ClusterStatus, composed []Resource, message string) *Observation {
	out := *obs
	out.Status = copyStatus(previous)
	if out.Status.Phase == "" {
		out.Status.Phase = kaasv1alpha1.PhaseProvisioning
	}
	out.Ready = false
	out.ResourceReady = map[string]bool{}
	for _, res := range composed {
		out.ResourceReady[res.Name] = false
	}
	out.Conditions = []Condition{{Type: kaasv1alpha1.ConditionBackendReady, Status: ConditionFalse, Reason: kaasv1alpha1.ReasonAdopting, Message: Truncate(message)}}
	return &out
}

// lookBeforeManaging looks for the cluster's natives while nothing of its backend is
// managed: nil once something is. A cluster without memory whose natives are found reads its
// memory back from them (lookout.readBack). fetched is false while a lookup's required
// resource is still to be fetched (added to reqs).
func lookBeforeManaging(in Input, req *Request, backend Backend, kept recalled, reqs map[string]Selector) (_ *lookout, fetched bool, _ error) {
	if !probing(backend.Type(), in.Observed) {
		return nil, true, nil
	}
	lookout, _ := keepExternalNames(&Rendering{Resources: backend.Lookout(req)}, in.Observed, pinnedBackend(in.Cluster).ExternalNames)
	named := in.Cluster.GetAnnotations()[kaasv1alpha1.AnnotationNativeName] == req.NativeName && !kept.created
	l := lookFor(lookout.Resources, named)
	if !require(reqs, l.requirements, in.Required) {
		return nil, false, nil
	}
	if err := l.observe(in.Observed, in.Required); err != nil {
		return nil, true, err
	}
	if err := checkAdoptable(append(l.foreign, l.found...), req.Identity); err != nil {
		return nil, true, err
	}
	if named && len(l.pending) == 0 && len(l.found) == 0 {
		// The annotation adopts what runs; a name of the team's choosing must not create
		// natives (and compose objects) beside what the platform keeps under that name.
		return nil, true, errorf(kaasv1alpha1.ReasonImportRefused, "annotation %s names the cluster %q, but nothing of that name was found (looked for %s): the annotation adopts a cluster that runs; remove it to create a new cluster",
			kaasv1alpha1.AnnotationNativeName, req.NativeName, describeFound(lookupNatives(l.lookups)))
	}
	if len(l.pending) == 0 && len(l.found) > 0 && !kept.created {
		m, err := readBack(backend, req, &in.Cluster.Spec, kept.record, l.found)
		if err != nil {
			return nil, true, err
		}
		l.readBack = &m
	}
	return l, true, nil
}

// waiting says whether the cluster waits for its lookout: a lookup is not reported yet, or
// its memory was just read back and it is managed from the next call on.
func (l *lookout) waiting() bool {
	return l != nil && (len(l.pending) > 0 || l.readBack != nil)
}

// message says why nothing is written yet, and the events of a read-back.
func (l *lookout) message() (string, []Event) {
	if len(l.pending) > 0 {
		return fmt.Sprintf("observing before managing: whether %s exists is not reported yet; nothing is written to the backend until it is", strings.Join(l.pending, " and ")), nil
	}
	msg := fmt.Sprintf("%s exists: its settings and defaults were read back into status.backend.pinned and status.defaulted, and it is managed from the next reconcile on, rendered from them", describeFound(l.found))
	return msg, []Event{{Type: EventNormal, Reason: kaasv1alpha1.ReasonAdopting, Message: msg}}
}

// withMemory is the composite as it recalls what was read back: its memory in its status,
// and, for the rules that let what runs stay (a minor or machine type its environment no
// longer offers), what runs as its status says once observed.
func (m *memory) withMemory(xr *kaasv1alpha1.XSCSCluster, env *Environment, nativeName string) *kaasv1alpha1.XSCSCluster {
	out := xr.DeepCopy()
	out.Status.Backend = &kaasv1alpha1.BackendStatus{Type: env.Backend, Environment: env.Name, Name: nativeName, Created: true, Pinned: m.record}
	if xr.Status.Backend != nil {
		out.Status.Backend.ExternalNames = xr.Status.Backend.ExternalNames
	}
	out.Status.Defaulted = m.defaulted
	out.Status.Kubernetes = &kaasv1alpha1.KubernetesStatus{Version: m.running.Kubernetes.Version}
	out.Status.NodePools = nil
	for _, p := range m.running.NodePools {
		out.Status.NodePools = append(out.Status.NodePools, kaasv1alpha1.NodePoolStatus{Name: p.Name, MachineType: p.MachineType, Zones: p.Zones})
	}
	return out
}

// lookingOut is the output while the cluster waits for its lookout: only what looks is
// composed, beside the kubeconfig Secret of what was delivered, and the conditions say
// why nothing is written.
// observed is the backend's observation of what was found, nil before anything was.
func (r *Registry) lookingOut(out *Output, in Input, req *Request, env *Environment, kept recalled, l *lookout, observed *Observation) *Output {
	message, events := l.message()
	rendering := &Rendering{Resources: slices.Clone(l.composed)}
	// What only observes and is composed already (a reader of the releases or of a
	// kubeconfig Secret) stays as it was applied: nothing observed is dropped.
	for _, name := range backendResources(req.Environment.Backend, in.Observed) {
		if o := in.Observed[name].Object; onlyObserves(o) && !slices.ContainsFunc(rendering.Resources, func(r Resource) bool { return r.Name == name }) {
			rendering.Resources = append(rendering.Resources, Resource{Name: name, Object: LastApplied(o), Disposable: true})
		}
	}
	previous := &in.Cluster.Status
	if observed != nil {
		// What the backend observes, else what was read back (a local native is found by
		// a required resource, which the backend does not observe): the rules that let
		// what runs stay read it on the next call.
		s := observed.Status
		s.Kubernetes = cmp.Or(s.Kubernetes, in.Cluster.Status.Kubernetes)
		if len(s.NodePools) == 0 {
			s.NodePools = in.Cluster.Status.NodePools
		}
		previous = &s
	}
	obs := adoptingObservation(&Observation{}, previous, l.composed, message)
	rendering, obs, more := r.keep(in, req, rendering, obs)
	events = append(events, more...)
	// What the cluster delivered stays as it was until it is found: its add-ons and its
	// registration (kept as last applied while the cluster is not Ready).
	rendering, obs = withReadyResources(rendering, obs, installedAddonsAsApplied(in.Observed))
	rendering, obs, more = withRegistration(in, req, env, rendering, obs)
	observe(out, in, req, env, kept, rendering, obs, append(events, more...))
	out.Status.Backend.ExternalNames = pinnedBackend(in.Cluster).ExternalNames
	for _, lu := range l.lookups {
		if _, reported := in.Observed[lu.resource]; !reported && lu.composed {
			out.LookingFor = append(out.LookingFor, lu.resource)
		}
	}
	return out
}

// ReportedNotThere is an observe-only composed resource as its provider reports that what
// it observes does not exist: how a caller without providers (an offline render, a plan)
// answers a lookout for a cluster it renders as new.
func ReportedNotThere(composed *unstructured.Unstructured) *unstructured.Unstructured {
	out := composed.DeepCopy()
	out.Object["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Synced", "status": "False", "reason": "ReconcileError",
		"message": "observe failed: " + notExistMessage}}}
	return out
}
