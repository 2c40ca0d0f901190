package main

import (
	"strings"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
)

// claimedBy turns an example composite into the composite of another claim.
func claimedBy(xr map[string]any, namespace, name string) map[string]any {
	c := deepCopy(xr)
	meta := c["metadata"].(map[string]any)
	meta["name"] = name + "-q4m7z"
	meta["labels"] = map[string]any{"crossplane.io/claim-namespace": namespace, "crossplane.io/claim-name": name}
	return c
}

// nativeName is the cluster's name in the backend, as the response records it.
func nativeName(t *testing.T, rsp *fnv1.RunFunctionResponse) string {
	t.Helper()
	for _, r := range rsp.GetResults() {
		if r.GetSeverity() == fnv1.Severity_SEVERITY_FATAL {
			t.Fatalf("refused: %s", r.GetMessage())
		}
	}
	return rsp.GetDesired().GetComposite().GetResource().GetFields()["status"].GetStructValue().GetFields()["backend"].GetStructValue().GetFields()["name"].GetStringValue()
}

// TestAnyClaimNameOnEveryBackend: a claim name as long as Kubernetes allows renders on every
// backend, within each backend's limits (Gardener's 21 characters for project and Shoot),
// and the same claim name in two namespaces gives two clusters.
func TestAnyClaimNameOnEveryBackend(t *testing.T) {
	const long = "payments-production-eu-central-blue-green-canary"
	backends := map[string]struct {
		xr    string
		extra func(*fnv1.RunFunctionRequest) *fnv1.RunFunctionRequest
		max   int
	}{
		"gardener": {xr: exampleXR, max: 21 - len("team1")},
		"clusterstack": {xr: exampleCAPIXR, max: 40, extra: func(r *fnv1.RunFunctionRequest) *fnv1.RunFunctionRequest {
			return withRequired(t, withRequired(t, r, "clusterstack-releases", readObjects(t, exampleCAPIReleases)), "clusterstack-kubeconfig", nil)
		}},
		"magnum": {xr: exampleMagnumXR, max: 40},
	}
	for name, b := range backends {
		t.Run(name, func(t *testing.T) {
			render := func(namespace, claim string) *fnv1.RunFunctionResponse {
				req := requestFor(t, claimedBy(readObject(t, b.xr), namespace, claim), readDir(t, exampleEnvironments))
				if b.extra != nil {
					req = b.extra(req)
				}
				rsp, _ := runNew(t, req)
				return rsp
			}
			longName := nativeName(t, render("team1", long))
			if len(longName) > b.max || !strings.HasPrefix(longName, "payments-") {
				t.Errorf("claim %s renders as %q: want at most %d characters, starting with the claim's name", long, longName, b.max)
			}
			if a, b := nativeName(t, render("team1", "dev")), nativeName(t, render("team2", "dev")); a == b {
				t.Errorf("claims dev in team1 and team2 both render as %q", a)
			}
		})
	}
	compareGolden(t, "gardener-create-long-name", run(t, lookedOut(t, requestFor(t, claimedBy(readObject(t, exampleXR), "team1", long), readDir(t, exampleEnvironments)))))
}
