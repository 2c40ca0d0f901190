package adminkubeconfig

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpfake "github.com/crossplane/crossplane-runtime/v2/pkg/resource/fake"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/test/fakegarden"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/test/fakegarden/gardentest"
)

// These tests drive crossplane-runtime's real managed reconciler (as the controller runs it)
// against a controller-runtime fake API server and the fake garden. What they add over the
// external client tests: the reconciler's own handling of Create (status dropped,
// annotations kept), connection secret publishing, requeue results, conditions and events.

const poll = 10 * time.Minute

type rig struct {
	t      *testing.T
	clock  *clocktesting.FakeClock
	garden *gardentest.Garden
	kube   client.Client
	r      *managed.Reconciler
	log    *logRecorder
	events *eventRecorder
	seen   [][]byte // every kubeconfig that reached the connection secret
}

func newRig(t *testing.T, token string, mutate ...func(*v1alpha1.AdminKubeconfig)) *rig {
	t.Helper()
	clk := clocktesting.NewFakeClock(t0)
	g := gardentest.New(t, clk)
	x := &rig{t: t, clock: clk, garden: g, log: newLogRecorder(), events: newEventRecorder()}
	x.kube = newKube(t, g.Kubeconfig(t, token), newAdminKubeconfig(mutate...))
	mgr := &xpfake.Manager{Client: x.kube, Scheme: x.kube.Scheme()}
	x.r = NewReconciler(mgr, Options{Logger: x.log, Recorder: x.events, PollInterval: poll, Clock: clk, UserAgent: "test"})
	t.Cleanup(func() {
		assertNoSecrets(t, "logs", x.log.Lines(), x.seen...)
		assertNoSecrets(t, "events", x.events.Events(), x.seen...)
	})
	return x
}

func (x *rig) reconcile() reconcile.Result {
	x.t.Helper()
	res, err := x.r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Name: mrName}})
	if err != nil {
		x.t.Fatalf("Reconcile: %v", err)
	}
	if s := x.secret(); s != nil {
		x.seen = append(x.seen, s.Data[KeyKubeconfig])
	}
	return res
}

func (x *rig) cr() *v1alpha1.AdminKubeconfig {
	x.t.Helper()
	cr := &v1alpha1.AdminKubeconfig{}
	if err := x.kube.Get(context.Background(), types.NamespacedName{Name: mrName}, cr); err != nil {
		x.t.Fatal(err)
	}
	return cr
}

func (x *rig) secret() *corev1.Secret {
	x.t.Helper()
	s := &corev1.Secret{}
	err := x.kube.Get(context.Background(), types.NamespacedName{Namespace: secretNS, Name: secretName}, s)
	if kerrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		x.t.Fatal(err)
	}
	return s
}

func (x *rig) kubeconfig() []byte {
	x.t.Helper()
	s := x.secret()
	if s == nil {
		x.t.Fatal("no connection secret")
	}
	return s.Data[KeyKubeconfig]
}

func wantCondition(t *testing.T, cr resource.Conditioned, ct xpv2.ConditionType, status corev1.ConditionStatus, reason xpv2.ConditionReason, message string) {
	t.Helper()
	c := cr.GetCondition(ct)
	if c.Status != status || c.Reason != reason || !strings.Contains(c.Message, message) {
		t.Errorf("%s = %s/%s %q; want %s/%s containing %q", ct, c.Status, c.Reason, c.Message, status, reason, message)
	}
}

func (x *rig) wantEvent(eventType, reason, message string) {
	x.t.Helper()
	for _, e := range x.events.Events() {
		if strings.HasPrefix(e, eventType+" "+reason+" ") && strings.Contains(e, message) {
			return
		}
	}
	x.t.Errorf("no %s event %s saying %q in %q", eventType, reason, message, x.events.Events())
}

func TestReconcilerWritesAndRenewsTheConnectionSecret(t *testing.T) {
	x := newRig(t, gardentest.AdminToken)

	// First reconcile: Create issues, the reconciler publishes.
	res := x.reconcile()
	s := x.secret()
	if s == nil || len(s.Data[KeyKubeconfig]) == 0 || string(s.Data[KeyEndpoint]) != "https://api.dev.team1.example.com" || !bytes.Equal(s.Data[KeyCA], gardentest.ShootCA) {
		t.Fatalf("connection secret after the first reconcile: %v", s)
	}
	if !metav1.IsControlledBy(s, x.cr()) {
		t.Error("the connection secret is not controlled by the AdminKubeconfig (it would not be garbage collected)")
	}
	if !res.Requeue {
		t.Errorf("after Create: %+v, want an immediate requeue", res)
	}
	wantCondition(t, x.cr(), xpv2.TypeReady, corev1.ConditionFalse, xpv2.ReasonCreating, "")
	first := x.kubeconfig()

	// Second reconcile: Observe finds it, Ready, status filled in, back after the poll interval.
	x.clock.Step(time.Minute)
	if res := x.reconcile(); res.RequeueAfter != poll {
		t.Errorf("up to date: %+v, want the poll interval", res)
	}
	cr := x.cr()
	wantCondition(t, cr, xpv2.TypeReady, corev1.ConditionTrue, xpv2.ReasonAvailable, "")
	wantCondition(t, cr, xpv2.TypeSynced, corev1.ConditionTrue, xpv2.ReasonReconcileSuccess, "")
	if at := cr.Status.AtProvider; at.ExpirationTimestamp == nil || !at.ExpirationTimestamp.Time.Equal(t0.Add(24*time.Hour)) ||
		!at.RenewalTime.Time.Equal(t0.Add(16*time.Hour)) || at.Server != "https://api.dev.team1.example.com" {
		t.Errorf("status.atProvider %+v", at)
	}
	if len(x.garden.Calls()) != 1 {
		t.Errorf("garden called %d times for one kubeconfig", len(x.garden.Calls()))
	}

	// Close to the renewal time the reconciler comes back at the renewal time, not after
	// the poll interval.
	x.clock.SetTime(t0.Add(16*time.Hour - 4*time.Minute))
	if res := x.reconcile(); res.RequeueAfter != 4*time.Minute {
		t.Errorf("4m before the renewal: %+v, want RequeueAfter 4m", res)
	}

	// At the renewal time: Update issues a new one, the secret is renewed in place.
	x.clock.SetTime(t0.Add(16 * time.Hour))
	if res := x.reconcile(); res.RequeueAfter != poll {
		t.Errorf("after the renewal: %+v", res)
	}
	renewed := x.kubeconfig()
	if bytes.Equal(renewed, first) {
		t.Fatal("the connection secret still holds the first kubeconfig")
	}
	if at := x.cr().Status.AtProvider; !at.IssuedAt.Time.Equal(t0.Add(16*time.Hour)) || !at.ExpirationTimestamp.Time.Equal(t0.Add(40*time.Hour)) {
		t.Errorf("status after renewal %+v", at)
	}
	x.wantEvent("Normal", "UpdatedExternalResource", "")
	if n := len(x.garden.Calls()); n != 2 {
		t.Errorf("garden called %d times for two kubeconfigs", n)
	}
}

func TestReconcilerKeepsTheSecretWhileTheGardenIsUnreachable(t *testing.T) {
	x := newRig(t, gardentest.AdminToken)
	x.reconcile()
	x.reconcile()
	old := x.kubeconfig()

	x.garden.SetReachable(false)
	x.clock.SetTime(t0.Add(20 * time.Hour))
	for attempt := 1; attempt <= 3; attempt++ {
		// Requeue without RequeueAfter hands the retry to the controller's rate limiter:
		// exponential backoff per resource.
		if res := x.reconcile(); !res.Requeue || res.RequeueAfter != 0 {
			t.Errorf("attempt %d: %+v, want a rate-limited requeue", attempt, res)
		}
		if !bytes.Equal(x.kubeconfig(), old) {
			t.Fatalf("attempt %d: the connection secret lost the old kubeconfig", attempt)
		}
		cr := x.cr()
		wantCondition(t, cr, xpv2.TypeSynced, corev1.ConditionFalse, xpv2.ReasonReconcileError,
			"update failed: GardenUnreachable: cannot issue an admin kubeconfig for Shoot garden-team1/dev")
		wantCondition(t, cr, xpv2.TypeReady, corev1.ConditionTrue, xpv2.ReasonAvailable, "")
	}
	x.wantEvent("Warning", "CannotUpdateExternalResource", "GardenUnreachable")

	// Past the expiry the old kubeconfig is useless: Ready says so, the secret stays.
	x.clock.SetTime(t0.Add(25 * time.Hour))
	x.reconcile()
	wantCondition(t, x.cr(), xpv2.TypeReady, corev1.ConditionFalse, ReasonExpired, "expired at 2026-11-04T08:00:00Z")

	x.garden.SetReachable(true)
	x.reconcile()
	if bytes.Equal(x.kubeconfig(), old) {
		t.Error("not renewed after the garden came back")
	}
	cr := x.cr()
	wantCondition(t, cr, xpv2.TypeSynced, corev1.ConditionTrue, xpv2.ReasonReconcileSuccess, "")
	wantCondition(t, cr, xpv2.TypeReady, corev1.ConditionTrue, xpv2.ReasonAvailable, "")
}

func TestReconcilerReportsAMissingShootAndRecovers(t *testing.T) {
	x := newRig(t, gardentest.AdminToken, func(cr *v1alpha1.AdminKubeconfig) { cr.Spec.ForProvider.ShootName = "prod" })
	if res := x.reconcile(); !res.Requeue {
		t.Errorf("%+v, want a rate-limited requeue", res)
	}
	cr := x.cr()
	wantCondition(t, cr, xpv2.TypeSynced, corev1.ConditionFalse, xpv2.ReasonReconcileError,
		`create failed: ShootNotFound: cannot issue an admin kubeconfig for Shoot garden-team1/prod: shoots.core.gardener.cloud "prod" not found`)
	wantCondition(t, cr, xpv2.TypeReady, corev1.ConditionFalse, xpv2.ReasonCreating, "")
	x.wantEvent("Warning", "CannotCreateExternalResource", "ShootNotFound")
	if s := x.secret(); s != nil && len(s.Data[KeyKubeconfig]) > 0 {
		t.Error("a kubeconfig was published for a Shoot that does not exist")
	}

	// The Shoot appears (Gardener created it after all): the next retry issues.
	x.garden.Shoots.Put("garden-team1", "prod", &fakegarden.Shoot{
		AdvertisedAddresses: []fakegarden.Address{{Name: "external", URL: "https://api.prod.team1.example.com"}}, CABundle: gardentest.ShootCA,
	})
	x.clock.Step(time.Minute)
	x.reconcile()
	if s := x.secret(); s == nil || string(s.Data[KeyEndpoint]) != "https://api.prod.team1.example.com" {
		t.Errorf("no kubeconfig after the Shoot appeared: %v", s)
	}
}

func TestReconcilerReportsMissingPermission(t *testing.T) {
	x := newRig(t, gardentest.ViewerToken)
	x.reconcile()
	wantCondition(t, x.cr(), xpv2.TypeSynced, corev1.ConditionFalse, xpv2.ReasonReconcileError,
		`create failed: PermissionDenied: cannot issue an admin kubeconfig for Shoot garden-team1/dev: the ProviderConfig's credentials may not create shoots/adminkubeconfig: shoots.core.gardener.cloud "dev" is forbidden: User "viewer" cannot create resource "shoots/adminkubeconfig"`)
	x.wantEvent("Warning", "CannotCreateExternalResource", "PermissionDenied")
}

func TestReconcilerDeletesWithoutCallingTheGarden(t *testing.T) {
	x := newRig(t, gardentest.AdminToken)
	x.reconcile()
	x.reconcile()
	if err := x.kube.Delete(context.Background(), x.cr()); err != nil {
		t.Fatal(err)
	}
	x.reconcile()
	err := x.kube.Get(context.Background(), types.NamespacedName{Name: mrName}, &v1alpha1.AdminKubeconfig{})
	if !kerrors.IsNotFound(err) {
		cr := x.cr()
		t.Errorf("the AdminKubeconfig was not released for deletion: finalizers %v, conditions %+v, logs %q", cr.GetFinalizers(), cr.Status.Conditions, x.log.Lines())
	}
	if n := len(x.garden.Calls()); n != 1 {
		t.Errorf("garden called %d times; deletion must not call it", n)
	}
}
