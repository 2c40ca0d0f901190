package model

import (
	"maps"
	"slices"

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
