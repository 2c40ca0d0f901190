package adminkubeconfig

import (
	"bytes"
	"context"
	"strings"
	"sync"
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
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	namespaced "github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/namespaced/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/internal/garden"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/test/fakegarden/gardentest"
)

// The namespaced AdminKubeconfig of gardener.m.kaas.scs.community: the same issuance and
// renewal as the cluster-scoped one (tested above), so these tests cover what differs: which
// provider config the connector picks, the namespace rule for namespaced ProviderConfigs,
// and where the connection secret goes.

const (
	tenantNS = "team1"
	otherNS  = "team2"
)

// secretReads records every Secret the fake API server was asked for.
type secretReads struct {
	mu   sync.Mutex
	keys []types.NamespacedName
}

func (r *secretReads) add(k types.NamespacedName) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys = append(r.keys, k)
}

func (r *secretReads) read(k types.NamespacedName) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, got := range r.keys {
		if got == k {
			return true
		}
	}
	return false
}

func credentialsSecret(ns string, kc []byte) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: credsName}, Data: map[string][]byte{credentialKey: kc}}
}

func secretRef(ns string) *xpv2.SecretKeySelector {
	return &xpv2.SecretKeySelector{SecretReference: xpv2.SecretReference{Namespace: ns, Name: credsName}, Key: credentialKey}
}

func credentialsSpec(ns string) v1alpha1.ProviderConfigSpec {
	return v1alpha1.ProviderConfigSpec{Credentials: v1alpha1.ProviderCredentials{Source: xpv2.CredentialsSourceSecret, SecretRef: secretRef(ns)}}
}

// newNamespacedKube returns a fake API server with
//
//   - ClusterProviderConfig default, whose Secret (crossplane-system) holds clusterKC;
//   - in namespace team1: ProviderConfig default (the same name, to show that the kind decides)
//     and ProviderConfig implicit (secretRef without a namespace), both with the Secret of
//     team1, which holds tenantKC; ProviderConfig sneaky, which names the Secret in
//     crossplane-system;
//   - in namespace team2: ProviderConfig elsewhere with team2's own Secret;
//
// and the objects given. It records every Secret read.
func newNamespacedKube(t *testing.T, clusterKC, tenantKC []byte, objs ...client.Object) (client.Client, *secretReads) {
	t.Helper()
	reads := &secretReads{}
	all := []client.Object{
		credentialsSecret(secretNS, clusterKC),
		credentialsSecret(tenantNS, tenantKC),
		credentialsSecret(otherNS, []byte("team2 credentials")),
		&namespaced.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: credentialsSpec(secretNS)},
		&namespaced.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "default"}, Spec: credentialsSpec(tenantNS)},
		&namespaced.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "implicit"}, Spec: credentialsSpec("")},
		&namespaced.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "sneaky"}, Spec: credentialsSpec(secretNS)},
		&namespaced.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: otherNS, Name: "elsewhere"}, Spec: credentialsSpec(otherNS)},
	}
	kube := fake.NewClientBuilder().
		WithScheme(newScheme(t)).
		WithObjects(append(all, objs...)...).
		WithStatusSubresource(&namespaced.AdminKubeconfig{}, &namespaced.ProviderConfig{}, &namespaced.ClusterProviderConfig{}).
		WithInterceptorFuncs(interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if _, ok := obj.(*corev1.Secret); ok {
				reads.add(key)
			}
			return c.Get(ctx, key, obj, opts...)
		}}).
		Build()
	return kube, reads
}

// newNamespacedAdminKubeconfig is a namespaced AdminKubeconfig in team1 as a composition of a
// namespaced composite writes it.
func newNamespacedAdminKubeconfig(mutate ...func(*namespaced.AdminKubeconfig)) *namespaced.AdminKubeconfig {
	cr := &namespaced.AdminKubeconfig{
		TypeMeta:   metav1.TypeMeta{APIVersion: namespaced.SchemeGroupVersion.String(), Kind: namespaced.AdminKubeconfigKind},
		ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: mrName, UID: mrUID},
		Spec: namespaced.AdminKubeconfigSpec{
			ManagedResourceSpec: xpv2.ManagedResourceSpec{
				ProviderConfigReference:          &xpv2.ProviderConfigReference{Kind: namespaced.ClusterProviderConfigKind, Name: "default"},
				WriteConnectionSecretToReference: &xpv2.LocalSecretReference{Name: secretName},
				ManagementPolicies:               xpv2.ManagementPolicies{xpv2.ManagementActionAll},
			},
			ForProvider: v1alpha1.AdminKubeconfigParameters{
				Namespace: "garden-team1", ShootName: "dev", ExpirationSeconds: ptr.To(v1alpha1.DefaultExpirationSeconds),
			},
		},
	}
	for _, m := range mutate {
		m(cr)
	}
	return cr
}

// stubIssuer stands for a garden client; it is never called in the connector tests.
type stubIssuer struct{}

func (stubIssuer) Issue(context.Context, garden.Request) (*garden.Issued, error) {
	panic("the connector tests issue nothing")
}

func TestNamespacedConnectorPicksTheProviderConfigKind(t *testing.T) {
	clusterKC, tenantKC := []byte("credentials of the ClusterProviderConfig"), []byte("credentials of team1")
	cases := map[string]struct {
		ref  xpv2.ProviderConfigReference
		want []byte // the credentials the issuer must be built from
		// or the error Connect must return, and the Secret it must not have read.
		wantErr   string
		notRead   *types.NamespacedName
		noSecrets bool
	}{
		"ClusterProviderConfig, the default kind": {
			ref: xpv2.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "default"}, want: clusterKC,
		},
		"ProviderConfig of the same name in the resource's namespace": {
			ref: xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "default"}, want: tenantKC,
		},
		"ProviderConfig whose secretRef has no namespace reads its own namespace": {
			ref: xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "implicit"}, want: tenantKC,
		},
		"ProviderConfig naming another namespace's Secret is refused before reading it": {
			ref:     xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "sneaky"},
			wantErr: `SecretOutsideNamespace: ProviderConfig "sneaky" in namespace "team1" refers to Secret crossplane-system/garden-credentials: a namespaced ProviderConfig may only use a Secret in its own namespace`,
			notRead: &types.NamespacedName{Namespace: secretNS, Name: credsName}, noSecrets: true,
		},
		"ProviderConfig of another namespace is not found": {
			ref:     xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "elsewhere"},
			wantErr: `cannot get ProviderConfig "elsewhere" in namespace "team1"`, noSecrets: true,
		},
		"missing ClusterProviderConfig": {
			ref: xpv2.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "garden"}, wantErr: `cannot get ClusterProviderConfig "garden"`, noSecrets: true,
		},
		"unknown kind": {
			ref: xpv2.ProviderConfigReference{Kind: "ProviderConfigs", Name: "default"}, wantErr: `spec.providerConfigRef.kind "ProviderConfigs" is neither ProviderConfig nor ClusterProviderConfig`, noSecrets: true,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cr := newNamespacedAdminKubeconfig(func(cr *namespaced.AdminKubeconfig) { cr.Spec.ProviderConfigReference = ptr.To(tc.ref) })
			kube, reads := newNamespacedKube(t, clusterKC, tenantKC, cr)
			var got []byte
			c := &connector{
				kube:        kube,
				modernUsage: resource.NewProviderConfigUsageTracker(kube, &namespaced.ProviderConfigUsage{}),
				newIssuer:   func(kc []byte) (Issuer, error) { got = kc; return stubIssuer{}, nil },
				clock:       clocktesting.NewFakeClock(t0),
				log:         newLogRecorder(),
			}
			_, err := c.Connect(context.Background(), cr)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Connect error %v, want one saying %q", err, tc.wantErr)
				}
				if got != nil {
					t.Error("an issuer was built despite the error")
				}
				if tc.notRead != nil && reads.read(*tc.notRead) {
					t.Errorf("Secret %s was read", tc.notRead)
				}
				if tc.noSecrets && len(reads.keys) > 0 {
					t.Errorf("Secrets %v were read", reads.keys)
				}
			} else {
				if err != nil {
					t.Fatalf("Connect: %v", err)
				}
				// Compare without printing: the values stand for credentials.
				if !bytes.Equal(got, tc.want) {
					t.Errorf("the issuer was built from other credentials than those of %s %q", tc.ref.Kind, tc.ref.Name)
				}
			}

			// The usage is recorded in the resource's namespace, with the kind, either way:
			// a provider config that a resource refers to cannot be deleted under it.
			pcu := &namespaced.ProviderConfigUsage{}
			if err := kube.Get(context.Background(), types.NamespacedName{Namespace: tenantNS, Name: string(mrUID)}, pcu); err != nil {
				t.Fatalf("no ProviderConfigUsage in %s: %v", tenantNS, err)
			}
			if pcu.ProviderConfigReference != tc.ref || pcu.GetLabels()[xpv2.LabelKeyProviderKind] != tc.ref.Kind ||
				pcu.ResourceReference.Kind != namespaced.AdminKubeconfigKind || pcu.ResourceReference.Name != mrName {
				t.Errorf("ProviderConfigUsage %+v, labels %v", pcu.TypedProviderConfigUsage, pcu.GetLabels())
			}
		})
	}
}

// nsRig runs the namespaced managed reconciler, as the controller does, against the fake API
// server and the fake garden.
type nsRig struct {
	t      *testing.T
	clock  *clocktesting.FakeClock
	garden *gardentest.Garden
	kube   client.Client
	reads  *secretReads
	r      *managed.Reconciler
	log    *logRecorder
	events *eventRecorder
	seen   [][]byte
}

func newNSRig(t *testing.T, mutate ...func(*namespaced.AdminKubeconfig)) *nsRig {
	t.Helper()
	clk := clocktesting.NewFakeClock(t0)
	g := gardentest.New(t, clk)
	x := &nsRig{t: t, clock: clk, garden: g, log: newLogRecorder(), events: newEventRecorder()}
	// The ClusterProviderConfig may issue; team1's credentials may not.
	x.kube, x.reads = newNamespacedKube(t, g.Kubeconfig(t, gardentest.AdminToken), g.Kubeconfig(t, gardentest.ViewerToken), newNamespacedAdminKubeconfig(mutate...))
	mgr := &xpfake.Manager{Client: x.kube, Scheme: x.kube.Scheme()}
	x.r = NewNamespacedReconciler(mgr, Options{Logger: x.log, Recorder: x.events, PollInterval: poll, Clock: clk, UserAgent: "test", ManagementPolicies: true})
	t.Cleanup(func() {
		assertNoSecrets(t, "logs", x.log.Lines(), x.seen...)
		assertNoSecrets(t, "events", x.events.Events(), x.seen...)
	})
	return x
}

func (x *nsRig) reconcile() reconcile.Result {
	x.t.Helper()
	res, err := x.r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: tenantNS, Name: mrName}})
	if err != nil {
		x.t.Fatalf("Reconcile: %v", err)
	}
	if s := x.secret(tenantNS); s != nil {
		x.seen = append(x.seen, s.Data[KeyKubeconfig])
	}
	return res
}

func (x *nsRig) cr() *namespaced.AdminKubeconfig {
	x.t.Helper()
	cr := &namespaced.AdminKubeconfig{}
	if err := x.kube.Get(context.Background(), types.NamespacedName{Namespace: tenantNS, Name: mrName}, cr); err != nil {
		x.t.Fatal(err)
	}
	return cr
}

// secret returns the connection secret's namesake in the given namespace, if any.
func (x *nsRig) secret(ns string) *corev1.Secret {
	x.t.Helper()
	s := &corev1.Secret{}
	err := x.kube.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: secretName}, s)
	if kerrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		x.t.Fatal(err)
	}
	return s
}

func TestNamespacedReconcilerWritesTheSecretIntoTheResourceNamespace(t *testing.T) {
	x := newNSRig(t)

	x.reconcile()
	s := x.secret(tenantNS)
	if s == nil || len(s.Data[KeyKubeconfig]) == 0 || string(s.Data[KeyEndpoint]) != "https://api.dev.team1.example.com" || !bytes.Equal(s.Data[KeyCA], gardentest.ShootCA) {
		t.Fatalf("no connection secret with kubeconfig, endpoint and ca.crt in %s", tenantNS)
	}
	if !metav1.IsControlledBy(s, x.cr()) {
		t.Error("the connection secret is not controlled by the AdminKubeconfig (it would not be garbage collected)")
	}
	if x.secret(secretNS) != nil {
		t.Errorf("a connection secret appeared in %s", secretNS)
	}
	first := s.Data[KeyKubeconfig]

	// Observe finds it: Ready, and the renewal time drives the requeue.
	x.clock.Step(time.Minute)
	if res := x.reconcile(); res.RequeueAfter != poll {
		t.Errorf("up to date: %+v, want the poll interval", res)
	}
	cr := x.cr()
	wantCondition(t, cr, xpv2.TypeReady, corev1.ConditionTrue, xpv2.ReasonAvailable, "")
	wantCondition(t, cr, xpv2.TypeSynced, corev1.ConditionTrue, xpv2.ReasonReconcileSuccess, "")
	if at := cr.Status.AtProvider; at.Shoot != "garden-team1/dev" || at.RenewalTime == nil || !at.RenewalTime.Time.Equal(t0.Add(16*time.Hour)) {
		t.Errorf("status.atProvider %+v", at)
	}
	x.clock.SetTime(t0.Add(16*time.Hour - 4*time.Minute))
	if res := x.reconcile(); res.RequeueAfter != 4*time.Minute {
		t.Errorf("4m before the renewal: %+v, want RequeueAfter 4m", res)
	}

	// Renewal: the same secret in the resource's namespace gets the new kubeconfig.
	x.clock.SetTime(t0.Add(16 * time.Hour))
	x.reconcile()
	if s := x.secret(tenantNS); s == nil || bytes.Equal(s.Data[KeyKubeconfig], first) || len(s.Data[KeyKubeconfig]) == 0 {
		t.Error("the connection secret was not renewed")
	}
	if n := len(x.garden.Calls()); n != 2 {
		t.Errorf("garden called %d times for two kubeconfigs", n)
	}
}

func TestNamespacedReconcilerRefusesAProviderConfigWithAnotherNamespacesSecret(t *testing.T) {
	x := newNSRig(t, func(cr *namespaced.AdminKubeconfig) {
		cr.Spec.ProviderConfigReference = &xpv2.ProviderConfigReference{Kind: namespaced.ProviderConfigKind, Name: "sneaky"}
	})
	if res := x.reconcile(); !res.Requeue {
		t.Errorf("%+v, want a rate-limited requeue", res)
	}
	wantCondition(t, x.cr(), xpv2.TypeSynced, corev1.ConditionFalse, xpv2.ReasonReconcileError,
		`connect failed: SecretOutsideNamespace: ProviderConfig "sneaky" in namespace "team1" refers to Secret crossplane-system/garden-credentials: a namespaced ProviderConfig may only use a Secret in its own namespace; put the credentials into namespace team1 or use a ClusterProviderConfig`)
	x.wantEvent("Warning", "CannotConnectToProvider", "SecretOutsideNamespace")
	if x.reads.read(types.NamespacedName{Namespace: secretNS, Name: credsName}) {
		t.Error("the refused Secret was read")
	}
	if s := x.secret(tenantNS); s != nil {
		t.Error("a connection secret was written")
	}
	if n := len(x.garden.Calls()); n != 0 {
		t.Errorf("garden called %d times", n)
	}
}

func (x *nsRig) wantEvent(eventType, reason, message string) {
	x.t.Helper()
	for _, e := range x.events.Events() {
		if strings.HasPrefix(e, eventType+" "+reason+" ") && strings.Contains(e, message) {
			return
		}
	}
	x.t.Errorf("no %s event %s saying %q in %q", eventType, reason, message, x.events.Events())
}

func TestPollIntervalHookServesBothKinds(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	cr := newNamespacedAdminKubeconfig()
	cr.Status.AtProvider.RenewalTime = ptr.To(metav1.NewTime(t0.Add(3 * time.Minute)))
	if got := PollIntervalHook(clk)(cr, 10*time.Minute); got != 3*time.Minute {
		t.Errorf("namespaced, renewal in 3m, poll 10m: %v", got)
	}
}
