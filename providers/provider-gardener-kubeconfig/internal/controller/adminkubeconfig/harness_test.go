package adminkubeconfig

import (
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/test/fakegarden/gardentest"
)

// t0 is when every test starts; the fake clock moves from there.
var t0 = time.Date(2026, 11, 3, 8, 0, 0, 0, time.UTC)

const (
	mrName        = "dev-admin"
	mrUID         = types.UID("5f0c6d1e-0000-4000-8000-000000000001")
	secretNS      = "crossplane-system"
	secretName    = "dev-admin-kubeconfig"
	credsName     = "garden-credentials"
	providerCfg   = "garden"
	credentialKey = "kubeconfig"
)

func newScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := apis.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// newKube returns a fake API server holding a ProviderConfig whose credentials Secret has the
// given garden kubeconfig, and the objects given. Status is a subresource, as on a real API
// server: that is what makes the managed reconciler drop status changes made by Create.
func newKube(t *testing.T, gardenKubeconfig []byte, objs ...client.Object) client.Client {
	t.Helper()
	creds := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: secretNS, Name: credsName},
		Data:       map[string][]byte{credentialKey: gardenKubeconfig},
	}
	pc := &v1alpha1.ProviderConfig{
		ObjectMeta: metav1.ObjectMeta{Name: providerCfg},
		Spec: v1alpha1.ProviderConfigSpec{Credentials: v1alpha1.ProviderCredentials{
			Source:    xpv2.CredentialsSourceSecret,
			SecretRef: &xpv2.SecretKeySelector{SecretReference: xpv2.SecretReference{Namespace: secretNS, Name: credsName}, Key: credentialKey},
		}},
	}
	return fake.NewClientBuilder().
		WithScheme(newScheme(t)).
		WithObjects(append([]client.Object{creds, pc}, objs...)...).
		WithStatusSubresource(&v1alpha1.AdminKubeconfig{}, &v1alpha1.ProviderConfig{}).
		Build()
}

// newAdminKubeconfig is the managed resource under test, as the function composes it.
func newAdminKubeconfig(mutate ...func(*v1alpha1.AdminKubeconfig)) *v1alpha1.AdminKubeconfig {
	cr := &v1alpha1.AdminKubeconfig{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: v1alpha1.AdminKubeconfigKind},
		ObjectMeta: metav1.ObjectMeta{Name: mrName, UID: mrUID},
		Spec: v1alpha1.AdminKubeconfigSpec{
			ClusterManagedResourceSpec: xpv2.ClusterManagedResourceSpec{
				ProviderConfigReference:          &xpv2.Reference{Name: providerCfg},
				WriteConnectionSecretToReference: &xpv2.SecretReference{Namespace: secretNS, Name: secretName},
				ManagementPolicies:               xpv2.ManagementPolicies{xpv2.ManagementActionAll},
				DeletionPolicy:                   xpv2.DeletionDelete,
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

// logRecorder is a crossplane logging.Logger that keeps every line with its key/value pairs.
type logRecorder struct {
	mu    *sync.Mutex
	lines *[]string
	kv    []any
}

func newLogRecorder() *logRecorder {
	return &logRecorder{mu: &sync.Mutex{}, lines: &[]string{}}
}

func (l *logRecorder) add(level, msg string, kv []any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	*l.lines = append(*l.lines, fmt.Sprintf("%s %s %v", level, msg, append(append([]any{}, l.kv...), kv...)))
}

func (l *logRecorder) Info(msg string, kv ...any)  { l.add("INFO", msg, kv) }
func (l *logRecorder) Debug(msg string, kv ...any) { l.add("DEBUG", msg, kv) }
func (l *logRecorder) WithValues(kv ...any) logging.Logger {
	return &logRecorder{mu: l.mu, lines: l.lines, kv: append(append([]any{}, l.kv...), kv...)}
}

func (l *logRecorder) Lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), *l.lines...)
}

// eventRecorder is a crossplane event.Recorder that keeps every event.
type eventRecorder struct {
	mu     *sync.Mutex
	events *[]string
}

func newEventRecorder() *eventRecorder {
	return &eventRecorder{mu: &sync.Mutex{}, events: &[]string{}}
}

func (r *eventRecorder) Event(_ runtime.Object, e event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*r.events = append(*r.events, fmt.Sprintf("%s %s %s %v", e.Type, e.Reason, e.Message, e.Annotations))
}

func (r *eventRecorder) WithAnnotations(_ ...string) event.Recorder { return r }

func (r *eventRecorder) Events() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), *r.events...)
}

// assertNoSecrets fails when any line quotes a garden token, an issued kubeconfig (raw or
// base64) or any private key material. It reports only what leaked and the text before it,
// so that a failing test does not print the secret itself.
func assertNoSecrets(t *testing.T, what string, lines []string, kubeconfigs ...[]byte) {
	t.Helper()
	needles := map[string]string{
		gardentest.AdminToken:     "the garden token",
		gardentest.ViewerToken:    "a garden token",
		"PRIVATE KEY":             "a private key",
		"client-key-data":         "a kubeconfig's client key",
		"client-certificate-data": "a kubeconfig's client certificate",
	}
	for _, kc := range kubeconfigs {
		if len(kc) > 0 {
			needles[string(kc)] = "an issued kubeconfig"
			needles[base64.StdEncoding.EncodeToString(kc)] = "an issued kubeconfig, base64"
		}
	}
	for _, l := range lines {
		for n, name := range needles {
			if i := strings.Index(l, n); i >= 0 {
				t.Errorf("%s leak %s after %.120q", what, name, l[:i])
			}
		}
	}
}
