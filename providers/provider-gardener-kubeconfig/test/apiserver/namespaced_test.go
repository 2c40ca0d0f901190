package apiserver

import (
	"bytes"
	"context"
	"strings"
	"testing"

	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	namespaced "github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/namespaced/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/v1alpha1"
)

// The namespaced kinds of gardener.m.kaas.scs.community against the real API server and the
// running provider.

func credentialsIn(namespace, secret string) v1alpha1.ProviderConfigSpec {
	return v1alpha1.ProviderConfigSpec{Credentials: v1alpha1.ProviderCredentials{
		Source:    xpv2.CredentialsSourceSecret,
		SecretRef: &xpv2.SecretKeySelector{SecretReference: xpv2.SecretReference{Namespace: namespace, Name: secret}, Key: "kubeconfig"},
	}}
}

// namespacedAdminKubeconfig is an AdminKubeconfig in the tenant namespace as a composition
// writes it; a nil ref leaves spec.providerConfigRef to its default.
func namespacedAdminKubeconfig(name, shoot string, ref *xpv2.ProviderConfigReference, mutate ...func(*namespaced.AdminKubeconfig)) *namespaced.AdminKubeconfig {
	cr := &namespaced.AdminKubeconfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: name},
		Spec: namespaced.AdminKubeconfigSpec{
			ManagedResourceSpec: xpv2.ManagedResourceSpec{
				ProviderConfigReference:          ref,
				WriteConnectionSecretToReference: &xpv2.LocalSecretReference{Name: name + "-kubeconfig"},
			},
			ForProvider: v1alpha1.AdminKubeconfigParameters{Namespace: projectNS, ShootName: shoot},
		},
	}
	for _, m := range mutate {
		m(cr)
	}
	return cr
}

func (w *world) getNS(t *testing.T, name string) *namespaced.AdminKubeconfig {
	t.Helper()
	cr := &namespaced.AdminKubeconfig{}
	if err := w.kube.Get(context.Background(), types.NamespacedName{Namespace: tenantNS, Name: name}, cr); err != nil {
		t.Fatal(err)
	}
	return cr
}

// whoAmI returns the user a kubeconfig authenticates as at the API server it names.
func whoAmI(t *testing.T, kubeconfig []byte) string {
	t.Helper()
	rc, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		t.Fatal("the issued kubeconfig does not load") // the parse error could quote it
	}
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	review, err := cs.AuthenticationV1().SelfSubjectReviews().Create(context.Background(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("using the issued kubeconfig: %v", err)
	}
	return review.Status.UserInfo.Username
}

func (w *world) namespacedAdmission(t *testing.T) {
	ctx := context.Background()
	w.apply(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenantNS}})
	for name, tc := range map[string]struct {
		obj  client.Object
		want string
	}{
		"no connection secret": {namespacedAdminKubeconfig("y1", "dev", nil, func(cr *namespaced.AdminKubeconfig) { cr.Spec.WriteConnectionSecretToReference = nil }),
			"writeConnectionSecretToRef is required"},
		"a provider config kind the provider does not know": {namespacedAdminKubeconfig("y2", "dev", &xpv2.ProviderConfigReference{Kind: "ProviderConfigs", Name: "default"}),
			"providerConfigRef.kind must be ProviderConfig (in the resource's namespace) or ClusterProviderConfig"},
		"lifetime below Gardener's minimum": {namespacedAdminKubeconfig("y3", "dev", nil, func(cr *namespaced.AdminKubeconfig) { cr.Spec.ForProvider.ExpirationSeconds = ptr.To(int64(60)) }),
			"should be greater than or equal to 600"},
		"renewBefore that is no Go duration": {&unstructured.Unstructured{Object: map[string]any{
			"apiVersion": namespaced.SchemeGroupVersion.String(), "kind": namespaced.AdminKubeconfigKind, "metadata": map[string]any{"namespace": tenantNS, "name": "y4"},
			"spec": map[string]any{
				"forProvider":                map[string]any{"namespace": projectNS, "shootName": "dev", "renewBefore": "8 hours"},
				"writeConnectionSecretToRef": map[string]any{"name": "y4"},
			},
		}}, "spec.forProvider.renewBefore"},
		"ProviderConfig with Secret source without secretRef": {&namespaced.ProviderConfig{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "y5"},
			Spec: v1alpha1.ProviderConfigSpec{Credentials: v1alpha1.ProviderCredentials{Source: xpv2.CredentialsSourceSecret}}},
			"secretRef is required when source is Secret"},
		"ClusterProviderConfig with another credentials source": {&namespaced.ClusterProviderConfig{ObjectMeta: metav1.ObjectMeta{Name: "y6"},
			Spec: v1alpha1.ProviderConfigSpec{Credentials: v1alpha1.ProviderCredentials{Source: xpv2.CredentialsSourceInjectedIdentity}}},
			"Unsupported value"},
	} {
		err := w.kube.Create(ctx, tc.obj)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: created or refused for another reason (%v), want %q", name, err, tc.want)
		}
	}

	// Defaults, and what a namespaced managed resource does not have: deletionPolicy, and a
	// namespace for its connection secret. Sent untyped, as a composition could write them.
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": namespaced.SchemeGroupVersion.String(), "kind": namespaced.AdminKubeconfigKind,
		"metadata": map[string]any{"namespace": tenantNS, "name": "defaults"},
		"spec": map[string]any{
			"forProvider":                map[string]any{"namespace": projectNS, "shootName": "dev"},
			"writeConnectionSecretToRef": map[string]any{"name": "defaults", "namespace": crossplaneNS},
			"deletionPolicy":             "Orphan",
		},
	}}
	if err := w.kube.Create(ctx, u); err != nil {
		t.Fatal(err)
	}
	got := w.getNS(t, "defaults")
	s := got.Spec
	if s.ProviderConfigReference == nil || *s.ProviderConfigReference != (xpv2.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "default"}) ||
		ptr.Deref(s.ForProvider.ExpirationSeconds, 0) != 86400 || len(s.ManagementPolicies) != 1 || s.ManagementPolicies[0] != xpv2.ManagementActionAll {
		t.Errorf("defaults: providerConfigRef %v, expirationSeconds %v, managementPolicies %v", s.ProviderConfigReference, s.ForProvider.ExpirationSeconds, s.ManagementPolicies)
	}
	stored := &unstructured.Unstructured{}
	stored.SetGroupVersionKind(namespaced.AdminKubeconfigGroupVersionKind)
	if err := w.kube.Get(ctx, types.NamespacedName{Namespace: tenantNS, Name: "defaults"}, stored); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(stored.Object, "spec", "deletionPolicy"); found {
		t.Error("a namespaced AdminKubeconfig kept spec.deletionPolicy")
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(stored.Object, "spec", "writeConnectionSecretToRef", "namespace"); found {
		t.Error("a namespaced AdminKubeconfig kept a namespace for its connection secret")
	}
	if err := w.kube.Delete(ctx, got); err != nil {
		t.Fatal(err)
	}
}

// namespacedWithClusterProviderConfig: the shape a namespaced composite composes. The
// kubeconfig lands in the AdminKubeconfig's own namespace, works, and is renewed.
func (w *world) namespacedWithClusterProviderConfig(t *testing.T) {
	ctx := context.Background()
	if err := w.kube.Create(ctx, namespacedAdminKubeconfig("tenant-admin", "dev", nil)); err != nil {
		t.Fatal(err)
	}
	var first []byte
	w.waitFor(t, "team1/tenant-admin to be Ready with a kubeconfig in team1", func() (bool, error) {
		ready := w.getNS(t, "tenant-admin").GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue
		if s := w.secretIn(t, tenantNS, "tenant-admin-kubeconfig"); s != nil {
			first = s.Data["kubeconfig"]
		}
		return ready && len(first) > 0, nil
	})
	cr := w.getNS(t, "tenant-admin")
	if ref := cr.Spec.ProviderConfigReference; ref == nil || ref.Kind != "ClusterProviderConfig" || ref.Name != "default" {
		t.Errorf("providerConfigRef %v, want the default ClusterProviderConfig default", ref)
	}
	s := w.secretIn(t, tenantNS, "tenant-admin-kubeconfig")
	if string(s.Data["endpoint"]) != w.apiURL || !bytes.Equal(s.Data["ca.crt"], w.servingCA) {
		t.Errorf("connection secret: endpoint %q, ca.crt the Shoot's: %v", s.Data["endpoint"], bytes.Equal(s.Data["ca.crt"], w.servingCA))
	}
	if !metav1.IsControlledBy(s, cr) {
		t.Error("the connection secret is not controlled by the namespaced AdminKubeconfig")
	}
	if w.secretIn(t, crossplaneNS, "tenant-admin-kubeconfig") != nil {
		t.Errorf("a connection secret of team1/tenant-admin appeared in %s", crossplaneNS)
	}
	if user := whoAmI(t, first); user != "garden-provider" {
		t.Errorf("the issued kubeconfig authenticates as %q, want garden-provider", user)
	}

	// The usage is recorded in the resource's namespace and counted by the ClusterProviderConfig.
	pcu := &namespaced.ProviderConfigUsage{}
	if err := w.kube.Get(ctx, types.NamespacedName{Namespace: tenantNS, Name: string(cr.GetUID())}, pcu); err != nil {
		t.Fatalf("no ProviderConfigUsage in %s: %v", tenantNS, err)
	}
	if pcu.ProviderConfigReference != (xpv2.ProviderConfigReference{Kind: "ClusterProviderConfig", Name: "default"}) {
		t.Errorf("ProviderConfigUsage refers to %v", pcu.ProviderConfigReference)
	}
	w.waitFor(t, "the ClusterProviderConfig to count its user", func() (bool, error) {
		cpc := &namespaced.ClusterProviderConfig{}
		err := w.kube.Get(ctx, types.NamespacedName{Name: "default"}, cpc)
		return err == nil && cpc.Status.Users >= 1, err
	})

	// Renewal, as for the cluster-scoped kind: a new kubeconfig in the same secret.
	w.waitFor(t, "a renewed kubeconfig in team1", func() (bool, error) {
		s := w.secretIn(t, tenantNS, "tenant-admin-kubeconfig")
		return s != nil && len(s.Data["kubeconfig"]) > 0 && !bytes.Equal(s.Data["kubeconfig"], first), nil
	})
}

// namespacedWithProviderConfig: a ProviderConfig of the resource's namespace whose Secret is
// in that namespace serves it.
func (w *world) namespacedWithProviderConfig(t *testing.T) {
	ctx := context.Background()
	if err := w.kube.Create(ctx, namespacedAdminKubeconfig("own-admin", "dev", &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "garden"})); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, "team1/own-admin to be Ready with a kubeconfig in team1", func() (bool, error) {
		ready := w.getNS(t, "own-admin").GetCondition(xpv2.TypeReady).Status == corev1.ConditionTrue
		s := w.secretIn(t, tenantNS, "own-admin-kubeconfig")
		return ready && s != nil && len(s.Data["kubeconfig"]) > 0, nil
	})
	w.waitFor(t, "ProviderConfig team1/garden to count its user", func() (bool, error) {
		pc := &namespaced.ProviderConfig{}
		err := w.kube.Get(ctx, types.NamespacedName{Namespace: tenantNS, Name: "garden"}, pc)
		return err == nil && pc.Status.Users >= 1, err
	})
}

// namespacedCrossNamespaceRefused: a ProviderConfig in team1 naming the Secret of
// crossplane-system is refused, and nothing is issued with it.
func (w *world) namespacedCrossNamespaceRefused(t *testing.T) {
	if err := w.kube.Create(context.Background(), namespacedAdminKubeconfig("sneaky-admin", "dev", &xpv2.ProviderConfigReference{Kind: "ProviderConfig", Name: "sneaky"})); err != nil {
		t.Fatal(err)
	}
	want := `connect failed: SecretOutsideNamespace: ProviderConfig "sneaky" in namespace "team1" refers to Secret crossplane-system/garden-provider: ` +
		`a namespaced ProviderConfig may only use a Secret in its own namespace; put the credentials into namespace team1 or use a ClusterProviderConfig`
	var last xpv2.Condition
	w.waitFor(t, "team1/sneaky-admin to report "+want, func() (bool, error) {
		last = w.getNS(t, "sneaky-admin").GetCondition(xpv2.TypeSynced)
		return last.Status == corev1.ConditionFalse && strings.Contains(last.Message, want), nil
	})
	if s := w.secretIn(t, tenantNS, "sneaky-admin-kubeconfig"); s != nil {
		t.Error("a connection secret was written with credentials from another namespace")
	}
	if c := w.getNS(t, "sneaky-admin").GetCondition(xpv2.TypeReady); c.Status == corev1.ConditionTrue {
		t.Errorf("Ready %+v", c)
	}
}
