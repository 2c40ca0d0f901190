package model

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// Imported is a cluster that exists, described in the portable API: what a backend's Import
// reads back from its native objects.
type Imported struct {
	// Name is the cluster's name in the backend.
	Name string
	// Spec is the cluster as a team would write it, with every value the natives decide
	// explicit: nothing is left to the environment's defaults.
	Spec kaasv1alpha1.ClusterSpec
	// Settings are the values the natives carry of the backend's settings (SettingsOf), by
	// path (with {minor} resolved) and as status.backend.pinned writes them: a string as it
	// is, any other value JSON. A setting the natives do not show is absent.
	Settings map[string]string
	// Unportable are what the natives carry that the spec cannot express, by the native
	// object's field path: rendering leaves them as they are, but the API does not manage
	// them.
	Unportable []Unsupported
	// Follows are what managing the cluster changes at once, by the native object's field
	// path: values of settings every cluster of the environment follows (its credentials),
	// which the natives carry otherwise.
	Follows []Unsupported
}

// WithSettings returns a copy of env with the settings at values, as status.backend.pinned
// records them (a path with {minor} resolved; "" unsets): the environment a cluster with
// those pinned values is rendered in.
func WithSettings(env *Environment, values map[string]string) (*Environment, error) {
	out := *env
	out.Environment = *env.DeepCopy()
	for _, path := range slices.Sorted(maps.Keys(values)) {
		if err := setSetting(&out, path, values[path]); err != nil {
			return nil, err
		}
	}
	return &out, nil
}

// ImportedCluster is a running cluster described as the SCSCluster that adopts it.
type ImportedCluster struct {
	Imported
	// Spec is the spec to apply: Imported.Spec in its environment.
	Spec kaasv1alpha1.ClusterSpec
	// Annotations the SCSCluster needs: the native name, when the cluster runs under
	// another name than the one its identity derives.
	Annotations map[string]string
	// Handover are the natives that do not carry the cluster's labels yet, each with the
	// labels whoever may write it puts there to hand it over (checkAdoptable).
	Handover []Handover
	// Differs says, per setting, where the cluster runs with another value than its
	// environment names now: it keeps its own; new clusters get the environment's.
	Differs []string
}

// Handover is a native object and the labels that hand it over to a cluster of this API.
type Handover struct {
	Native *unstructured.Unstructured
	Labels map[string]string
}

// Import describes the natives of a running cluster of env as the SCSCluster id would be,
// and what must happen before it may adopt them. Applying it adopts the cluster: its
// memory is read back from the natives (observe before managing) and nothing is changed.
func (r *Registry) Import(natives []*unstructured.Unstructured, env *Environment, id Identity) (*ImportedCluster, error) {
	backend, err := r.For(env.Backend)
	if err != nil {
		return nil, err
	}
	imported, err := backend.Import(natives, env)
	if err != nil {
		return nil, errorf(kaasv1alpha1.ReasonImportRefused, "this API cannot manage the cluster: %v", err)
	}
	out := &ImportedCluster{Imported: *imported, Spec: *imported.Spec.DeepCopy()}
	out.Spec.Environment = env.Name
	if imported.Name != NativeName(id, backend.NameLength(env)) {
		out.Annotations = map[string]string{kaasv1alpha1.AnnotationNativeName: imported.Name}
	}
	labels := map[string]string{LabelCluster: imported.Name, LabelIdentity: id.Hash()}
	for _, u := range natives {
		if owner := u.GetLabels()[LabelIdentity]; owner != "" && owner != id.Hash() {
			return nil, errorf(kaasv1alpha1.ReasonTakeoverRefused, "%s %s belongs to another cluster (label %s=%s, %s is %s): it is not imported",
				u.GetKind(), objectName(u), LabelIdentity, owner, id, id.Hash())
		}
		if u.GetLabels()[LabelIdentity] == "" || u.GetLabels()[LabelCluster] != imported.Name {
			out.Handover = append(out.Handover, Handover{Native: u, Labels: labels})
		}
	}
	for _, path := range slices.Sorted(maps.Keys(imported.Settings)) {
		now, err := getSetting(env, path)
		if err != nil {
			return nil, err
		}
		if v := imported.Settings[path]; v != now {
			out.Differs = append(out.Differs, fmt.Sprintf("%s: the cluster runs with %s, the environment names %s now; the cluster keeps its own, new clusters get the environment's",
				path, shownSetting(v), shownSetting(now)))
		}
	}
	return out, nil
}
