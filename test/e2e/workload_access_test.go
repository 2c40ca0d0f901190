package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/backendsim"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/oidcissuer"
)

// The sign-in of TestAddons's clusters (issue 45): the environment's issuer, enforced, with
// its claims; the source ranges the environment allows, defaults and always adds.
const (
	accessClientID      = "kubectl"
	accessEmail         = "alice@example.com"
	accessDefaultRange  = "127.0.0.0/8"
	accessPlatformRange = "10.250.0.0/16"
)

// signsIn says whether a backend's clusters in TestAddons sign people in. The Cluster Stack
// does not: the pinned scs2 ClusterClass cannot apply its own oidcConfig patch (its control
// plane template has no apiServer.extraArgs to add to), which the real Cluster API refused
// with TopologyReconciled False when this test first asked for it, so its environment maps
// no variable (docs/access.md#where-it-stops) and its cluster gets the ranges only.
func signsIn(backend string) bool { return backend != backendsim.BackendClusterStack }

// accessEnvironment is what TestAddons's environments say of access: the platform's issuer
// as the default, enforced (where the backend signs in); ranges within 127.0.0.0/8 and
// 10.0.0.0/8, 127.0.0.0/8 by default and the platform's own always. Gardener's structured
// authentication carries the issuer's CA; Magnum's labels take none (the stand-in trusts it,
// as a real cluster trusts a public CA: backendsim/signin.go). The Cluster Stack restricts
// ranges only with the amphora load balancer, Magnum only with a load balancer in front of
// the API server.
func accessEnvironment(t *testing.T, cfg *unstructured.Unstructured, backend string, issuer *oidcissuer.Issuer) {
	t.Helper()
	oidc := map[string]any{"issuerURL": issuer.URL, "clientID": accessClientID, "usernameClaim": "email", "usernamePrefix": "oidc:",
		"groupsClaim": "groups", "groupsPrefix": "oidc:"}
	if backend == backendsim.BackendGardener {
		oidc["certificateAuthority"] = string(issuer.CAPEM)
	}
	set := func(v any, path ...string) {
		if err := unstructured.SetNestedField(cfg.Object, v, path...); err != nil {
			t.Fatal(err)
		}
	}
	defaults := map[string]any{"allowedSourceRanges": []any{accessDefaultRange}}
	if signsIn(backend) {
		defaults["oidc"] = oidc
	}
	set(defaults, "data", "defaults", "access")
	set(map[string]any{"restrictSourceRanges": true, "enforceOIDC": signsIn(backend), "sourceRangesWithin": []any{"127.0.0.0/8", "10.0.0.0/8"},
		"alwaysAllowedSourceRanges": []any{accessPlatformRange}}, "data", "apiServerAccess")
	switch backend {
	case backendsim.BackendClusterStack:
		set("octavia-amphora", "data", "clusterStack", "variables", "apiServerLoadBalancer")
	case backendsim.BackendMagnum:
		set(true, "data", "magnum", "masterLBEnabled")
	}
}

// checkAccess checks a Ready cluster's access: status.access says what its native object
// carries, and its people's kubeconfig signs in through the issuer at the workload, which
// the simulator gave the rendered settings: a member of the team's group reads what the
// team-access add-on's binding allows and nothing else; a token without the group gets
// nothing, one of another issuer and an expired one are refused outright; the admin
// kubeconfig still works for the platform.
func checkAccess(ctx context.Context, t *testing.T, c addonsCluster, issuer, stranger *oidcissuer.Issuer) {
	t.Helper()
	waitClaimIn(ctx, t, faultDeadline, addonsNamespace, c.claim, "status.access", func(u *unstructured.Unstructured) error {
		access, _, _ := unstructured.NestedMap(u.Object, "status", "access")
		want := map[string]any{"allowedSourceRanges": []any{accessPlatformRange, accessDefaultRange}}
		if signsIn(c.backend) {
			want["oidc"] = map[string]any{"issuerURL": issuer.URL, "clientID": accessClientID, "usernameClaim": "email", "usernamePrefix": "oidc:",
				"groupsClaim": "groups", "groupsPrefix": "oidc:"}
		}
		if fmt.Sprint(access) != fmt.Sprint(want) {
			return fmt.Errorf("status.access %v, want %v", access, want)
		}
		return nil
	})
	secret, err := cp.Client.CoreV1().Secrets(addonsNamespace).Get(ctx, c.claim+"-kubeconfig", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	people := secret.Data["oidc-kubeconfig"]
	if !signsIn(c.backend) {
		if len(people) > 0 {
			t.Errorf("the kubeconfig Secret of %s, which signs no one in, has an oidc-kubeconfig", c.claim)
		}
		return
	}
	if len(people) == 0 {
		t.Fatalf("the kubeconfig Secret of %s has no oidc-kubeconfig (keys: %v)", c.claim, keysOf(secret.Data))
	}
	cfg, err := clientcmd.Load(people)
	if err != nil {
		t.Fatalf("oidc-kubeconfig of %s: %v", c.claim, err)
	}
	user := cfg.AuthInfos[cfg.Contexts[cfg.CurrentContext].AuthInfo]
	if user == nil || user.Exec == nil || user.Token != "" || user.ClientKeyData != nil {
		t.Fatalf("oidc-kubeconfig of %s must sign in through an exec plugin and hold no credential: %+v", c.claim, user)
	}
	if want := []string{"oidc-login", "get-token", "--oidc-issuer-url=" + issuer.URL, "--oidc-client-id=" + accessClientID}; user.Exec.Command != "kubectl" ||
		!slices.Equal(user.Exec.Args[:4], want) {
		t.Errorf("oidc-kubeconfig of %s runs %s %v, want kubectl %v ...", c.claim, user.Exec.Command, user.Exec.Args, want)
	}

	// As a person of the team: the exec plugin replaced by one that returns the issuer's
	// token; the exec-credential protocol stays client-go's.
	as := func(token string) kubernetes.Interface {
		t.Helper()
		plugin, err := oidcissuer.ExecCredentialPlugin(t.TempDir(), token)
		if err != nil {
			t.Fatal(err)
		}
		mine := cfg.DeepCopy()
		mine.AuthInfos[cfg.Contexts[cfg.CurrentContext].AuthInfo].Exec = &clientcmdapi.ExecConfig{
			APIVersion: user.Exec.APIVersion, Command: plugin, InteractiveMode: clientcmdapi.NeverExecInteractiveMode}
		rc, err := clientcmd.NewDefaultClientConfig(*mine, nil).ClientConfig()
		if err != nil {
			t.Fatal(err)
		}
		k, err := kubernetes.NewForConfig(rc)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	token := func(c oidcissuer.Claims, iss *oidcissuer.Issuer) string {
		t.Helper()
		if c.Audience == "" {
			c.Audience = accessClientID
		}
		tok, err := iss.Token(c)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	member := as(token(oidcissuer.Claims{Subject: "alice", Email: accessEmail, Groups: []string{addonsNamespace}}, issuer))
	helloNS := "hello-" + addonsNamespace + "-" + c.claim
	// The API server takes up the issuer within seconds of the simulator writing it.
	waitFor(ctx, t, faultDeadline, c.claim+": the team's member reads hello", func(ctx context.Context) (bool, error) {
		_, err := member.CoreV1().ConfigMaps(helloNS).Get(ctx, "hello", metav1.GetOptions{})
		return err == nil, err
	})
	if _, err := member.CoreV1().ConfigMaps("kube-system").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("%s: the team's member listed kube-system's ConfigMaps (%v), want Forbidden", c.claim, err)
	}
	if _, err := member.CoreV1().Secrets(helloNS).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("%s: the team's member listed Secrets (%v), want Forbidden", c.claim, err)
	}
	for _, refused := range []struct {
		who    string
		client kubernetes.Interface
		check  func(error) bool
	}{
		{"a person without the team's group", as(token(oidcissuer.Claims{Subject: "bob", Email: "bob@example.com", NoGroups: true}, issuer)), apierrors.IsForbidden},
		{"a person of another issuer", as(token(oidcissuer.Claims{Subject: "alice", Email: accessEmail, Groups: []string{addonsNamespace}}, stranger)), apierrors.IsUnauthorized},
		{"an expired token", as(token(oidcissuer.Claims{Subject: "alice", Email: accessEmail, Groups: []string{addonsNamespace},
			Expiry: time.Now().Add(-time.Minute)}, issuer)), apierrors.IsUnauthorized},
	} {
		if _, err := refused.client.CoreV1().ConfigMaps(helloNS).Get(ctx, "hello", metav1.GetOptions{}); !refused.check(err) {
			t.Errorf("%s: %s read hello: %v", c.claim, refused.who, err)
		}
	}
	admin, err := clientcmd.RESTConfigFromKubeConfig(secret.Data["kubeconfig"])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kubernetes.NewForConfigOrDie(admin).CoreV1().Secrets(helloNS).List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("%s: the admin kubeconfig no longer works: %v", c.claim, err)
	}
}

// checkAccessRefusals: what CEL can say is refused at admission, naming the field; a range
// wider than the environment allows is refused by the function, and the cluster keeps
// running as it was.
func checkAccessRefusals(ctx context.Context, t *testing.T, c addonsCluster, claimOf func(addonsCluster, map[string]any) *unstructured.Unstructured) {
	t.Helper()
	for _, bad := range []struct {
		access map[string]any
		want   string
	}{
		{map[string]any{"oidc": map[string]any{"issuerURL": "http://login.example.com", "clientID": "kubectl"}}, "oidc.issuerURL must be an https URL"},
		{map[string]any{"allowedSourceRanges": []any{"10.1.2.3/8"}}, "spec.access.allowedSourceRanges must be CIDRs in canonical form"},
		{map[string]any{"oidc": map[string]any{"issuerURL": "https://login.example.com", "clientID": "kubectl", "groupsPrefix": "x:"}}, "oidc.groupsPrefix needs oidc.groupsClaim"},
	} {
		claim := claimOf(c, nil)
		spec := claim.Object["spec"].(map[string]any)
		spec["access"] = bad.access
		_, err := claimsIn(addonsNamespace).Apply(ctx, c.claim, claim, metav1.ApplyOptions{FieldManager: "e2e", Force: true, DryRun: []string{metav1.DryRunAll}})
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("access %v: admission said %v, want %q", bad.access, err, bad.want)
		}
	}
	wide := claimOf(c, nil)
	wide.Object["spec"].(map[string]any)["access"] = map[string]any{"allowedSourceRanges": []any{"0.0.0.0/0"}}
	apply(ctx, t, wide)
	waitClaimIn(ctx, t, faultDeadline, addonsNamespace, c.claim, "the wide range refused", func(u *unstructured.Unstructured) error {
		for _, cond := range conditionsOf(u) {
			if cond["type"] == "Rendered" && cond["status"] == "False" &&
				strings.Contains(fmt.Sprint(cond["message"]), "spec.access.allowedSourceRanges[0]: Forbidden: 0.0.0.0/0 is wider than environment "+c.environment+" allows") {
				return nil
			}
		}
		return errors.New("not refused yet")
	})
	apply(ctx, t, claimOf(c, nil))
	waitClaimIn(ctx, t, faultDeadline, addonsNamespace, c.claim, "Rendered again", hasCondition("Rendered", "True", ""))
}
