package adminkubeconfig

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/internal/garden"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/test/fakegarden"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/test/fakegarden/gardentest"
)

// env is one AdminKubeconfig, its ProviderConfig and a garden, with a clock the test moves.
type env struct {
	t      *testing.T
	clock  *clocktesting.FakeClock
	garden *gardentest.Garden
	kube   client.Client
	cr     *v1alpha1.AdminKubeconfig
	log    *logRecorder
	// issued collects every kubeconfig the garden handed out, for the leak checks.
	issued [][]byte
}

func newEnv(t *testing.T, token string, mutate ...func(*v1alpha1.AdminKubeconfig)) *env {
	t.Helper()
	clk := clocktesting.NewFakeClock(t0)
	g := gardentest.New(t, clk)
	cr := newAdminKubeconfig(mutate...)
	e := &env{t: t, clock: clk, garden: g, cr: cr, log: newLogRecorder()}
	e.kube = newKube(t, g.Kubeconfig(t, token), cr)
	t.Cleanup(func() { assertNoSecrets(t, "logs", e.log.Lines(), e.issued...) })
	return e
}

func (e *env) connect() managed.ExternalClient {
	e.t.Helper()
	c := &connector{
		kube:      e.kube,
		usage:     resource.NewLegacyProviderConfigUsageTracker(e.kube, &v1alpha1.ProviderConfigUsage{}),
		newIssuer: func(kc []byte) (Issuer, error) { return garden.NewClient(kc, "test") },
		clock:     e.clock,
		log:       e.log,
	}
	ext, err := c.Connect(context.Background(), e.cr)
	if err != nil {
		e.t.Fatalf("Connect: %v", err)
	}
	return ext
}

// publish writes connection details the way the managed reconciler does.
func (e *env) publish(cd managed.ConnectionDetails) {
	e.t.Helper()
	if _, err := managed.NewAPISecretPublisher(e.kube, e.kube.Scheme()).PublishConnection(context.Background(), e.cr, cd); err != nil {
		e.t.Fatalf("publishing: %v", err)
	}
	e.issued = append(e.issued, cd[KeyKubeconfig])
}

func (e *env) secret() *corev1.Secret {
	e.t.Helper()
	s := &corev1.Secret{}
	if err := e.kube.Get(context.Background(), client.ObjectKey{Namespace: secretNS, Name: secretName}, s); err != nil {
		e.t.Fatal(err)
	}
	return s
}

// issueFirst runs Create and publishes its details, as the first reconcile does, and then
// drops the status Create wrote, as the managed reconciler does.
func (e *env) issueFirst(ext managed.ExternalClient) managed.ConnectionDetails {
	e.t.Helper()
	c, err := ext.Create(context.Background(), e.cr)
	if err != nil {
		e.t.Fatalf("Create: %v", err)
	}
	e.publish(c.ConnectionDetails)
	e.cr.Status = v1alpha1.AdminKubeconfigStatus{}
	return c.ConnectionDetails
}

func observeOnce(t *testing.T, ext managed.ExternalClient, cr *v1alpha1.AdminKubeconfig) managed.ExternalObservation {
	t.Helper()
	o, err := ext.Observe(context.Background(), cr)
	if err != nil {
		t.Fatalf("Observe: %v", err)
	}
	return o
}

func wantReady(t *testing.T, cr *v1alpha1.AdminKubeconfig, status corev1.ConditionStatus, reason xpv2.ConditionReason) {
	t.Helper()
	c := cr.GetCondition(xpv2.TypeReady)
	if c.Status != status || c.Reason != reason {
		t.Errorf("Ready %s/%s (%s), want %s/%s", c.Status, c.Reason, c.Message, status, reason)
	}
}

func TestObserveBeforeTheFirstKubeconfig(t *testing.T) {
	e := newEnv(t, gardentest.AdminToken)
	if o := observeOnce(t, e.connect(), e.cr); o.ResourceExists {
		t.Errorf("exists before anything was issued: %+v", o)
	}
	if n := len(e.garden.Calls()); n != 0 {
		t.Errorf("Observe called the garden %d times; it must not call it at all", n)
	}
}

func TestCreateIssuesAndPublishesKubeconfigEndpointAndCA(t *testing.T) {
	e := newEnv(t, gardentest.AdminToken)
	ext := e.connect()
	c, err := ext.Create(context.Background(), e.cr)
	if err != nil {
		t.Fatal(err)
	}
	cd := c.ConnectionDetails
	e.issued = append(e.issued, cd[KeyKubeconfig])
	if len(cd[KeyKubeconfig]) == 0 || string(cd[KeyEndpoint]) != "https://api.dev.team1.example.com" || !bytes.Equal(cd[KeyCA], gardentest.ShootCA) {
		t.Errorf("connection details: kubeconfig %d bytes, endpoint %q, ca.crt %q", len(cd[KeyKubeconfig]), cd[KeyEndpoint], cd[KeyCA])
	}
	at := e.cr.Status.AtProvider
	if at.Shoot != "garden-team1/dev" || at.Server != "https://api.dev.team1.example.com" ||
		!at.IssuedAt.Equal(ptr.To(metav1.NewTime(t0))) ||
		!at.ExpirationTimestamp.Equal(ptr.To(metav1.NewTime(t0.Add(24*time.Hour)))) ||
		!at.RenewalTime.Equal(ptr.To(metav1.NewTime(t0.Add(16*time.Hour)))) {
		t.Errorf("status.atProvider %+v", at)
	}
	wantReady(t, e.cr, corev1.ConditionTrue, xpv2.ReasonAvailable)
	if _, ok := e.cr.GetAnnotations()[AnnotationIssuance]; !ok {
		t.Error("Create did not record the issuance in the annotation, the only thing the reconciler keeps from Create")
	}
}

// TestObserveAfterCreateKnowsTheKubeconfig is the round trip the managed reconciler imposes:
// it discards the status Create set, keeps the annotation and the published secret.
func TestObserveAfterCreateKnowsTheKubeconfig(t *testing.T) {
	e := newEnv(t, gardentest.AdminToken)
	ext := e.connect()
	cd := e.issueFirst(ext)

	e.clock.Step(time.Hour)
	o := observeOnce(t, ext, e.cr)
	if !o.ResourceExists || !o.ResourceUpToDate {
		t.Fatalf("after issuance: exists %v, up to date %v (%s)", o.ResourceExists, o.ResourceUpToDate, o.Diff)
	}
	if !bytes.Equal(o.ConnectionDetails[KeyKubeconfig], cd[KeyKubeconfig]) || string(o.ConnectionDetails[KeyEndpoint]) != string(cd[KeyEndpoint]) {
		t.Error("Observe returns other connection details than those published")
	}
	if at := e.cr.Status.AtProvider; at.RenewalTime == nil || !at.RenewalTime.Time.Equal(t0.Add(16*time.Hour)) {
		t.Errorf("status.atProvider not restored from the annotation: %+v", at)
	}
	wantReady(t, e.cr, corev1.ConditionTrue, xpv2.ReasonAvailable)
	if n := len(e.garden.Calls()); n != 1 {
		t.Errorf("garden called %d times, want 1", n)
	}
}

func TestRenewalBeforeExpiry(t *testing.T) {
	e := newEnv(t, gardentest.AdminToken)
	ext := e.connect()
	first := e.issueFirst(ext)

	// One second before the renewal time: up to date, and the reconciler is told to come
	// back in exactly one second whatever the poll interval.
	e.clock.SetTime(t0.Add(16*time.Hour - time.Second))
	if o := observeOnce(t, ext, e.cr); !o.ResourceUpToDate {
		t.Fatalf("due before the renewal time: %s", o.Diff)
	}
	if got := PollIntervalHook(e.clock)(e.cr, 10*time.Minute); got != time.Second {
		t.Errorf("requeue after %v, want 1s", got)
	}

	// At the renewal time, eight hours before expiry: due.
	e.clock.SetTime(t0.Add(16 * time.Hour))
	o := observeOnce(t, ext, e.cr)
	if !o.ResourceExists || o.ResourceUpToDate || !strings.Contains(o.Diff, "renewal due") {
		t.Fatalf("at the renewal time: exists %v, up to date %v, diff %q", o.ResourceExists, o.ResourceUpToDate, o.Diff)
	}
	wantReady(t, e.cr, corev1.ConditionTrue, xpv2.ReasonAvailable) // the old one still works

	u, err := ext.Update(context.Background(), e.cr)
	if err != nil {
		t.Fatal(err)
	}
	e.publish(u.ConnectionDetails)
	if bytes.Equal(u.ConnectionDetails[KeyKubeconfig], first[KeyKubeconfig]) {
		t.Error("renewal returned the old kubeconfig")
	}
	renewed := t0.Add(16 * time.Hour)
	at := e.cr.Status.AtProvider
	if !at.IssuedAt.Time.Equal(renewed) || !at.ExpirationTimestamp.Time.Equal(renewed.Add(24*time.Hour)) || !at.RenewalTime.Time.Equal(renewed.Add(16*time.Hour)) {
		t.Errorf("after renewal status.atProvider %+v", at)
	}
	if !bytes.Equal(e.secret().Data[KeyKubeconfig], u.ConnectionDetails[KeyKubeconfig]) {
		t.Error("the connection secret does not hold the renewed kubeconfig")
	}
	// The status record (from Update) is newer than the annotation (from Create) and wins.
	if o := observeOnce(t, ext, e.cr); !o.ResourceUpToDate {
		t.Errorf("due right after the renewal: %s", o.Diff)
	}
}

// TestRenewalPlansOnTheGrantedLifetime asks for a week; the garden grants 24 hours. Planning
// on the request would renew after the kubeconfig expired.
func TestRenewalPlansOnTheGrantedLifetime(t *testing.T) {
	e := newEnv(t, gardentest.AdminToken, func(cr *v1alpha1.AdminKubeconfig) {
		cr.Spec.ForProvider.ExpirationSeconds = ptr.To(int64(7 * 24 * 3600))
		cr.Spec.ForProvider.RenewBefore = &metav1.Duration{Duration: 48 * time.Hour}
	})
	ext := e.connect()
	if _, err := ext.Create(context.Background(), e.cr); err != nil {
		t.Fatal(err)
	}
	at := e.cr.Status.AtProvider
	if !at.ExpirationTimestamp.Time.Equal(t0.Add(24 * time.Hour)) {
		t.Fatalf("the fake garden did not cap: %v", at.ExpirationTimestamp)
	}
	// renewBefore 48h exceeds the granted 24h: capped at half of it.
	if !at.RenewalTime.Time.Equal(t0.Add(12 * time.Hour)) {
		t.Errorf("renewal at %v, want 12h after issuance", at.RenewalTime)
	}
}

func TestGardenUnreachableKeepsTheOldKubeconfig(t *testing.T) {
	e := newEnv(t, gardentest.AdminToken)
	ext := e.connect()
	first := e.issueFirst(ext)
	e.clock.SetTime(t0.Add(17 * time.Hour))
	observeOnce(t, ext, e.cr)
	before := e.cr.Status.AtProvider.DeepCopy()

	e.garden.SetReachable(false)
	_, err := ext.Update(context.Background(), e.cr)
	if garden.CauseOf(err) != garden.CauseUnreachable || !strings.HasPrefix(err.Error(), "GardenUnreachable: cannot issue an admin kubeconfig for Shoot garden-team1/dev: ") {
		t.Fatalf("Update error %v, want GardenUnreachable", err)
	}
	if got := e.cr.Status.AtProvider; !got.IssuedAt.Equal(before.IssuedAt) || !got.ExpirationTimestamp.Equal(before.ExpirationTimestamp) {
		t.Errorf("a failed renewal changed the record: %+v", got)
	}
	// The reconciler retries: Observe still serves the old kubeconfig, which still works.
	o := observeOnce(t, ext, e.cr)
	if !o.ResourceExists || o.ResourceUpToDate || !bytes.Equal(o.ConnectionDetails[KeyKubeconfig], first[KeyKubeconfig]) {
		t.Errorf("while the garden is down: exists %v, up to date %v, old kubeconfig kept %v", o.ResourceExists, o.ResourceUpToDate,
			bytes.Equal(o.ConnectionDetails[KeyKubeconfig], first[KeyKubeconfig]))
	}
	wantReady(t, e.cr, corev1.ConditionTrue, xpv2.ReasonAvailable)

	// Back up: the retry succeeds.
	e.garden.SetReachable(true)
	u, err := ext.Update(context.Background(), e.cr)
	if err != nil {
		t.Fatal(err)
	}
	e.issued = append(e.issued, u.ConnectionDetails[KeyKubeconfig])
	if !e.cr.Status.AtProvider.IssuedAt.Time.Equal(t0.Add(17 * time.Hour)) {
		t.Errorf("not renewed after the garden came back: %+v", e.cr.Status.AtProvider)
	}
}

func TestExpiredKubeconfigMakesTheResourceUnready(t *testing.T) {
	e := newEnv(t, gardentest.AdminToken)
	ext := e.connect()
	e.issueFirst(ext)
	e.clock.SetTime(t0.Add(24 * time.Hour))
	o := observeOnce(t, ext, e.cr)
	if !o.ResourceExists || o.ResourceUpToDate {
		t.Errorf("expired: exists %v, up to date %v", o.ResourceExists, o.ResourceUpToDate)
	}
	wantReady(t, e.cr, corev1.ConditionFalse, ReasonExpired)
}

func TestIssueFailuresNameTheCause(t *testing.T) {
	cases := map[string]struct {
		token  string
		mutate func(*v1alpha1.AdminKubeconfig)
		want   garden.Cause
		says   string
	}{
		"Shoot not found": {
			token:  gardentest.AdminToken,
			mutate: func(cr *v1alpha1.AdminKubeconfig) { cr.Spec.ForProvider.ShootName = "prod" },
			want:   garden.CauseShootNotFound, says: `ShootNotFound: cannot issue an admin kubeconfig for Shoot garden-team1/prod: shoots.core.gardener.cloud "prod" not found`,
		},
		"permission denied": {
			token: gardentest.ViewerToken,
			want:  garden.CausePermissionDenied, says: `PermissionDenied: cannot issue an admin kubeconfig for Shoot garden-team1/dev: the ProviderConfig's credentials may not create shoots/adminkubeconfig`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var mutate []func(*v1alpha1.AdminKubeconfig)
			if tc.mutate != nil {
				mutate = append(mutate, tc.mutate)
			}
			e := newEnv(t, tc.token, mutate...)
			c, err := e.connect().Create(context.Background(), e.cr)
			if garden.CauseOf(err) != tc.want || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("Create error %v, want one saying %q", err, tc.says)
			}
			if len(c.ConnectionDetails) != 0 || e.cr.Status.AtProvider.IssuedAt != nil {
				t.Error("a failed issuance produced details or a record")
			}
		})
	}
}

func TestAnotherShootIsIssuedAtOnce(t *testing.T) {
	e := newEnv(t, gardentest.AdminToken)
	ext := e.connect()
	e.issueFirst(ext)
	e.garden.Shoots.Put("garden-team1", "prod", &fakegarden.Shoot{
		AdvertisedAddresses: []fakegarden.Address{{Name: "external", URL: "https://api.prod.team1.example.com"}}, CABundle: gardentest.ShootCA,
	})
	e.cr.Spec.ForProvider.ShootName = "prod"
	o := observeOnce(t, ext, e.cr)
	if o.ResourceUpToDate || !strings.Contains(o.Diff, "garden-team1/dev, the spec names garden-team1/prod") {
		t.Errorf("up to date %v, diff %q", o.ResourceUpToDate, o.Diff)
	}
}

func TestDeletionHasNothingToDelete(t *testing.T) {
	e := newEnv(t, gardentest.AdminToken)
	ext := e.connect()
	e.issueFirst(ext)
	e.cr.SetDeletionTimestamp(ptr.To(metav1.NewTime(t0)))
	if o := observeOnce(t, ext, e.cr); o.ResourceExists {
		t.Error("a deleted AdminKubeconfig still reports a kubeconfig to delete")
	}
	if _, err := ext.Delete(context.Background(), e.cr); err != nil {
		t.Error(err)
	}
}

func TestConnectNeedsUsableGardenCredentials(t *testing.T) {
	exec := []byte("apiVersion: v1\nkind: Config\ncurrent-context: g\nclusters: [{name: g, cluster: {server: 'https://garden'}}]\n" +
		"contexts: [{name: g, context: {cluster: g, user: u}}]\nusers: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: id}}}]\n")
	cases := map[string]struct {
		kubeconfig []byte
		mutate     func(*v1alpha1.AdminKubeconfig)
		want       string
	}{
		"no such ProviderConfig": {kubeconfig: []byte("x"), mutate: func(cr *v1alpha1.AdminKubeconfig) { cr.Spec.ProviderConfigReference.Name = "other" },
			want: `cannot get ProviderConfig "other"`},
		"empty credentials": {kubeconfig: nil, want: `key "kubeconfig" of Secret crossplane-system/garden-credentials is missing or empty`},
		"exec plugin":       {kubeconfig: exec, want: "exec plugin"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr := newAdminKubeconfig()
			if tc.mutate != nil {
				tc.mutate(cr)
			}
			kube := newKube(t, tc.kubeconfig, cr)
			c := &connector{kube: kube, usage: resource.NewLegacyProviderConfigUsageTracker(kube, &v1alpha1.ProviderConfigUsage{}),
				newIssuer: func(kc []byte) (Issuer, error) { return garden.NewClient(kc, "test") }, clock: clocktesting.NewFakeClock(t0), log: newLogRecorder()}
			_, err := c.Connect(context.Background(), cr)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Connect error %v, want one about %q", err, tc.want)
			}
		})
	}
}

func TestPollIntervalHook(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	hook := PollIntervalHook(clk)
	cr := newAdminKubeconfig()
	if got := hook(cr, 10*time.Minute); got != 10*time.Minute {
		t.Errorf("without a renewal time: %v, want the poll interval", got)
	}
	cr.Status.AtProvider.RenewalTime = ptr.To(metav1.NewTime(t0.Add(3 * time.Minute)))
	if got := hook(cr, 10*time.Minute); got != 3*time.Minute {
		t.Errorf("renewal in 3m, poll 10m: %v", got)
	}
	if got := hook(cr, time.Minute); got != time.Minute {
		t.Errorf("renewal in 3m, poll 1m: %v", got)
	}
}
