package cli

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// addonsMember is a Ready cluster whose monitoring add-on fails and whose old one left the
// catalog, as the function reports them.
const addonsMember = `
apiVersion: kaas.scs.community/v1alpha1
kind: SCSCluster
metadata: {name: shop, namespace: team1}
spec:
  kubernetes: {version: "1.34"}
  nodePools: [{name: default, machineType: SCS-4V-8, count: 1}]
status:
  phase: Ready
  backend: {type: magnum, environment: magnum-regionone}
  kubernetes: {version: 1.34.2}
  addons:
  - {name: base, revision: "v1@sha256:1", ready: true}
  - {name: monitoring, ready: false, message: "False (ArtifactFailed): artifact not found"}
  - {name: old, revision: "v0@sha256:0", ready: true, retained: true}
  conditions:
  - {type: AddonsReady, status: "False", reason: ArtifactFailed, message: "add-ons not ready: monitoring: False (ArtifactFailed): artifact not found"}
`

// TestDescribeAddons: describe lists each add-on as Flux reports it, and says which one the
// catalog dropped; a cluster without AddonsReady (no catalog) gets no section.
func TestDescribeAddons(t *testing.T) {
	var out bytes.Buffer
	describeAddons(&out, object(t, addonsMember))
	want := `Add-ons:        AddonsReady False (ArtifactFailed)
  NAME         READY   REVISION      MESSAGE
  base         true    v1@sha256:1   -
  monitoring   false   -             False (ArtifactFailed): artifact not found
  old          true    v0@sha256:0   left the catalog: stays as it was until disabled
`
	if d := cmp.Diff(want, out.String()); d != "" {
		t.Errorf("-want +got:\n%s", d)
	}
	out.Reset()
	describeAddons(&out, fleetMember(t, "team1", "fine", "gardener", "1.34.2", "1.35", `"1.34"`, "", `{type: KubeconfigReady, status: "True"}`))
	if out.Len() != 0 {
		t.Errorf("a cluster without add-ons shows %q", out.String())
	}
}

// TestFleetAddonsDue: a failing add-on and one the catalog dropped are due.
func TestFleetAddonsDue(t *testing.T) {
	h := newHarness(t, flavourNamespaced, object(t, addonsMember))
	stdout, stderr, code := h.run("", "fleet", "--due")
	want := `NAMESPACE   NAME   ENVIRONMENT        BACKEND   VERSION   PHASE   NEXT MINOR   NEXT UPDATE   KUBECONFIG UNTIL   DUE
team1       shop   magnum-regionone   magnum    1.34.2    Ready   none         -             -                  add-on monitoring failing (ArtifactFailed); add-on old left the catalog
`
	if d := cmp.Diff(want, stdout); d != "" {
		t.Errorf("stdout -want +got:\n%s", d)
	}
	if stderr != "error: 1 cluster is due\n" || code != ExitDue {
		t.Errorf("stderr %q, exit code %d; want the cluster due, exit %d", stderr, code, ExitDue)
	}
}
