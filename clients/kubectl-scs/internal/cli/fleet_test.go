package cli

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// fleetMember is an SCSCluster of the fleet with the status the function writes.
func fleetMember(t *testing.T, namespace, name, backend, version, nextMinor, offered, lifecycle, kubeconfig string) *unstructured.Unstructured {
	if lifecycle != "" {
		lifecycle = ", lifecycle: " + lifecycle
	}
	return object(t, fmt.Sprintf(`
apiVersion: kaas.scs.community/v1alpha1
kind: SCSCluster
metadata: {name: %s, namespace: %s}
spec:
  kubernetes: {version: "1.34"}
  nodePools: [{name: default, machineType: SCS-4V-8, count: 1}]
status:
  phase: Ready
  backend: {type: %s, environment: %s-regionone}
  kubernetes: {version: %s}
  offered: {kubernetesVersions: [%s], nextMinor: %q%s}
  conditions:
  - %s
`, name, namespace, backend, backend, version, offered, nextMinor, lifecycle, kubeconfig))
}

// TestFleet: the fleet over every namespace says what is due: a running minor the catalog
// no longer offers, marks deprecated or expiring within --within days, a kubeconfig expired
// or expiring within --within days (the clock of the tests is 2026-12-01T12:00Z); --due exits 5 then.
func TestFleet(t *testing.T) {
	delivered := func(until string) string {
		return `{type: KubeconfigReady, status: "True", reason: Delivered, message: "the connection secret holds the cluster's kubeconfig, valid until ` + until + `"}`
	}
	members := []*unstructured.Unstructured{
		fleetMember(t, "team1", "fine", "gardener", "1.34.2", "1.35", `"1.33", "1.34", "1.35"`, `{minor: "1.34", offered: true}`, delivered("2027-06-01T00:00:00Z")),
		// Written by a function that predates status.offered.lifecycle.
		fleetMember(t, "team1", "old", "clusterstack", "v1.33.9", "1.34", `"1.34", "1.35"`, "", delivered("2027-06-01T00:00:00Z")),
		fleetMember(t, "team1", "gone", "gardener", "1.32.1", "", `"1.34", "1.35"`, `{minor: "1.32", offered: false}`, delivered("2027-06-01T00:00:00Z")),
		fleetMember(t, "team1", "deprecated", "magnum", "1.33.1", "1.34", `"1.33", "1.34"`, `{minor: "1.33", offered: true, deprecated: true, expirationDate: "2027-03-01T00:00:00Z"}`, delivered("2027-06-01T00:00:00Z")),
		fleetMember(t, "team1", "sunset", "gardener", "1.33.4", "1.34", `"1.33", "1.34", "1.35"`, `{minor: "1.33", offered: true, expirationDate: "2026-12-06T00:00:00Z"}`, delivered("2027-06-01T00:00:00Z")),
		fleetMember(t, "team2", "expired", "magnum", "1.34.3", "", `"1.33", "1.34"`, `{minor: "1.34", offered: true}`,
			`{type: KubeconfigReady, status: "False", reason: Expired, message: "the delivered kubeconfig's credentials expired at 2026-11-30T00:00:00Z and the backend has not delivered renewed ones"}`),
		// Gardener renews its short-lived admin kubeconfigs: no reason to act.
		fleetMember(t, "team2", "renewed", "gardener", "1.34.2", "1.35", `"1.33", "1.34", "1.35"`, `{minor: "1.34", offered: true}`,
			`{type: KubeconfigReady, status: "True", reason: Delivered, message: "the connection secret holds an admin kubeconfig of the Shoot, valid until 2026-12-01T20:00:00Z and renewed before then"}`),
		fleetMember(t, "team2", "soon", "clusterstack", "v1.34.7", "1.35", `"1.33", "1.34", "1.35"`, `{minor: "1.34", offered: true}`, delivered("2026-12-05T12:00:00Z")),
	}
	const table = `NAMESPACE   NAME         ENVIRONMENT              BACKEND        VERSION   PHASE   NEXT MINOR   NEXT UPDATE   KUBECONFIG UNTIL       DUE
team1       deprecated   magnum-regionone         magnum         1.33.1    Ready   1.34         -             2027-06-01T00:00:00Z   minor 1.33 deprecated
team1       fine         gardener-regionone       gardener       1.34.2    Ready   1.35         -             2027-06-01T00:00:00Z   -
team1       gone         gardener-regionone       gardener       1.32.1    Ready   none         -             2027-06-01T00:00:00Z   minor 1.32 no longer offered (offered: 1.34, 1.35)
team1       old          clusterstack-regionone   clusterstack   v1.33.9   Ready   1.34         -             2027-06-01T00:00:00Z   minor 1.33 no longer offered (offered: 1.34, 1.35)
team1       sunset       gardener-regionone       gardener       1.33.4    Ready   1.34         -             2027-06-01T00:00:00Z   minor 1.33 expires 2026-12-06
team2       expired      magnum-regionone         magnum         1.34.3    Ready   none         -             -                      kubeconfig expired
team2       renewed      gardener-regionone       gardener       1.34.2    Ready   1.35         -             2026-12-01T20:00:00Z   -
team2       soon         clusterstack-regionone   clusterstack   v1.34.7   Ready   1.35         -             2026-12-05T12:00:00Z   kubeconfig expires 2026-12-05T12:00:00Z
`
	for _, tc := range []struct {
		name   string
		args   []string
		stdout string
		stderr string
		code   int
	}{
		{name: "every namespace, what is due", args: []string{"fleet"}, stdout: table},
		{name: "--due exits 5 when any is", args: []string{"fleet", "--due"}, stdout: table, stderr: "error: 6 clusters are due\n", code: ExitDue},
		{name: "an output format fleet has not", args: []string{"fleet", "-o", "name"},
			stderr: "error: unknown output format \"name\": use one of yaml|json\n", code: ExitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, flavourNamespaced, members...)
			stdout, stderr, code := h.run("", tc.args...)
			if d := cmp.Diff(tc.stdout, stdout); d != "" {
				t.Errorf("stdout (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.stderr, stderr); d != "" {
				t.Errorf("stderr (-want +got):\n%s", d)
			}
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
		})
	}

	// For tools: -o json, and --within moves the horizon.
	h := newHarness(t, flavourNamespaced, members...)
	stdout, _, code := h.run("", "fleet", "--due", "--within", "1", "-o", "json")
	var got struct {
		Due      int `json:"due"`
		Clusters []struct {
			Name string   `json:"name"`
			Due  []string `json:"due"`
		} `json:"clusters"`
	}
	if err := jsonUnmarshal(stdout, &got); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	if got.Due != 4 || code != ExitDue || len(got.Clusters) != 8 || got.Clusters[4].Name != "sunset" || got.Clusters[4].Due != nil ||
		got.Clusters[7].Name != "soon" || got.Clusters[7].Due != nil {
		t.Errorf("--within 1: due %d, exit %d, clusters %+v; want 4 due (the expiring minor and kubeconfig not yet), exit %d", got.Due, code, got.Clusters, ExitDue)
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// TestFleetEnvironment: a cluster whose environment moved on (EnvironmentUpToDate False, in
// the function's words) is marked in the ENVIRONMENT column and lists its values in -o json;
// only --environment makes it due, and only where adopting would take something.
func TestFleetEnvironment(t *testing.T) {
	const (
		delivered = `{type: KubeconfigReady, status: "True", reason: Delivered, message: "the connection secret holds the cluster's kubeconfig, valid until 2027-06-01T00:00:00Z"}`
		upToDate  = `{type: EnvironmentUpToDate, status: "True", reason: UpToDate, message: "the cluster uses what environment gardener-regionone offers and defaults"}`
		changed   = `{type: EnvironmentUpToDate, status: "False", reason: EnvironmentChanged, message: "environment gardener-regionone changed since the cluster was created; the cluster is left as it is: ` +
			`data.gardener.floatingPoolName: the cluster stays on ext-net; the environment names ext-net-2 now, which applies to new clusters (it cannot be adopted: the OpenStack extension does not move a Shoot's floating IPs to another network); ` +
			`data.gardener.loadBalancerProvider: the cluster stays on amphora; the environment names ovn now, which applies to new clusters (adopting it: in place)"}`
		// What is left after the cluster adopted the load balancer provider.
		forGood = `{type: EnvironmentUpToDate, status: "False", reason: EnvironmentChanged, message: "environment gardener-regionone changed since the cluster was created; the cluster is left as it is: ` +
			`data.gardener.floatingPoolName: the cluster stays on ext-net; the environment names ext-net-2 now, which applies to new clusters (it cannot be adopted: the OpenStack extension does not move a Shoot's floating IPs to another network)"}`
	)
	members := []*unstructured.Unstructured{
		fleetMember(t, "team1", "fine", "gardener", "1.34.2", "1.35", `"1.33", "1.34", "1.35"`, `{minor: "1.34", offered: true}`, delivered+"\n  - "+upToDate),
		fleetMember(t, "team1", "moved", "gardener", "1.34.2", "1.35", `"1.33", "1.34", "1.35"`, `{minor: "1.34", offered: true}`, delivered+"\n  - "+changed),
		fleetMember(t, "team2", "adopted", "gardener", "1.34.2", "1.35", `"1.33", "1.34", "1.35"`, `{minor: "1.34", offered: true}`, delivered+"\n  - "+forGood),
		fleetMember(t, "team2", "gone", "gardener", "1.32.1", "", `"1.34", "1.35"`, `{minor: "1.32", offered: false}`, delivered+"\n  - "+changed),
	}
	for _, tc := range []struct {
		name   string
		args   []string
		stdout string
		stderr string
		code   int
	}{
		{
			name: "without --environment: marked, not due",
			args: []string{"fleet", "--due"},
			stdout: `NAMESPACE   NAME      ENVIRONMENT                     BACKEND    VERSION   PHASE   NEXT MINOR   NEXT UPDATE   KUBECONFIG UNTIL       DUE
team1       fine      gardener-regionone              gardener   1.34.2    Ready   1.35         -             2027-06-01T00:00:00Z   -
team1       moved     gardener-regionone (moved on)   gardener   1.34.2    Ready   1.35         -             2027-06-01T00:00:00Z   -
team2       adopted   gardener-regionone (moved on)   gardener   1.34.2    Ready   1.35         -             2027-06-01T00:00:00Z   -
team2       gone      gardener-regionone (moved on)   gardener   1.32.1    Ready   none         -             2027-06-01T00:00:00Z   minor 1.32 no longer offered (offered: 1.34, 1.35)
`,
			stderr: "error: 1 cluster is due\n",
			code:   ExitDue,
		},
		{
			name: "--environment: due where adopting takes a value",
			args: []string{"fleet", "--due", "--environment"},
			stdout: `NAMESPACE   NAME      ENVIRONMENT                     BACKEND    VERSION   PHASE   NEXT MINOR   NEXT UPDATE   KUBECONFIG UNTIL       DUE
team1       fine      gardener-regionone              gardener   1.34.2    Ready   1.35         -             2027-06-01T00:00:00Z   -
team1       moved     gardener-regionone (moved on)   gardener   1.34.2    Ready   1.35         -             2027-06-01T00:00:00Z   environment moved on: data.gardener.floatingPoolName (keeps ext-net for good, environment names ext-net-2); data.gardener.loadBalancerProvider (keeps amphora, environment names ovn)
team2       adopted   gardener-regionone (moved on)   gardener   1.34.2    Ready   1.35         -             2027-06-01T00:00:00Z   -
team2       gone      gardener-regionone (moved on)   gardener   1.32.1    Ready   none         -             2027-06-01T00:00:00Z   minor 1.32 no longer offered (offered: 1.34, 1.35); environment moved on: data.gardener.floatingPoolName (keeps ext-net for good, environment names ext-net-2); data.gardener.loadBalancerProvider (keeps amphora, environment names ovn)
`,
			stderr: "error: 2 clusters are due\n",
			code:   ExitDue,
		},
		{
			name: "-o json lists the values either way",
			args: []string{"fleet", "-o", "json"},
			stdout: `{
    "clusters": [
        {
            "namespace": "team1",
            "name": "fine",
            "environment": "gardener-regionone",
            "backend": "gardener",
            "version": "1.34.2",
            "phase": "Ready",
            "nextMinor": "1.35",
            "kubeconfigUntil": "2027-06-01T00:00:00Z"
        },
        {
            "namespace": "team1",
            "name": "moved",
            "environment": "gardener-regionone",
            "backend": "gardener",
            "version": "1.34.2",
            "phase": "Ready",
            "nextMinor": "1.35",
            "kubeconfigUntil": "2027-06-01T00:00:00Z",
            "environmentMovedOn": [
                "data.gardener.floatingPoolName (keeps ext-net for good, environment names ext-net-2)",
                "data.gardener.loadBalancerProvider (keeps amphora, environment names ovn)"
            ]
        },
        {
            "namespace": "team2",
            "name": "adopted",
            "environment": "gardener-regionone",
            "backend": "gardener",
            "version": "1.34.2",
            "phase": "Ready",
            "nextMinor": "1.35",
            "kubeconfigUntil": "2027-06-01T00:00:00Z",
            "environmentMovedOn": [
                "data.gardener.floatingPoolName (keeps ext-net for good, environment names ext-net-2)"
            ]
        },
        {
            "namespace": "team2",
            "name": "gone",
            "environment": "gardener-regionone",
            "backend": "gardener",
            "version": "1.32.1",
            "phase": "Ready",
            "kubeconfigUntil": "2027-06-01T00:00:00Z",
            "due": [
                "minor 1.32 no longer offered (offered: 1.34, 1.35)"
            ],
            "environmentMovedOn": [
                "data.gardener.floatingPoolName (keeps ext-net for good, environment names ext-net-2)",
                "data.gardener.loadBalancerProvider (keeps amphora, environment names ovn)"
            ]
        }
    ],
    "due": 1
}
`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, flavourNamespaced, members...)
			stdout, stderr, code := h.run("", tc.args...)
			if d := cmp.Diff(tc.stdout, stdout); d != "" {
				t.Errorf("stdout (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.stderr, stderr); d != "" {
				t.Errorf("stderr (-want +got):\n%s", d)
			}
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
		})
	}
}

// withMaintenance gives a fleet member the status.maintenance the function writes.
func withMaintenance(t *testing.T, obj *unstructured.Unstructured, maintenance string) *unstructured.Unstructured {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(maintenance), &m); err != nil {
		t.Fatal(err)
	}
	must(t, unstructured.SetNestedMap(obj.Object, m, "status", "maintenance"))
	return obj
}

// TestFleetMaintenance: NEXT UPDATE says what each cluster updates on its own, rolling or
// planned and from when; --planned lists only those clusters, and with --due exits 5 only
// for one of them that is due.
func TestFleetMaintenance(t *testing.T) {
	const (
		delivered = `{type: KubeconfigReady, status: "True", reason: Delivered, message: "the connection secret holds the cluster's kubeconfig, valid until 2027-06-01T00:00:00Z"}`
		expired   = `{type: KubeconfigReady, status: "False", reason: Expired, message: "the delivered kubeconfig's credentials expired at 2026-11-30T00:00:00Z and the backend has not delivered renewed ones"}`
	)
	members := []*unstructured.Unstructured{
		withMaintenance(t, fleetMember(t, "team1", "waiting", "clusterstack", "v1.34.7", "1.35", `"1.33", "1.34", "1.35"`, `{minor: "1.34", offered: true}`, delivered), `
planned: {kind: KubernetesPatch, from: v1.34.7, to: v1.34.8, since: "2026-12-01T09:00:00Z", notBefore: "2026-12-02T02:00:00Z",
  message: "v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC, from Wed, 02 Dec 2026 02:00:00 UTC"}`),
		// Nothing planned, but due: listed without --planned only.
		fleetMember(t, "team1", "idle", "gardener", "1.34.2", "1.35", `"1.33", "1.34", "1.35"`, `{minor: "1.34", offered: true}`, expired),
		withMaintenance(t, fleetMember(t, "team2", "rolling", "clusterstack", "v1.34.6", "1.35", `"1.33", "1.34", "1.35"`, `{minor: "1.34", offered: true}`, delivered), `
inProgress: {kind: KubernetesPatch, from: v1.34.6, to: v1.34.7, started: "2026-12-01T11:30:00Z", message: "v1.34.6 -> v1.34.7 in the window 11:00-13:00 UTC"}`),
		// An expired minor being upgraded, and a patch of the new minor already waiting.
		withMaintenance(t, fleetMember(t, "team2", "upgrading", "magnum", "1.33.9", "1.34", `"1.33", "1.34"`,
			`{minor: "1.33", offered: true, expirationDate: "2026-11-30T00:00:00Z"}`, delivered), `
upgradedMinor: "1.34"
inProgress: {kind: EndOfLifeUpgrade, from: 1.33.9, to: "1.34", started: "2026-12-01T02:10:00Z", message: "1.33.9 -> 1.34 in the window 02:00-03:00 UTC"}
planned: {kind: KubernetesPatch, from: 1.34.2, to: 1.34.3, message: "1.34.2 -> 1.34.3"}`),
	}
	const (
		header    = "NAMESPACE   NAME        ENVIRONMENT              BACKEND        VERSION   PHASE   NEXT MINOR   NEXT UPDATE                                  KUBECONFIG UNTIL       DUE\n"
		waiting   = "team1       waiting     clusterstack-regionone   clusterstack   v1.34.7   Ready   1.35         v1.34.7 -> v1.34.8 at 2026-12-02T02:00:00Z   2027-06-01T00:00:00Z   -\n"
		idle      = "team1       idle        gardener-regionone       gardener       1.34.2    Ready   1.35         -                                            -                      kubeconfig expired\n"
		rolling   = "team2       rolling     clusterstack-regionone   clusterstack   v1.34.6   Ready   1.35         rolling v1.34.6 -> v1.34.7                   2027-06-01T00:00:00Z   -\n"
		upgrading = "team2       upgrading   magnum-regionone         magnum         1.33.9    Ready   1.34         rolling 1.33.9 -> 1.34; 1.34.2 -> 1.34.3     2027-06-01T00:00:00Z   minor 1.33 expired 2026-11-30\n"
	)
	for _, tc := range []struct {
		name   string
		args   []string
		stdout string
		stderr string
		code   int
	}{
		{name: "every cluster, with its next update", args: []string{"fleet", "--due"},
			stdout: header + idle + waiting + rolling + upgrading, stderr: "error: 2 clusters are due\n", code: ExitDue},
		{name: "--planned: those with an update of their own", args: []string{"fleet", "--planned"},
			stdout: header + waiting + rolling + upgrading},
		{name: "--planned --due: exits 5 for one of those due", args: []string{"fleet", "--planned", "--due"},
			stdout: header + waiting + rolling + upgrading, stderr: "error: 1 cluster is due\n", code: ExitDue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, flavourNamespaced, members...)
			stdout, stderr, code := h.run("", tc.args...)
			if d := cmp.Diff(tc.stdout, stdout); d != "" {
				t.Errorf("stdout (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.stderr, stderr); d != "" {
				t.Errorf("stderr (-want +got):\n%s", d)
			}
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
		})
	}

	// For tools: nextUpdate in -o yaml, and due counts the clusters listed.
	h := newHarness(t, flavourNamespaced, members...)
	stdout, _, code := h.run("", "fleet", "--planned", "-o", "yaml")
	var got struct {
		Due      int `json:"due"`
		Clusters []struct {
			Name       string `json:"name"`
			NextUpdate string `json:"nextUpdate"`
		} `json:"clusters"`
	}
	if err := yaml.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	want := []struct {
		Name       string `json:"name"`
		NextUpdate string `json:"nextUpdate"`
	}{
		{"waiting", "v1.34.7 -> v1.34.8 at 2026-12-02T02:00:00Z"},
		{"rolling", "rolling v1.34.6 -> v1.34.7"},
		{"upgrading", "rolling 1.33.9 -> 1.34; 1.34.2 -> 1.34.3"},
	}
	if d := cmp.Diff(want, got.Clusters); d != "" || got.Due != 1 || code != ExitOK {
		t.Errorf("--planned -o yaml: due %d, exit %d, clusters (-want +got):\n%s", got.Due, code, d)
	}
}
