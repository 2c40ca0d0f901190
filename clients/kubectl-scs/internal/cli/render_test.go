package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// repo is the repository's root seen from this package's directory, where go test runs:
// render reads the project's examples and schemas as a CI job in a checkout would.
const repo = "../../../.."

// minimalClaim is examples/claims/gardener-minimal.yaml as JSON, with the first old
// replaced: the example with one mistake in it.
func minimalClaim(t *testing.T, old, replacement string) string {
	t.Helper()
	data, err := readManifests(nil, repo+"/examples/claims/gardener-minimal.yaml")
	if err != nil || len(data) != 1 {
		t.Fatalf("reading the example claim: %v (%d objects)", err, len(data))
	}
	y, err := data[0].MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Replace(string(y), old, replacement, 1)
	if out == string(y) {
		t.Fatalf("%q is not in the example claim", old)
	}
	return out
}

// renderedMinimal is what render says on standard error about the minimal claim, before
// any validation.
const renderedMinimal = `Note: namespace team1 was not given (--required): rendered as if it had no labels but kubernetes.io/metadata.name, which matters to environments that admit namespaces by label
Rendered SCSCluster team1/dev (namespaced flavour) for backend gardener in environment gardener-regionone: 2 objects
  name in the backend: dev-mfn4yr
  phase: Provisioning
  BackendReady: False (Creating): the Shoot does not exist in the garden cluster yet
  KubeconfigReady: False (Pending): waiting for Gardener to advertise the Shoot's API server (status.advertisedAddresses); then provider-gardener-kubeconfig requests an admin kubeconfig from the garden
  EnvironmentUpToDate: True (UpToDate): the cluster uses what environment gardener-regionone offers and defaults
  VersionSupported: True (VersionOffered): 1.34 is offered by environment gardener-regionone; the next minor, 1.35, is offered
  BackendSynced: Unknown (ApplyPending): waiting for gardener-shoot to be reported applied
  UpdatePlanned: False (NothingPlanned): no update of its own is due; its own updates start in the window 22:00-23:00 UTC
`

const renderedMinimalNames = `object.kubernetes.m.crossplane.io/dev-mfn4yr-shoot
secret/dev-kubeconfig
`

// xrdChecks is what validation says it checks an SCSCluster against.
const xrdChecks = "XRD scsclusters.kaas.scs.community (the API's XRD, built in): OpenAPI schema, 25 CEL rules, pruning, defaults, metadata, list keys"

// validatedMinimal is the validation report of the minimal claim's render, with the line
// of the input given.
func validatedMinimal(input string) string {
	return "Validation, offline, as the API servers would on create, with the schemas built into kubectl-scs:\n  " + input +
		`  valid        Object team1/dev-mfn4yr-shoot: CRD objects.kubernetes.m.crossplane.io (provider-kubernetes v1.3.1, built in): OpenAPI schema, 1 CEL rule, pruning, defaults, metadata, list keys
  valid        Shoot garden-team1/dev-mfn4yr inside Object team1/dev-mfn4yr-shoot: Gardener v1.149.3's own validation, built in: strict decoding, defaulting, ValidateShoot (where the Shoot names no machine image or version, one stands in for what admission takes from the CloudProfile)
  valid        Secret team1/dev-kubeconfig: core/v1 Secret, built in: strict decoding, metadata, keys, size
`
}

func TestRender(t *testing.T) {
	envs := repo + "/examples/environments"
	for _, tc := range []struct {
		name   string
		stdin  func(t *testing.T) string
		args   []string
		stdout string
		stderr string
		code   int
	}{
		{
			name:   "a namespaced SCSCluster in the default environment",
			args:   []string{"render", "-f", repo + "/examples/claims/gardener-minimal.yaml", "--environment", envs, "-o", "name"},
			stdout: renderedMinimalNames,
			stderr: renderedMinimal,
		},
		{
			name:   "the same manifest as a legacy claim: the cluster-scoped kinds, no Secret of its own",
			args:   []string{"render", "-f", repo + "/examples/claims/gardener-minimal.yaml", "--environment", envs, "--flavour", "legacy", "-o", "name"},
			stdout: "object.kubernetes.crossplane.io/dev-mfn4yr-shoot\n",
			stderr: strings.Replace(strings.Replace(renderedMinimal, "namespaced flavour", "legacy flavour", 1), "2 objects", "1 object", 1),
		},
		{
			name: "a legacy composite with what exists: the status reads Ready",
			args: []string{"render", "-f", repo + "/examples/render/gardener/xr.yaml", "--environment", envs,
				"--observed", repo + "/examples/render/gardener/observed-ready.yaml", "--required", repo + "/examples/render/gardener/required-ready", "-o", "name"},
			stdout: "object.kubernetes.crossplane.io/shop-6bru6k-shoot\nadminkubeconfig.gardener.kaas.scs.community/shop-6bru6k-kubeconfig\n",
			stderr: `Note: namespace team1 was not given (--required): rendered as if it had no labels but kubernetes.io/metadata.name, which matters to environments that admit namespaces by label
Rendered XSCSCluster shop-x7k2p (legacy flavour) for backend gardener in environment gardener-regionone: 2 objects
  name in the backend: shop-6bru6k
  phase: Ready
  BackendReady: True (Healthy): the Shoot is reconciled and all health checks pass
  KubeconfigReady: True (Delivered): the connection secret holds an admin kubeconfig of the Shoot, valid until 2026-11-30T10:00:00Z and renewed before then
  EnvironmentUpToDate: True (UpToDate): the cluster uses what environment gardener-regionone offers and defaults
  VersionSupported: True (VersionOffered): 1.34 is offered by environment gardener-regionone; the next minor, 1.35, is offered
  BackendSynced: True (Synced): every native object is applied as rendered
  UpdatePlanned: False (NothingPlanned): no update of its own is due; its own updates start in the window 00:00-03:00 UTC
`,
		},
		{
			name: "the clock judges the window: a newer release waits for the cluster's next one",
			args: []string{"render", "-f", repo + "/examples/render/clusterstack/xr.yaml", "--environment", envs,
				"--observed", repo + "/examples/render/clusterstack/observed-ready.yaml",
				"--required", repo + "/examples/render/clusterstack/required," + repo + "/examples/render/clusterstack/required-ready,testdata/maintenance/newer-release.yaml", "-o", "name"},
			stdout: "cluster.cluster.x-k8s.io/shop-6bru6k\n",
			stderr: `Note: namespace team1 was not given (--required): rendered as if it had no labels but kubernetes.io/metadata.name, which matters to environments that admit namespaces by label
Rendered XSCSCluster shop-9q8rz (legacy flavour) for backend clusterstack in environment clusterstack-regionone: 1 object
  name in the backend: shop-6bru6k
  phase: Ready
  BackendReady: True (Available): the Cluster is available
  KubeconfigReady: True (Delivered): the connection secret holds the cluster's kubeconfig
  EnvironmentUpToDate: True (UpToDate): the cluster uses what environment clusterstack-regionone offers and defaults
  VersionSupported: True (VersionOffered): 1.34 is offered by environment clusterstack-regionone; the next minor, 1.35, is offered
  BackendSynced: True (Synced): every native object is applied as rendered
  UpdatePlanned: True (OutsideWindow): v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC (derived: the cluster names no window), from Wed, 02 Dec 2026 02:00:00 UTC
Warning: spec.nodePools[system].labels: Cluster API carries only node-role.kubernetes.io/, node-restriction.kubernetes.io/ and node.cluster.x-k8s.io/ labels to nodes; the nodes get node.cluster.x-k8s.io/pool for node.scs.community/pool instead
`,
		},
		{
			name:  "a machine type the environment does not offer is refused with the function's reason",
			stdin: func(t *testing.T) string { return minimalClaim(t, "SCS-4V-8", "SCS-1V-1") },
			args:  []string{"render", "-f", "-", "--environment", envs},
			stderr: `error: refused (InvalidSpec): XSCSCluster "dev" is invalid (1 problem): spec.nodePools[0].machineType: Unsupported value: "SCS-1V-1": supported values: "SCS-2V-4", "SCS-4V-8", "SCS-4V-16", "SCS-8V-32", "SCS-8V-64", "SCS-16V-32"
`,
			code: ExitRefused,
		},
		{
			name:   "--validate says what was checked against what, with what is built in",
			args:   []string{"render", "-f", repo + "/examples/claims/gardener-minimal.yaml", "--environment", envs, "-o", "name", "--validate"},
			stdout: renderedMinimalNames,
			stderr: renderedMinimal + validatedMinimal("valid        SCSCluster team1/dev (the input, with the status the function would write): "+xrdChecks+"\n"),
		},
		{
			name: "--validate finds a misspelt field the API server would drop",
			stdin: func(t *testing.T) string {
				return minimalClaim(t, `"kubernetes":`, `"kubernets":{"version":"1.34"},"kubernetes":`)
			},
			args:   []string{"render", "-f", "-", "--environment", envs, "-o", "name", "--validate"},
			stdout: renderedMinimalNames,
			stderr: renderedMinimal + validatedMinimal(`INVALID      SCSCluster team1/dev (the input, with the status the function would write): `+xrdChecks+`:
                 spec.kubernets: Forbidden: unknown field: the API server drops it
`) + "error: 1 object is invalid; the API server would refuse it or drop fields\n",
			code: ExitRefused,
		},
		{
			name:   "without environments",
			args:   []string{"render", "-f", repo + "/examples/claims/gardener-minimal.yaml"},
			stderr: "error: --environment is required: the EnvironmentConfigs to choose from\n",
			code:   ExitUsage,
		},
		{
			name:   "an environment that is no EnvironmentConfig",
			args:   []string{"render", "-f", repo + "/examples/claims/gardener-minimal.yaml", "--environment", repo + "/examples/claims/gardener-minimal.yaml"},
			stderr: "error: --environment takes apiextensions.crossplane.io/v1beta1 EnvironmentConfig objects; SCSCluster \"dev\" is not one\n",
			code:   ExitUsage,
		},
		{
			name:   "an unknown flavour",
			args:   []string{"render", "-f", repo + "/examples/claims/gardener-minimal.yaml", "--environment", envs, "--flavour", "v2"},
			stderr: "error: --flavour must be namespaced or legacy, not \"v2\"\n",
			code:   ExitUsage,
		},
		{
			name:   "a manifest that is not an SCSCluster",
			args:   []string{"render", "-f", repo + "/examples/environments/gardener-regionone.yaml", "--environment", envs},
			stderr: "error: EnvironmentConfig \"gardener-regionone\" is not an kaas.scs.community/v1alpha1 SCSCluster or XSCSCluster\n",
			code:   ExitUsage,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// No objects and no discovery: render must not need a cluster.
			h := newHarness(t, flavourUnknown)
			stdin := ""
			if tc.stdin != nil {
				stdin = tc.stdin(t)
			}
			stdout, stderr, code := h.run(stdin, tc.args...)
			if diff := cmp.Diff(tc.stdout, stdout); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.stderr, stderr); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			if n := len(h.dyn.Actions()); n != 0 {
				t.Errorf("render sent %d requests to the API server, want none", n)
			}
		})
	}
}

// TestRenderYAMLReadsBack: the default output is one YAML stream whose objects carry the
// resource names Crossplane composes them under, so that it can be fed back as --observed.
func TestRenderYAMLReadsBack(t *testing.T) {
	h := newHarness(t, flavourUnknown)
	stdout, _, code := h.run("", "render", "-f", repo+"/examples/claims/gardener-minimal.yaml", "--environment", repo+"/examples/environments")
	if code != ExitOK {
		t.Fatalf("exit code %d", code)
	}
	objs, err := decodeManifests("stdout", strings.NewReader(stdout))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objs {
		got = append(got, o.GetKind()+" "+o.GetNamespace()+"/"+o.GetName()+" as "+o.GetAnnotations()[annotationResourceName])
	}
	want := []string{
		"Object team1/dev-mfn4yr-shoot as gardener-shoot",
		"Secret team1/dev-kubeconfig as kubeconfig-secret",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rendered objects (-want +got):\n%s", diff)
	}
}
