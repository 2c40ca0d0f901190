package model

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// Preview says what applying an edit of a cluster would do, from the same translation that
// renders: the changed portable fields and settings with their declared effects, and the
// changed leaves of every native object.
type Preview struct {
	Backend kaasv1alpha1.BackendType `json:"backend"`
	// Refused is set when the function would refuse the edit; then nothing else is.
	Refused *Refusal `json:"refused,omitempty"`
	// Edits are the changed portable fields, in the order of the spec.
	Edits []Edit `json:"edits,omitempty"`
	// Settings are the environment's values the cluster adopts.
	Settings []SettingEdit `json:"settings,omitempty"`
	// Addons are the add-ons the edit installs on the cluster or removes from it.
	Addons []AddonChange `json:"addons,omitempty"`
	// Objects are the native objects that change, in the order of the rendering.
	Objects []ObjectDiff `json:"objects,omitempty"`
	// Maintenance is how the edit moves the update the cluster plans on its own (an edit
	// of its window or its purpose, say); nil when it does not.
	Maintenance *MaintenanceMove `json:"maintenance,omitempty"`
}

// MaintenanceMove is the update a cluster plans on its own, before and after an edit.
type MaintenanceMove struct {
	// Before and After say the update and when it starts, or that none is planned.
	Before string `json:"before"`
	After  string `json:"after"`
}

// Summary is the move in one line.
func (m MaintenanceMove) Summary() string {
	return "its own update: " + m.Before + "; with the edit: " + m.After
}

// maintenanceMove compares what two renders of a cluster plan on their own.
func maintenanceMove(before, after *kaasv1alpha1.MaintenanceStatus) *MaintenanceMove {
	b, a := plannedSummary(before), plannedSummary(after)
	if a == b {
		return nil
	}
	return &MaintenanceMove{Before: b, After: a}
}

func plannedSummary(m *kaasv1alpha1.MaintenanceStatus) string {
	switch {
	case m == nil || (m.Planned == nil && m.InProgress == nil):
		return "none planned"
	case m.InProgress != nil && m.Planned == nil:
		return "rolling " + m.InProgress.Message
	}
	return m.Planned.Message
}

// AddonChange is an add-on an edit installs on the cluster or removes from it.
type AddonChange struct {
	Name string `json:"name"`
	// Action is AddonInstall or AddonRemove.
	Action string `json:"action"`
}

// The actions of an AddonChange.
const (
	AddonInstall = "install"
	AddonRemove  = "remove"
)

// Summary is the change in one line.
func (c AddonChange) Summary() string {
	if c.Action == AddonRemove {
		return "add-on " + c.Name + ": removed from the cluster: Flux prunes what it applied"
	}
	return "add-on " + c.Name + ": installed on the cluster by Flux"
}

// addonChanges are the add-ons in one status and not in the other: installed by the edit,
// or removed by it.
func addonChanges(before, after []kaasv1alpha1.AddonStatus) []AddonChange {
	has := func(list []kaasv1alpha1.AddonStatus, name string) bool {
		return slices.ContainsFunc(list, func(a kaasv1alpha1.AddonStatus) bool { return a.Name == name })
	}
	var out []AddonChange
	for _, a := range after {
		if !has(before, a.Name) {
			out = append(out, AddonChange{Name: a.Name, Action: AddonInstall})
		}
	}
	for _, a := range before {
		if !has(after, a.Name) {
			out = append(out, AddonChange{Name: a.Name, Action: AddonRemove})
		}
	}
	return out
}

// SettingEdit is an environment setting whose value changes for a cluster.
type SettingEdit struct {
	// Path is the setting's path in the EnvironmentConfig.
	Path string `json:"path"`
	// From and To are the values before and after; empty when unset.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Kept says the cluster keeps its value until its owner adopts the environment's.
	Kept bool `json:"kept,omitempty"`
	// Effect and Note are the backend's declaration for the setting.
	Effect Effect `json:"effect"`
	Note   string `json:"note,omitempty"`
	// Creating: nothing of the cluster exists yet, so it is created with the value,
	// whatever the change would do to a running cluster.
	Creating bool `json:"creating,omitempty"`
}

// Summary is the edit of the setting in one line.
func (e SettingEdit) Summary() string {
	change := e.Path + " " + shownSetting(e.From) + " -> " + shownSetting(e.To)
	switch {
	case e.Creating:
		return "taken at creation: " + change + " (nothing of the cluster exists yet)"
	case e.Kept && e.Effect == EffectRefused:
		return "kept for good: " + change + " (" + e.Note + ")"
	case e.Kept:
		return "kept until adopted, then " + string(e.Effect) + ": " + change
	}
	return string(e.Effect) + ": " + change + " (" + e.Note + ")"
}

// EnvironmentEdits lists the settings that differ between two environments for a cluster
// as current rendered it.
func EnvironmentEdits(current *Output, before, after *Environment) ([]SettingEdit, error) {
	var out []SettingEdit
	for _, s := range SettingsOf(current.Backend) {
		path := s.at(minorOf(current.Spec.Kubernetes.Version))
		from, err := getSetting(before, path)
		if err != nil {
			return nil, err
		}
		to, err := getSetting(after, path)
		if err != nil {
			return nil, err
		}
		if from != to {
			out = append(out, SettingEdit{Path: path, From: from, To: to, Kept: !s.Follows, Effect: s.Change.Effect, Note: s.Change.Note})
		}
	}
	if !current.Created {
		out = creating(out)
	}
	return out, nil
}

// adoptedSettings are the pinned values that differ between two renders of a cluster.
func adoptedSettings(b Backend, before, after map[string]string, minor string) []SettingEdit {
	var out []SettingEdit
	for _, s := range SettingsOf(b) {
		path := s.at(minor)
		if from, to := before[path], after[path]; from != to {
			out = append(out, SettingEdit{Path: path, From: from, To: to, Effect: s.Change.Effect, Note: s.Change.Note})
		}
	}
	return out
}

// Refusal is what the function would say when refusing an edit.
type Refusal struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Edit is one changed portable field.
type Edit struct {
	// Field is the row of the capability table the path belongs to.
	Field Field `json:"field"`
	// Path is the field's path in the spec; node pools are named, not numbered.
	Path string `json:"path"`
	Pool string `json:"pool,omitempty"`
	// From and To are the values before and after, as JSON; empty when unset.
	From   string `json:"from,omitempty"`
	To     string `json:"to,omitempty"`
	Effect Effect `json:"effect"`
	Note   string `json:"note,omitempty"`
	// Nodes is how many nodes of the pool run now, where the observed state says it.
	Nodes *int32 `json:"nodes,omitempty"`
	// NoNativeChange is true when no native object changes: only the SCSCluster does.
	NoNativeChange bool `json:"noNativeChange,omitempty"`
}

// Summary is the edit in one line that a person reads first.
func (e Edit) Summary() string {
	change := e.Path + " " + shown(e.From) + " -> " + shown(e.To)
	switch {
	case e.Field == FieldPoolName && e.From == "":
		change = "pool " + e.Pool + " added"
	case e.Field == FieldPoolName && e.To == "":
		change = "pool " + e.Pool + " removed"
	}
	nodes := "the nodes"
	if e.Nodes != nil {
		nodes = strconv.Itoa(int(*e.Nodes)) + " nodes"
	}
	switch {
	case e.NoNativeChange:
		return "no change in the backend: " + change
	case e.Field == FieldPoolName && e.To == "":
		return "deletes " + nodes + " of pool " + e.Pool + ": pool removed"
	case e.Field == FieldPoolName && e.From == "":
		return "in place: " + change
	case e.Effect == EffectRollsNodes:
		return "rolls " + nodes + " of pool " + e.Pool + ": " + change
	case e.Effect == EffectRollsControlPlane:
		return "control plane rolls: " + change + " (" + e.Note + ")"
	case e.Effect == EffectNotHonoured:
		return "not honoured: " + change + " (" + e.Note + ")"
	}
	return string(e.Effect) + ": " + change
}

// shown is a JSON value as a person reads it: a string without its quotes.
func shown(v string) string {
	if v == "" {
		return "(unset)"
	}
	if s, err := strconv.Unquote(v); err == nil && strings.HasPrefix(v, `"`) {
		return s
	}
	return v
}

// ObjectDiff is how one native object changes.
type ObjectDiff struct {
	// Resource is the composed resource's name.
	Resource string `json:"resource"`
	// Kind and Name are the native object's, inside a provider-kubernetes Object.
	Kind   string      `json:"kind"`
	Name   string      `json:"name"`
	Action string      `json:"action"`
	Fields []FieldDiff `json:"fields,omitempty"`
	// Before and After are the native objects as rendered; nil when absent.
	Before *unstructured.Unstructured `json:"-"`
	After  *unstructured.Unstructured `json:"-"`
}

// FieldDiff is one changed leaf of a native object.
type FieldDiff struct {
	Path string `json:"path"`
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

// Actions of an ObjectDiff.
const (
	ActionCreate = "create"
	ActionUpdate = "update"
	ActionDelete = "delete"
)

// Changes reports whether applying the edit would change anything; a refusal does not.
func (p *Preview) Changes() bool {
	return p.Refused == nil && (len(p.Objects) > 0 || len(p.Edits) > 0 || len(p.Settings) > 0 || len(p.Addons) > 0 || p.Maintenance != nil)
}

// PreviewEdit compares the renders of a cluster now and edited (or the refusal editErr),
// both from Reconcile with the same observed state: what the function would do.
func PreviewEdit(current, edited *Output, editErr error) *Preview {
	p := &Preview{Backend: current.Backend.Type()}
	if editErr != nil {
		p.Refused = &Refusal{Reason: ReasonOf(editErr), Message: editErr.Error()}
		return p
	}
	p.Objects = diffRenderings(current.Rendering.Resources, edited.Rendering.Resources)
	p.Addons = addonChanges(current.Status.Addons, edited.Status.Addons)
	p.Maintenance = maintenanceMove(current.Status.Maintenance, edited.Status.Maintenance)
	nodes := map[string]*int32{}
	for _, np := range current.Status.NodePools {
		nodes[np.Name] = np.Replicas
	}
	p.Edits = Edits(current.Backend.Capabilities(), &current.Spec, &edited.Spec)
	for i := range p.Edits {
		p.Edits[i].Nodes = nodes[p.Edits[i].Pool]
		p.Edits[i].NoNativeChange = len(p.Objects) == 0
	}
	p.Settings = adoptedSettings(current.Backend, current.Status.Backend.Pinned, edited.Status.Backend.Pinned, minorOf(edited.Spec.Kubernetes.Version))
	if !current.Created {
		p.Settings = creating(p.Settings)
	}
	return p
}

// creating marks the settings of a cluster that does not exist yet: it takes each value
// when it is created, and keeps none.
func creating(settings []SettingEdit) []SettingEdit {
	for i := range settings {
		settings[i].Creating, settings[i].Kept = true, false
	}
	return settings
}

// Edits lists the portable fields that differ between two specs, each with its declared
// effect. Specs as written (a Terraform plan) read a defaulted field as unset.
func Edits(caps Capabilities, current, edited *kaasv1alpha1.ClusterSpec) []Edit {
	var out []Edit
	for _, d := range diffLeaves(flatten(specMap(current)), flatten(specMap(edited))) {
		f, pool, known := fieldOfSpecPath(d.Path, current.Kubernetes.Version, edited.Kubernetes.Version)
		e := Edit{Field: f, Path: "spec." + d.Path, Pool: pool, From: d.From, To: d.To, Effect: EffectUnknown,
			Note: "no backend declares what a change of this field does"}
		if c, _ := caps.Capability(f); known {
			e.Effect, e.Note = c.Change.Effect, c.Change.Note
		}
		out = append(out, e)
	}
	return out
}

// specMap is a spec as plain JSON values, the form native objects are compared in.
func specMap(spec *kaasv1alpha1.ClusterSpec) map[string]any {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(spec)
	if err != nil {
		// A bug of the API types.
		panic(fmt.Sprintf("cannot convert a cluster spec: %v", err))
	}
	return m
}

// fieldOfSpecPath maps a changed leaf of the spec to its capability row and pool; known is
// false for a path no row covers.
func fieldOfSpecPath(path, fromVersion, toVersion string) (f Field, pool string, known bool) {
	if rest, ok := strings.CutPrefix(path, "nodePools["); ok {
		pool, rest, _ = strings.Cut(rest, "]")
		head, _, _ := strings.Cut(strings.TrimPrefix(rest, "."), ".")
		head, _, _ = strings.Cut(head, "[")
		f, known = poolFields[head]
		return f, pool, known
	}
	if path == "kubernetes.version" {
		from, errFrom := ParseVersion(fromVersion)
		to, errTo := ParseVersion(toVersion)
		if errFrom == nil && errTo == nil && from.SameMinor(to) {
			return FieldVersionPatch, "", true
		}
		return FieldVersionMinor, "", true
	}
	for _, sf := range specFields {
		if path == sf.path || strings.HasPrefix(path, sf.path+".") || strings.HasPrefix(path, sf.path+"[") {
			return sf.field, "", true
		}
	}
	return "", "", false
}

// poolFields are the rows of a pool's fields by name; "" is the pool, added or removed.
var poolFields = map[string]Field{
	"": FieldPoolName, "machineType": FieldPoolMachineType, "count": FieldPoolCount, "autoscaling": FieldPoolAutoscaling,
	"zones": FieldPoolZones, "labels": FieldPoolLabels, "taints": FieldPoolTaints, "rootDiskGiB": FieldPoolRootDisk,
	"maxSurge": FieldPoolRollout, "maxUnavailable": FieldPoolRollout,
}

// specFields are the rows of the spec's other fields, by the path of the field.
var specFields = []struct {
	path  string
	field Field
}{
	{"environment", FieldEnvironment}, {"purpose", FieldPurpose}, {"controlPlane.highAvailability", FieldHighAvailability},
	{"network.nodeCIDR", FieldNodeCIDR}, {"network.podCIDR", FieldPodServiceCIDR}, {"network.serviceCIDR", FieldPodServiceCIDR},
	{"network.cni", FieldCNI}, {"maintenance.window", FieldMaintenanceWindow},
	{"maintenance.autoUpdate.kubernetesPatch", FieldAutoUpdatePatch}, {"maintenance.autoUpdate.machineImage", FieldAutoUpdateImage},
	{"hibernation", FieldHibernation}, {"deletionProtection", FieldDeletionProtection},
	{"access.oidc", FieldAccessOIDC}, {"access.allowedSourceRanges", FieldAccessSourceRanges}, {"addons", FieldAddons},
}

// diffRenderings compares two renderings by resource name.
func diffRenderings(before, after []Resource) []ObjectDiff {
	old := map[string]*unstructured.Unstructured{}
	for _, r := range before {
		old[r.Name] = r.Object
	}
	var out []ObjectDiff
	seen := map[string]bool{}
	for _, r := range after {
		seen[r.Name] = true
		b, a := native(old[r.Name]), native(r.Object)
		d := ObjectDiff{Resource: r.Name, Kind: a.GetKind(), Name: a.GetName(), Before: b, After: a}
		if b == nil {
			d.Action = ActionCreate
			out = append(out, d)
			continue
		}
		d.Fields = diffLeaves(flatten(b.Object), flatten(a.Object))
		if len(d.Fields) > 0 {
			d.Action = ActionUpdate
			out = append(out, d)
		}
	}
	for _, r := range before {
		if !seen[r.Name] {
			b := native(r.Object)
			out = append(out, ObjectDiff{Resource: r.Name, Kind: b.GetKind(), Name: b.GetName(), Action: ActionDelete, Before: b})
		}
	}
	return out
}

// FieldDiffs lists the leaves that differ between two objects as PreviewEdit compares them,
// so that a test can hold what a backend did against what was previewed.
func FieldDiffs(before, after map[string]any) []FieldDiff {
	return diffLeaves(flatten(before), flatten(after))
}

// native is the object a user knows: the manifest inside a provider-kubernetes Object.
func native(o *unstructured.Unstructured) *unstructured.Unstructured {
	if o == nil {
		return nil
	}
	if m, ok, _ := unstructured.NestedMap(o.Object, "spec", "forProvider", "manifest"); ok {
		return &unstructured.Unstructured{Object: m}
	}
	return o
}

// flatten lists the leaves of a JSON value by path; lists of named objects are keyed by
// name, so that a pool's fields keep their path when another pool is added.
func flatten(v map[string]any) map[string]string {
	out := map[string]string{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if len(x) == 0 {
				return
			}
			for k, e := range x {
				walk(join(path, k), e)
			}
		case []any:
			if named(x) {
				for _, e := range x {
					m := e.(map[string]any)
					name := fmt.Sprint(m["name"])
					inner := maps.Clone(m)
					delete(inner, "name")
					p := path + "[" + name + "]"
					if len(inner) == 0 {
						out[p] = strconv.Quote(name)
					}
					for k, e := range inner {
						walk(join(p, k), e)
					}
					if len(inner) > 0 {
						// The element exists even when all its other leaves are empty.
						out[p] = "{}"
					}
				}
				return
			}
			raw, _ := json.Marshal(x)
			out[path] = string(raw)
		case nil:
		default:
			raw, _ := json.Marshal(x)
			out[path] = string(raw)
		}
	}
	for k, e := range v {
		walk(k, e)
	}
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func named(list []any) bool {
	if len(list) == 0 {
		return false
	}
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return false
		}
		if _, ok := m["name"].(string); !ok {
			return false
		}
	}
	return true
}

// diffLeaves lists the leaves that differ, by path; an element that appears or goes away is
// one difference, not one per leaf.
func diffLeaves(before, after map[string]string) []FieldDiff {
	var out []FieldDiff
	paths := slices.Sorted(maps.Keys(before))
	for p := range after {
		if _, ok := before[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	var gone []string
	for _, p := range paths {
		b, inBefore := before[p]
		a, inAfter := after[p]
		if b == a {
			continue
		}
		if slices.ContainsFunc(gone, func(g string) bool { return strings.HasPrefix(p, g+".") || strings.HasPrefix(p, g+"[") }) {
			continue
		}
		if (inBefore && b == "{}" && !inAfter) || (inAfter && a == "{}" && !inBefore) {
			gone = append(gone, p)
		}
		out = append(out, FieldDiff{Path: p, From: b, To: a})
	}
	return out
}
