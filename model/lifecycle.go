package model

import (
	"fmt"
	"slices"
	"strings"
	"time"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// VersionExpiryWarning is how long before the running minor's expiration date the cluster
// warns of it: a month, the time a team needs to plan and test an upgrade.
const VersionExpiryWarning = 30 * 24 * time.Hour

// minorLifecycle is what the environment's catalog says of minor.
func minorLifecycle(env *Environment, minor string) *kaasv1alpha1.MinorLifecycle {
	return &kaasv1alpha1.MinorLifecycle{
		Minor:            minor,
		Offered:          slices.Contains(env.Catalog.KubernetesVersions, minor),
		VersionLifecycle: lifecycleOf(env, minor),
	}
}

// upgradePath says whether the next minor is offered (upgrades go one minor at a time).
func upgradePath(env *Environment, v Version, offeredNext string) string {
	if offeredNext != "" {
		return "the next minor, " + offeredNext + ", is offered"
	}
	next := Version{Major: v.Major, Minor: v.Minor + 1, Patch: -1}.MinorString()
	return fmt.Sprintf("no upgrade path is offered: environment %s does not offer the next minor, %s (data.catalog.kubernetesVersions: %s)",
		env.Name, next, strings.Join(env.Catalog.KubernetesVersions, ", "))
}

// lifecycleOf is the catalog's entry for minor, a copy; empty when it has none.
func lifecycleOf(env *Environment, minor string) kaasv1alpha1.VersionLifecycle {
	l, ok := env.Catalog.KubernetesVersionLifecycle[minor]
	if !ok {
		return kaasv1alpha1.VersionLifecycle{}
	}
	return *l.DeepCopy()
}
