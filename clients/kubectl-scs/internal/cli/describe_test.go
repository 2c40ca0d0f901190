package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"

	"github.com/SovereignCloudStack/scs-kaas/model"
)

// The composite of readyClaim, with what Crossplane composed for it.
const readyComposite = `
apiVersion: kaas.scs.community/v1alpha1
kind: XSCSCluster
metadata:
  name: dev-x7k2p
spec:
  resourceRefs:
  - {apiVersion: gardener.kaas.scs.community/v1alpha1, kind: AdminKubeconfig, name: dev-mfn4yr-kubeconfig}
  - {apiVersion: kubernetes.crossplane.io/v1alpha2, kind: Object, name: dev-mfn4yr-shoot}
`

// An event of the claim, and one of another object.
const (
	claimEvent = `
apiVersion: v1
kind: Event
metadata: {name: dev.1, namespace: team1}
involvedObject: {apiVersion: kaas.scs.community/v1alpha1, kind: SCSCluster, name: dev, namespace: team1}
type: Normal
reason: ConfigureCompositeResource
message: Successfully applied composite resource
source: {component: offered/claim.kaas.scs.community}
lastTimestamp: "2026-12-01T11:50:00Z"
`
	otherEvent = `
apiVersion: v1
kind: Event
metadata: {name: web.1, namespace: team1}
involvedObject: {apiVersion: kaas.scs.community/v1alpha1, kind: SCSCluster, name: web, namespace: team1}
type: Warning
reason: Whatever
message: not about dev
`
)

// hibernating is a claim whose backend ignores a field, not bound yet, with protection
// from its purpose.
const hibernating = `
apiVersion: kaas.scs.community/v1alpha1
kind: SCSCluster
metadata:
  name: lab
  namespace: team1
  annotations: {kaas.scs.community/deletion-policy: Orphan}
spec:
  purpose: production
  environment: magnum-regionone
  kubernetes: {version: "1.34"}
  hibernation: {enabled: true}
  nodePools:
  - {name: default, machineType: SCS-4V-8, count: 1}
  compositeDeletePolicy: Background
status:
  conditions:
  - {type: SpecSupported, status: "False", reason: UnsupportedFields, message: "spec.hibernation: Magnum cannot hibernate a cluster; the field is ignored; spec.maintenance.autoUpdate.machineImage: the template fixes the image; the field is ignored"}
`

// readyClaimWithAccess is readyClaim with the access its Shoot carries (docs/access.md).
var readyClaimWithAccess = strings.Replace(readyClaim, "  kubernetes: {version: 1.34.5}\n", `  kubernetes: {version: 1.34.5}
  access:
    oidc: {issuerURL: https://login.example.com, clientID: kubectl, usernameClaim: email, usernamePrefix: "oidc:"}
    allowedSourceRanges: [203.0.113.0/24]
`, 1)

func TestDescribe(t *testing.T) {
	forbidden := func(resource string) clienttesting.ReactionFunc {
		return func(clienttesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: resource}, "", nil)
		}
	}
	for _, tc := range []struct {
		name    string
		objects []string
		// forbid makes the fake API server refuse these verb/resource pairs.
		forbid [][2]string
		args   []string
		stdout string
		code   int
	}{
		{
			name:    "a ready legacy claim with its composite and events",
			objects: []string{readyClaimWithAccess, readyComposite, claimEvent, otherEvent},
			args:    []string{"describe", "dev"},
			stdout: `Name:           dev
Namespace:      team1
Flavour:        claim of XSCSCluster dev-x7k2p (legacy)
Created:        2026-12-01T11:48:00Z (12m ago)
Purpose:        development (default)
Environment:    gardener-regionone (the platform's default when created)
Backend:        gardener, region RegionOne, name dev-mfn4yr
Native object:  Shoot garden-team1/dev-mfn4yr (core.gardener.cloud/v1beta1)
Phase:          Ready
Kubernetes:     spec 1.34, runs 1.34.5
API server:     https://api.dev-mfn4yr.team1.gardener.example.com
Kubeconfig:     Secret team1/dev-kubeconfig, KubeconfigReady True (Delivered)
Access:         sign-in through https://login.example.com (client kubectl; kubectl scs kubeconfig --oidc); API server open to 203.0.113.0/24
Deletion:       not protected; deleting it now would delete the cluster
Node pools:
  NAME      MACHINE TYPE   SIZE              ZONES         NODES   READY   PENDING
  default   SCS-4V-8       autoscaling 1-3   az1,az2,az3   2       2       -
  ingress   SCS-2V-4       count 2           az1           2       1       -
Conditions:
  TYPE              STATUS   REASON              MESSAGE
  Synced            True     ReconcileSuccess    -
  Ready             True     Available           -
  Rendered          True     Rendered            rendered for backend gardener in environment gardener-regionone
  BackendReady      True     Healthy             the Shoot is reconciled and all health checks pass
  KubeconfigReady   True     Delivered           the connection secret holds an admin kubeconfig
  SpecSupported     True     AllFieldsHonoured   the backend honours every field that is set
Warnings:
  none: the backend honours every field that is set
Offered by the environment:
  Kubernetes versions:  1.33, 1.34, 1.35 (next minor for this cluster: 1.35)
  Machine types:        SCS-2V-4, SCS-4V-8
  Zones:                az1, az2, az3
Kept from the environment (status.defaulted):
  network: podCIDR 100.64.0.0/12, serviceCIDR 100.80.0.0/13, nodeCIDR 10.250.0.0/16, cni cilium
  pool default: zones az1,az2,az3, rootDiskGiB 50
Composed resources:
  KIND              NAME                    API VERSION
  AdminKubeconfig   dev-mfn4yr-kubeconfig   gardener.kaas.scs.community/v1alpha1
  Object            dev-mfn4yr-shoot        kubernetes.crossplane.io/v1alpha2
Events:
  TYPE     REASON                       AGE   FROM                               MESSAGE
  Normal   ConfigureCompositeResource   10m   offered/claim.kaas.scs.community   Successfully applied composite resource
`,
		},
		{
			name:    "what the tenant may not read is named, the rest is shown",
			objects: []string{readyClaim, readyComposite},
			forbid:  [][2]string{{"get", "xscsclusters"}, {"list", "events"}},
			args:    []string{"describe", "dev"},
			stdout: `Name:           dev
Namespace:      team1
Flavour:        claim of XSCSCluster dev-x7k2p (legacy)
Created:        2026-12-01T11:48:00Z (12m ago)
Purpose:        development (default)
Environment:    gardener-regionone (the platform's default when created)
Backend:        gardener, region RegionOne, name dev-mfn4yr
Native object:  Shoot garden-team1/dev-mfn4yr (core.gardener.cloud/v1beta1)
Phase:          Ready
Kubernetes:     spec 1.34, runs 1.34.5
API server:     https://api.dev-mfn4yr.team1.gardener.example.com
Kubeconfig:     Secret team1/dev-kubeconfig, KubeconfigReady True (Delivered)
Deletion:       not protected; deleting it now would delete the cluster
Node pools:
  NAME      MACHINE TYPE   SIZE              ZONES         NODES   READY   PENDING
  default   SCS-4V-8       autoscaling 1-3   az1,az2,az3   2       2       -
  ingress   SCS-2V-4       count 2           az1           2       1       -
Conditions:
  TYPE              STATUS   REASON              MESSAGE
  Synced            True     ReconcileSuccess    -
  Ready             True     Available           -
  Rendered          True     Rendered            rendered for backend gardener in environment gardener-regionone
  BackendReady      True     Healthy             the Shoot is reconciled and all health checks pass
  KubeconfigReady   True     Delivered           the connection secret holds an admin kubeconfig
  SpecSupported     True     AllFieldsHonoured   the backend honours every field that is set
Warnings:
  none: the backend honours every field that is set
Offered by the environment:
  Kubernetes versions:  1.33, 1.34, 1.35 (next minor for this cluster: 1.35)
  Machine types:        SCS-2V-4, SCS-4V-8
  Zones:                az1, az2, az3
Kept from the environment (status.defaulted):
  network: podCIDR 100.64.0.0/12, serviceCIDR 100.80.0.0/13, nodeCIDR 10.250.0.0/16, cni cilium
  pool default: zones az1,az2,az3, rootDiskGiB 50
Composed resources:
  not readable: XSCSCluster dev-x7k2p: forbidden for your credentials
Events:
  not readable: forbidden for your credentials
`,
		},
		{
			name:    "warnings one a line, protection by purpose, an unbound claim",
			objects: []string{hibernating},
			args:    []string{"describe", "lab"},
			stdout: `Name:           lab
Namespace:      team1
Flavour:        claim, not bound to an XSCSCluster yet (legacy)
Purpose:        production
Environment:    magnum-regionone (asked for, not pinned yet)
Phase:          not reported yet
Kubernetes:     spec 1.34
Kubeconfig:     none: spec.writeConnectionSecretToRef.name is not set
Deletion:       protected (spec.deletionProtection, defaulted by purpose production); annotation kaas.scs.community/deletion-policy=Orphan
Node pools:
  NAME      MACHINE TYPE   SIZE      ZONES   NODES   READY   PENDING
  default   SCS-4V-8       count 1   -       -       -       -
Conditions:
  TYPE            STATUS   REASON              MESSAGE
  SpecSupported   False    UnsupportedFields   spec.hibernation: Magnum cannot hibernate a cluster; the field is ignored; spec.maintenance.autoUpdate.machineImage: the template fixes the image; the field is ignored
Warnings:
  spec.hibernation: Magnum cannot hibernate a cluster; the field is ignored
  spec.maintenance.autoUpdate.machineImage: the template fixes the image; the field is ignored
Events:         <none>
`,
		},
		{
			name: "a missing name",
			args: []string{"describe", "nope"},
			code: ExitError,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, flavourLegacy)
			for _, o := range tc.objects {
				if err := h.dyn.Tracker().Add(object(t, o)); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range tc.forbid {
				h.dyn.PrependReactor(f[0], f[1], forbidden(f[1]))
			}
			stdout, _, code := h.run("", tc.args...)
			if diff := cmp.Diff(tc.stdout, stdout); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
		})
	}
}

// TestDescribeMaintenance: the Maintenance section says when the cluster updates on its own
// (its window, from the spec or as the function derived it), what it plans or rolls, a minor
// an end-of-life upgrade moved it to past its spec, and the UpdatePlanned condition.
func TestDescribeMaintenance(t *testing.T) {
	// cluster is readyClaim with spec lines, status.maintenance lines and a condition added.
	cluster := func(spec, maintenance, condition string) string {
		c := strings.Replace(readyClaim, "  kubernetes: {version: \"1.34\"}\n", "  kubernetes: {version: \"1.34\"}\n"+spec, 1)
		return strings.Replace(c, "  conditions:\n", maintenance+"  conditions:\n  - "+condition+"\n", 1)
	}
	for _, tc := range []struct {
		name    string
		cluster string
		// section is what describe prints from "Maintenance:" to "Conditions:".
		section string
	}{
		{
			name: "an update planned for the window the spec names, in its zone",
			cluster: cluster("  maintenance: {window: {begin: \"040000+0200\", end: \"050000+0200\"}}\n", `  maintenance:
    planned: {kind: KubernetesPatch, from: 1.34.5, to: 1.34.6, since: "2026-12-01T09:00:00Z", notBefore: "2026-12-02T02:00:00Z",
      message: "1.34.5 -> 1.34.6 in the window 02:00-03:00 UTC, from Wed, 02 Dec 2026 02:00:00 UTC"}
`, `{type: UpdatePlanned, status: "True", reason: OutsideWindow, message: "1.34.5 -> 1.34.6 in the window 02:00-03:00 UTC, from Wed, 02 Dec 2026 02:00:00 UTC"}`),
			section: `Maintenance:
  Window:               02:00-03:00 UTC (spec.maintenance.window)
  Planned:              1.34.5 -> 1.34.6 in the window 02:00-03:00 UTC, from Wed, 02 Dec 2026 02:00:00 UTC
  Condition:            UpdatePlanned True (OutsideWindow)
`,
		},
		{
			name: "an expired minor upgraded in the derived window, past the spec",
			cluster: cluster("", `  maintenance:
    upgradedMinor: "1.35"
    inProgress: {kind: EndOfLifeUpgrade, from: 1.34.5, to: "1.35", started: "2026-12-01T02:10:00Z",
      message: "1.34.5 -> 1.35 in the window 02:00-03:00 UTC (derived: the cluster names no window)"}
`, `{type: UpdatePlanned, status: "False", reason: UpdateInProgress, message: "rolling 1.34.5 -> 1.35 in the window 02:00-03:00 UTC (derived: the cluster names no window)"}`),
			section: `Maintenance:
  Window:               02:00-03:00 UTC (derived: the cluster names no window)
  In progress:          1.34.5 -> 1.35 in the window 02:00-03:00 UTC (derived: the cluster names no window), started 2026-12-01T02:10:00Z (9h ago)
  Upgraded minor:       1.35, past its expired minor: spec.kubernetes.version still names 1.34; set it to 1.35 (or newer) to make the spec say what runs
  Condition:            UpdatePlanned False (UpdateInProgress)
`,
		},
		{
			name:    "nothing planned: the condition says why",
			cluster: cluster("", "", `{type: UpdatePlanned, status: "False", reason: NoUpgradePath, message: "1.34 expired on 2026-11-30 and stays as it is: no newer minor is offered"}`),
			section: `Maintenance:
  Window:               none named: the function derives one from the cluster's identity
  Planned:              none
  Condition:            UpdatePlanned False (NoUpgradePath): 1.34 expired on 2026-11-30 and stays as it is: no newer minor is offered
`,
		},
		{
			name:    "a function that predates maintenance: no section",
			cluster: readyClaim,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, flavourLegacy, object(t, tc.cluster))
			stdout, stderr, code := h.run("", "describe", "dev")
			if code != ExitOK {
				t.Fatalf("exit code %d: %s", code, stderr)
			}
			section := ""
			if i := strings.Index(stdout, "Maintenance:\n"); i >= 0 {
				section, _, _ = strings.Cut(stdout[i:], "Conditions:\n")
			}
			if d := cmp.Diff(tc.section, section); d != "" {
				t.Errorf("maintenance (-want +got):\n%s", d)
			}
			if c := model.ConditionOf(object(t, tc.cluster), "UpdatePlanned"); c.Found && !strings.Contains(stdout, "\n  UpdatePlanned ") {
				t.Errorf("the conditions lack UpdatePlanned:\n%s", stdout)
			}
		})
	}
}
