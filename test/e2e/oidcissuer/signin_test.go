package oidcissuer_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/oidcissuer"
)

// audience is the client ID the identity provider puts in the tokens it issues for the
// cluster, and the audience the cluster's authenticator expects.
const audience = "kubernetes"

// TestSignInThroughOIDC signs people in to a real kube-apiserver (v1.34, the tool cache's)
// through the issuer: an authenticator added to the running API server's structured
// authentication maps a good token to oidc:<email> in oidc:<group>, and the tokens it must
// refuse are refused: expired, of another issuer, for another audience, without groups.
// The admin's client certificate keeps working beside it, a kubeconfig's exec plugin signs
// in as kubelogin would, and removing the authenticator signs people out again.
//
// It needs the pinned etcd and Kubernetes (hack/tools/build.sh) and runs only with
// SCS_KAAS_E2E=1.
func TestSignInThroughOIDC(t *testing.T) {
	if os.Getenv("SCS_KAAS_E2E") == "" {
		t.Skip("set SCS_KAAS_E2E=1 to run the sign-in test against a real kube-apiserver (builds/uses the pinned tools)")
	}
	root, err := controlplane.FindRepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	// Generous: the first run on a machine builds kube-apiserver.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()

	env, err := controlplane.NewEnv(ctx, controlplane.Options{RunDir: t.TempDir(), RepoRoot: root, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	const name = "workload"
	t.Cleanup(func() {
		if t.Failed() {
			// The API server logs why it refused a token or a configuration.
			if log, err := os.ReadFile(env.LogFile("kube-apiserver-" + name)); err == nil {
				t.Logf("kube-apiserver log, authentication lines:\n%s", grepLines(string(log), "authenticat", "oidc", "jwt"))
			}
		}
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	})
	workload, err := env.StartClusterWithAuthentication(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	issuer, err := oidcissuer.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer issuer.Close()
	other, err := oidcissuer.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	alice := oidcissuer.Claims{Subject: "alice", Email: "alice@example.com", Groups: []string{"team-a"}, Audience: audience}
	good := token(t, issuer, alice)
	// Without an authenticator the token means nothing: what accepts it later is the
	// authenticator, not something that was there all along.
	if _, _, err := workload.Whoami(ctx, good); !apierrors.IsUnauthorized(err) {
		t.Fatalf("before any JWT authenticator: want Unauthorized, got %v", err)
	}

	written := time.Now()
	err = workload.SetJWTAuthenticators(ctx, []controlplane.JWTAuthenticator{{
		IssuerURL: issuer.URL, CAPEM: string(issuer.CAPEM), Audiences: []string{audience},
		UsernameClaim: "email", UsernamePrefix: "oidc:",
		GroupsClaim: "groups", GroupsPrefix: "oidc:", RequireGroups: true,
	}})
	if err != nil {
		t.Fatal(err)
	}
	var groups []string
	err = controlplane.WaitFor(ctx, 3*time.Minute, "the API server to accept the issuer's token", func(ctx context.Context) (bool, error) {
		var username string
		var err error
		username, groups, err = workload.Whoami(ctx, good)
		return err == nil && username == "oidc:alice@example.com", err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("MEASURE the JWT authenticator took effect %.1fs after the file was written", time.Since(written).Seconds())
	if !slices.Contains(groups, "oidc:team-a") || !slices.Contains(groups, "system:authenticated") {
		t.Errorf("groups %v: want oidc:team-a and system:authenticated", groups)
	}

	refused := map[string]string{
		"expired":            token(t, issuer, with(alice, func(c *oidcissuer.Claims) { c.Expiry = time.Now().Add(-10 * time.Minute) })),
		"another issuer's":   token(t, other, alice),
		"another audience's": token(t, issuer, with(alice, func(c *oidcissuer.Claims) { c.Audience = "another-cluster" })),
		"groupless":          token(t, issuer, with(alice, func(c *oidcissuer.Claims) { c.NoGroups = true })),
	}
	for what, tok := range refused {
		if username, _, err := workload.Whoami(ctx, tok); !apierrors.IsUnauthorized(err) {
			t.Errorf("%s token: want Unauthorized, got user %q, error %v", what, username, err)
		}
	}

	// The admin's client certificate still signs in beside the JWT authenticator.
	review, err := workload.Client.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("admin kubeconfig: %v", err)
	}
	if info := review.Status.UserInfo; info.Username != "admin" || !slices.Contains(info.Groups, "system:masters") {
		t.Errorf("admin kubeconfig signs in as %q in %v, want admin in system:masters", info.Username, info.Groups)
	}

	// A kubeconfig's exec plugin, the shape kubelogin gives people, signs in through
	// client-go's exec protocol.
	plugin, err := oidcissuer.ExecCredentialPlugin(t.TempDir(), good)
	if err != nil {
		t.Fatal(err)
	}
	caPEM, _, err := workload.CA()
	if err != nil {
		t.Fatal(err)
	}
	client, err := kubernetes.NewForConfig(&rest.Config{
		Host:            workload.URL,
		TLSClientConfig: rest.TLSClientConfig{CAData: caPEM},
		ExecProvider: &clientcmdapi.ExecConfig{
			APIVersion: "client.authentication.k8s.io/v1", Command: plugin, InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	review, err = client.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("exec plugin: %v", err)
	}
	if got := review.Status.UserInfo.Username; got != "oidc:alice@example.com" {
		t.Errorf("exec plugin signs in as %q, want oidc:alice@example.com", got)
	}

	// Removing the authenticator signs people out again, once the API server's cache of
	// accepted tokens (10 s) forgets this one.
	written = time.Now()
	if err := workload.SetJWTAuthenticators(ctx, nil); err != nil {
		t.Fatal(err)
	}
	err = controlplane.WaitFor(ctx, 3*time.Minute, "the API server to refuse the issuer's token again", func(ctx context.Context) (bool, error) {
		_, _, err := workload.Whoami(ctx, good)
		return apierrors.IsUnauthorized(err), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("MEASURE removing the JWT authenticator took effect %.1fs after the file was written", time.Since(written).Seconds())
}

func token(t *testing.T, issuer *oidcissuer.Issuer, c oidcissuer.Claims) string {
	t.Helper()
	tok, err := issuer.Token(c)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// with is c changed by change, c itself untouched.
func with(c oidcissuer.Claims, change func(*oidcissuer.Claims)) oidcissuer.Claims {
	c.Groups = slices.Clone(c.Groups)
	change(&c)
	return c
}

// grepLines is the lines of text that contain any of words, case-insensitively.
func grepLines(text string, words ...string) string {
	var out []string
	for line := range strings.Lines(text) {
		lower := strings.ToLower(line)
		for _, w := range words {
			if strings.Contains(lower, w) {
				out = append(out, line)
				break
			}
		}
	}
	return strings.Join(out, "")
}
