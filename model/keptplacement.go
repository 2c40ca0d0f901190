package model

import (
	"fmt"
	"slices"
	"strings"
)

// A PlacementSetting is an environment setting that decides where a cluster's resources
// live: the region, the garden or management cluster, the ProviderConfig a managed resource
// uses, the namespace a native object goes to. Changing one under an existing cluster would
// point its resources elsewhere: provider-kubernetes or provider-openstack would create a
// second cluster there and abandon or delete the first. So Reconcile keeps the value each
// had when the cluster was first composed (status.backend.placement), like the backend pin:
// an edit applies to new clusters only.
type PlacementSetting struct {
	// Path is the setting's path in the EnvironmentConfig, such as
	// data.magnum.providerConfigName.
	Path string
	// Get reads the setting from an environment; Set writes it into the environment, which
	// is the caller's own (SelectEnvironment decodes a new one for every call). Unset reads
	// as "".
	Get func(*Environment) string
	Set func(*Environment, string)
}

// regionSetting is the placement setting every backend has.
var regionSetting = PlacementSetting{
	Path: "data.region",
	Get:  func(e *Environment) string { return e.Region },
	Set:  func(e *Environment, v string) { e.Region = v },
}

// placementSettings are the backend's placement settings and the region, by path.
func placementSettings(b Backend) []PlacementSetting {
	out := append([]PlacementSetting{regionSetting}, b.PlacementSettings()...)
	slices.SortFunc(out, func(a, b PlacementSetting) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// KeepPlacement sets env's placement settings to the values kept for the cluster (what
// status.backend.placement recorded), and returns the values the cluster has now, for
// status.backend.placement, with a note for each setting the environment has changed since.
// A setting nothing was kept for (a new cluster, or a setting a newer version added) takes
// the environment's value. env must be the caller's own copy.
func KeepPlacement(env *Environment, settings []PlacementSetting, kept map[string]string) (map[string]string, []string) {
	out := make(map[string]string, len(settings))
	var changes []string
	for _, s := range settings {
		now := s.Get(env)
		if was, ok := kept[s.Path]; ok && was != now {
			changes = append(changes, fmt.Sprintf("%s: the cluster stays on %s; the environment names %s now, which applies to new clusters",
				s.Path, settingValue(was), settingValue(now)))
			s.Set(env, was)
			now = was
		}
		out[s.Path] = now
	}
	return out, changes
}

func settingValue(v string) string {
	if v == "" {
		return "(unset)"
	}
	return v
}

// settingsNaming are the paths of the placement settings whose value is v in env: the ones
// to restore when a composed resource would move to v.
func settingsNaming(env *Environment, settings []PlacementSetting, v string) []string {
	var out []string
	for _, s := range settings {
		if v != "" && s.Get(env) == v {
			out = append(out, s.Path)
		}
	}
	return out
}
