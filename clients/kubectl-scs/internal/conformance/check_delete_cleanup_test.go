package conformance

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
)

// TestInterruptCleansUp: cancelling the run (SIGINT) while it waits for a cluster still
// deletes what it created, and skips the checks it did not reach.
func TestInterruptCleansUp(t *testing.T) {
	p := newProvider(t, environmentConfig(t, `["1.33", "1.34"]`))
	p.never = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p.onCreate = func(string) { cancel() }
	k := p.kit()
	k.Options.Timeout = time.Minute
	out := runKit(ctx, t, k)
	if left := p.remaining(t); len(left) > 0 {
		t.Errorf("clusters left after an interrupt: %v", left)
	}
	if r := result(out, "create-ready-1.33"); r.Verdict != Failed || !strings.Contains(r.Message, "interrupted") {
		t.Errorf("create-ready-1.33 = %+v, want failed as interrupted", r)
	}
	if r := result(out, "create-ready-1.34"); r.Verdict != Skipped {
		t.Errorf("create-ready-1.34 = %+v, want skipped", r)
	}
	if r := result(out, "delete-cleanup"); r.Verdict != Passed {
		t.Errorf("delete-cleanup = %+v, want passed", r)
	}
	if out.Passed() {
		t.Error("an interrupted run passed")
	}
}

// TestCleanupLeftoversFail: a cluster that does not go within the timeout fails the run and
// is named.
func TestCleanupLeftoversFail(t *testing.T) {
	p := newProvider(t, environmentConfig(t, `["1.34"]`))
	p.dyn.PrependReactor("delete", "scsclusters", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, nil // accepted, but the cluster stays (a finalizer that never ends)
	})
	k := p.kit()
	k.Options.CleanupTimeout = 50 * time.Millisecond
	out := runKit(context.Background(), t, k)
	if out.Passed() {
		t.Fatal("a run that left a cluster passed")
	}
	if got := strings.Join(out.Leftovers, ","); got != "SCSCluster team1/conformance-t1-1-34" {
		t.Errorf("leftovers = %q", got)
	}
}
