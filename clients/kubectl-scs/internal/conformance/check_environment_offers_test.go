package conformance

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
)

// TestDiscoverFromStatusOffered: a team that may not read EnvironmentConfigs learns the
// offer from a cluster of its namespace in that environment.
func TestDiscoverFromStatusOffered(t *testing.T) {
	existing := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kaas.scs.community/v1alpha1", "kind": "SCSCluster",
		"metadata": map[string]any{"name": "dev", "namespace": "team1"},
		"spec":     map[string]any{"kubernetes": map[string]any{"version": "1.34"}},
		"status": map[string]any{
			"backend": map[string]any{"environment": "gardener-regionone"},
			"offered": map[string]any{"kubernetesVersions": []any{"1.34"}, "machineTypes": []any{"SCS-2V-4"}},
		},
	}}
	p := newProvider(t, existing)
	p.dyn.PrependReactor("list", "environmentconfigs", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apiextensions.crossplane.io", Resource: "environmentconfigs"}, "", errors.New("no"))
	})
	out := runKit(context.Background(), t, p.kit())
	if r := result(out, "environment-offers"); r.Verdict != Passed || !strings.Contains(r.Message, "status.offered of SCSCluster dev") {
		t.Errorf("environment-offers = %+v", r)
	}
	if r := result(out, "node-zones-1.34"); r.Verdict != Skipped || r.Message != "the environment offers no zones" {
		t.Errorf("node-zones-1.34 = %+v, want skipped", r)
	}
	if got := p.remaining(t); len(got) != 1 || got[0] != "dev" {
		t.Errorf("the run touched a cluster it did not create: %v", got)
	}
}

// TestDiscoverByProbing: a team that may read neither EnvironmentConfigs nor has a cluster in
// the environment gives --minors and --machine-type; the offer comes from the first cluster.
func TestDiscoverByProbing(t *testing.T) {
	p := newProvider(t)
	p.dyn.PrependReactor("list", "environmentconfigs", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "apiextensions.crossplane.io", Resource: "environmentconfigs"}, "", errors.New("no"))
	})
	k := p.kit("1.34")
	k.Options.MachineType = "SCS-2V-4"
	out := runKit(context.Background(), t, k)
	want := "create-ready-1.34=passed environment-offers=passed kubeconfig-version-1.34=passed node-zones-1.34=passed addons-1.34=passed " +
		"scale-pool=passed upgrade-minor=passed refused-change=passed delete-cleanup=passed"
	if got := verdicts(out); got != want {
		t.Errorf("verdicts:\n got %s\nwant %s\n%s", got, want, messages(out))
	}
	if m := result(out, "environment-offers").Message; !strings.Contains(m, "offers Kubernetes 1.33, 1.34, 1.35") || !strings.Contains(m, "status.offered of SCSCluster conformance-t1-1-34") {
		t.Errorf("environment-offers message = %q", m)
	}
	// Without --machine-type the kit cannot create a cluster to learn from.
	k = p.kit("1.34")
	out = runKit(context.Background(), t, k)
	if r := result(out, "environment-offers"); r.Verdict != Failed || !strings.Contains(r.Message, "give --minors and --machine-type") {
		t.Errorf("environment-offers without --machine-type = %+v", r)
	}
	// A first cluster that never becomes Ready leaves the offer unknown: a failure.
	p.never = true
	k = p.kit("1.34")
	k.Options.MachineType = "SCS-2V-4"
	k.Options.Timeout = 50 * time.Millisecond
	out = runKit(context.Background(), t, k)
	if r := result(out, "environment-offers"); r.Verdict != Failed || !strings.Contains(r.Message, "no cluster became Ready to report status.offered") {
		t.Errorf("environment-offers with no Ready cluster = %+v\n%s", r, messages(out))
	}
}

func TestDiscoverNothingReadable(t *testing.T) {
	p := newProvider(t, environmentConfig(t, `["1.34"]`))
	k := p.kit()
	k.Options.Environment = "other"
	out := runKit(context.Background(), t, k)
	r := result(out, "environment-offers")
	if r.Verdict != Failed || !strings.Contains(r.Message, "no EnvironmentConfig labelled kaas.scs.community/environment=other admits namespace team1") {
		t.Errorf("environment-offers = %+v", r)
	}
	if got := verdicts(out); got != "environment-offers=failed delete-cleanup=skipped" {
		t.Errorf("verdicts = %s", got)
	}
}
