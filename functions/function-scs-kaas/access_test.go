package main

import (
	"strings"
	"testing"

	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// TestAccessEditsReplaceNothing (issue 45): adding an OIDC issuer to a Ready cluster of
// every backend and flavour either renders with nothing taken back (no composed resource
// dropped or given another identity, no delivered key lost), or is refused whole where the
// backend cannot change it in place (Magnum's labels are ForceNew), naming the field.
func TestAccessEditsReplaceNothing(t *testing.T) {
	want := map[string]string{ // "" renders; else the refusal names this
		"gardener/legacy": "", "gardener/namespaced": "",
		// The examples map no oidcConfig variable (the pinned scs2 cannot apply it): refused
		// rather than left without.
		"clusterstack/legacy":            "data.clusterStack.variableNames.oidcConfig",
		"clusterstack/namespaced":        "data.clusterStack.variableNames.oidcConfig",
		"clusterstack-remote/legacy":     "data.clusterStack.variableNames.oidcConfig",
		"clusterstack-remote/namespaced": "data.clusterStack.variableNames.oidcConfig",
		"magnum/legacy":                  "spec.access.oidc: Forbidden",
		"magnum/namespaced":              "spec.access.oidc: Forbidden",
		"gardener/legacy+addons":         "",
		"magnum/namespaced+addons":       "spec.access.oidc: Forbidden",
	}
	for _, c := range readyClusters(t) {
		t.Run(c.name, func(t *testing.T) {
			refusal, ok := want[c.name]
			if !ok {
				t.Fatalf("no expectation for %s", c.name)
			}
			req := proto.Clone(c.req).(*fnv1.RunFunctionRequest)
			spec := req.GetObserved().GetComposite().GetResource().GetFields()["spec"].GetStructValue()
			access, err := structpb.NewValue(map[string]any{"oidc": map[string]any{
				"issuerURL": "https://login.example.com/realms/team", "clientID": "kubectl", "groupsClaim": "groups"}})
			if err != nil {
				t.Fatal(err)
			}
			spec.GetFields()["access"] = access
			rsp := run(t, req)
			r := fatalResult(rsp)
			switch {
			case refusal == "" && r != nil:
				t.Fatalf("refused: %s", r.GetMessage())
			case refusal != "" && (r == nil || !strings.Contains(r.GetMessage(), refusal)):
				t.Fatalf("result %v, want a refusal naming %q", r, refusal)
			case refusal != "":
				return
			}
			checkNothingTakenBack(t, req, rsp)
			// The issuer reaches the backend's native object (not only the people's kubeconfig).
			carried := false
			for _, r := range rsp.GetDesired().GetResources() {
				if r.GetResource().GetFields()["kind"].GetStringValue() != "Secret" && strings.Contains(r.GetResource().String(), "https://login.example.com/realms/team") {
					carried = true
				}
			}
			if !carried {
				t.Errorf("no desired resource carries the issuer")
			}
		})
	}
}
