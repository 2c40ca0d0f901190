package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEnvironmentDrift reads the messages the function writes into EnvironmentUpToDate (these
// are its words, for the example clusters and environments edited) into the values a
// cluster keeps, as fleet and upgrade --environment show them.
func TestEnvironmentDrift(t *testing.T) {
	for _, tc := range []struct {
		name, message string
		// strings are the items as fleet shows them, summaries as upgrade --environment does.
		strings, summaries []string
	}{
		{
			name: "a value adopting takes and one it cannot",
			message: "environment gardener-regionone changed since the cluster was created; the cluster is left as it is: " +
				"data.gardener.floatingPoolName: the cluster stays on ext-net; the environment names ext-net-2 now, which applies to new clusters (it cannot be adopted: the OpenStack extension does not move a Shoot's floating IPs to another network); " +
				"data.gardener.loadBalancerProvider: the cluster stays on amphora; the environment names ovn now, which applies to new clusters (adopting it: in place)",
			strings: []string{
				"data.gardener.floatingPoolName (keeps ext-net for good, environment names ext-net-2)",
				"data.gardener.loadBalancerProvider (keeps amphora, environment names ovn)",
			},
			summaries: []string{
				"kept for good: data.gardener.floatingPoolName ext-net -> ext-net-2 (the OpenStack extension does not move a Shoot's floating IPs to another network)",
				"in place: data.gardener.loadBalancerProvider amphora -> ovn",
			},
		},
		{
			name: "defaults, a dropped machine type, and the message cut at its limit",
			message: "environment gardener-regionone changed since the cluster was created; the cluster is left as it is: " +
				"data.gardener.machineImage: the cluster stays on (unset); the environment names {\"name\":\"gardenlinux\",\"version\":\"1877.3.0\"} now, which applies to new clusters (adopting it: in place); " +
				"spec.network.podCIDR: keeps 100.64.0.0/12 from the cluster's creation; the environment now defaults to 100.96.0.0/12 (data.defaults.network.podCIDR); " +
				"spec.nodePools[0].zones: pool system keeps az1, az2, az3 from its creation; a new pool of its size would get az1, az2 (data.catalog.zones); " +
				"spec.nodePools[0].rootDiskGiB: pool system keeps 50 from its creation; the environment now defaults to 60 (data.defaults.rootDiskGiB); " +
				"spec.nodePools[4].machineType: SCS-2V-4 is no longer offered (data.catalog.machineTypes); pool ingress keeps it; " +
				"spec.nodePools[2].rootDiskGiB: pool memory keeps 50 from its creation; the envi...",
			strings: []string{
				`data.gardener.machineImage (keeps (unset), environment names {"name":"gardenlinux","version":"1877.3.0"})`,
				"spec.network.podCIDR (keeps 100.64.0.0/12 for good, environment defaults to 100.96.0.0/12)",
				"spec.nodePools[0].zones (keeps az1, az2, az3 for good, environment defaults to az1, az2)",
				"spec.nodePools[0].rootDiskGiB (keeps 50, environment defaults to 60)",
				"spec.nodePools[4].machineType (SCS-2V-4 no longer offered)",
				"spec.nodePools[2].rootDiskGiB",
			},
			summaries: []string{
				`in place: data.gardener.machineImage (unset) -> {"name":"gardenlinux","version":"1877.3.0"}`,
				"kept for good: spec.network.podCIDR 100.64.0.0/12 -> 100.96.0.0/12 (data.defaults.network.podCIDR)",
				"kept for good: spec.nodePools[0].zones az1, az2, az3 -> az1, az2 (data.catalog.zones)",
				"adopted: spec.nodePools[0].rootDiskGiB 50 -> 60 (data.defaults.rootDiskGiB)",
				"kept: spec.nodePools[4].machineType SCS-2V-4 (no longer offered by the environment, data.catalog.machineTypes)",
				"differs: spec.nodePools[2].rootDiskGiB",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var strs, summaries []string
			for _, d := range parseDrift(tc.message) {
				strs = append(strs, d.String())
				summaries = append(summaries, d.Summary())
			}
			if d := cmp.Diff(tc.strings, strs); d != "" {
				t.Errorf("items (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.summaries, summaries); d != "" {
				t.Errorf("summaries (-want +got):\n%s", d)
			}
		})
	}
}
