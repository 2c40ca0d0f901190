package cli

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// clusterKubeconfig is a kubeconfig as a backend delivers it; the token is no secret.
const clusterKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: shoot--team1--dev-mfn4yr
  cluster:
    server: https://api.dev-mfn4yr.team1.gardener.example.com
contexts:
- name: shoot--team1--dev-mfn4yr
  context: {cluster: shoot--team1--dev-mfn4yr, user: shoot--team1--dev-mfn4yr-admin}
current-context: shoot--team1--dev-mfn4yr
users:
- name: shoot--team1--dev-mfn4yr-admin
  user: {token: example-token-not-a-secret}
`

// peoplesKubeconfig is the people's kubeconfig a cluster with an OIDC issuer gets: no secret
// in it, kubelogin signs in.
const peoplesKubeconfig = `apiVersion: v1
clusters:
- cluster:
    server: https://api.dev-mfn4yr.team1.gardener.example.com
  name: dev-mfn4yr
contexts:
- context:
    cluster: dev-mfn4yr
    user: oidc-dev-mfn4yr
  name: oidc-dev-mfn4yr
current-context: oidc-dev-mfn4yr
kind: Config
users:
- name: oidc-dev-mfn4yr
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      args:
      - oidc-login
      - get-token
      - --oidc-issuer-url=https://login.example.com/realms/team1
      - --oidc-client-id=kubectl
      command: kubectl
      interactiveMode: IfAvailable
      provideClusterInfo: false
`

// withIssuer is a claim with an OIDC issuer at path: spec.access.oidc (its own),
// status.defaulted.access.oidc (its environment's) or status.access.oidc (what its backend
// still carries).
func withIssuer(t *testing.T, manifest string, path ...string) *unstructured.Unstructured {
	t.Helper()
	c := object(t, manifest)
	if err := unstructured.SetNestedMap(c.Object, map[string]any{"issuerURL": "https://login.example.com/realms/team1", "clientID": "kubectl"}, path...); err != nil {
		t.Fatal(err)
	}
	return c
}

func kubeconfigSecret(t *testing.T, data map[string]string) *unstructured.Unstructured {
	t.Helper()
	encoded := map[string]any{}
	for k, v := range data {
		encoded[k] = base64.StdEncoding.EncodeToString([]byte(v))
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "dev-kubeconfig", "namespace": "team1"},
		"data":     encoded,
	}}
}

func TestKubeconfig(t *testing.T) {
	for _, tc := range []struct {
		name    string
		objects func(t *testing.T) []*unstructured.Unstructured
		args    []string
		stdout  string
		stderr  string
		code    int
	}{
		{
			name: "printed as it is",
			objects: func(t *testing.T) []*unstructured.Unstructured {
				return []*unstructured.Unstructured{object(t, readyClaim), kubeconfigSecret(t, map[string]string{"kubeconfig": clusterKubeconfig, "endpoint": "https://x"})}
			},
			args:   []string{"kubeconfig", "dev"},
			stdout: clusterKubeconfig,
		},
		{
			name: "not delivered: no Secret yet",
			objects: func(t *testing.T) []*unstructured.Unstructured {
				c := object(t, readyClaim)
				_ = unstructured.SetNestedSlice(c.Object, []any{map[string]any{"type": "KubeconfigReady", "status": "False", "reason": "Pending", "message": "provider-gardener-kubeconfig has not delivered an admin kubeconfig yet"}}, "status", "conditions")
				return []*unstructured.Unstructured{c}
			},
			args:   []string{"kubeconfig", "dev"},
			stderr: "error: the kubeconfig of SCSCluster team1/dev is not delivered yet: Secret dev-kubeconfig does not exist; KubeconfigReady is False (Pending): provider-gardener-kubeconfig has not delivered an admin kubeconfig yet\n",
			code:   ExitNotReady,
		},
		{
			name: "not delivered: the Secret holds only the endpoint",
			objects: func(t *testing.T) []*unstructured.Unstructured {
				return []*unstructured.Unstructured{object(t, readyClaim), kubeconfigSecret(t, map[string]string{"endpoint": "https://x"})}
			},
			args:   []string{"kubeconfig", "dev"},
			stderr: "error: the kubeconfig of SCSCluster team1/dev is not delivered yet: Secret dev-kubeconfig has no key kubeconfig; KubeconfigReady is True (Delivered): the connection secret holds an admin kubeconfig\n",
			code:   ExitNotReady,
		},
		{
			name: "a cluster that names no Secret",
			objects: func(t *testing.T) []*unstructured.Unstructured {
				return []*unstructured.Unstructured{object(t, newClaim)}
			},
			args:   []string{"kubeconfig", "fresh"},
			stderr: "error: SCSCluster team1/fresh names no Secret for its kubeconfig: set spec.writeConnectionSecretToRef.name and apply it\n",
			code:   ExitError,
		},
		{
			name: "--oidc: the people's kubeconfig of a cluster with its own issuer",
			objects: func(t *testing.T) []*unstructured.Unstructured {
				return []*unstructured.Unstructured{withIssuer(t, readyClaim, "spec", "access", "oidc"),
					kubeconfigSecret(t, map[string]string{"kubeconfig": clusterKubeconfig, "oidc-kubeconfig": peoplesKubeconfig})}
			},
			args:   []string{"kubeconfig", "dev", "--oidc"},
			stdout: peoplesKubeconfig,
		},
		{
			name: "--oidc: the people's kubeconfig of a cluster with its environment's issuer",
			objects: func(t *testing.T) []*unstructured.Unstructured {
				return []*unstructured.Unstructured{withIssuer(t, readyClaim, "status", "defaulted", "access", "oidc"),
					kubeconfigSecret(t, map[string]string{"kubeconfig": clusterKubeconfig, "oidc-kubeconfig": peoplesKubeconfig})}
			},
			args:   []string{"kubeconfig", "dev", "--oidc"},
			stdout: peoplesKubeconfig,
		},
		{
			name: "--oidc: the people's kubeconfig of a cluster whose backend still carries the issuer",
			objects: func(t *testing.T) []*unstructured.Unstructured {
				return []*unstructured.Unstructured{withIssuer(t, readyClaim, "status", "access", "oidc"),
					kubeconfigSecret(t, map[string]string{"kubeconfig": clusterKubeconfig, "oidc-kubeconfig": peoplesKubeconfig})}
			},
			args:   []string{"kubeconfig", "dev", "--oidc"},
			stdout: peoplesKubeconfig,
		},
		{
			name: "--oidc of a cluster without OIDC sign-in: never the admin kubeconfig",
			objects: func(t *testing.T) []*unstructured.Unstructured {
				return []*unstructured.Unstructured{object(t, readyClaim), kubeconfigSecret(t, map[string]string{"kubeconfig": clusterKubeconfig, "endpoint": "https://x"})}
			},
			args:   []string{"kubeconfig", "dev", "--oidc"},
			stderr: "error: SCSCluster team1/dev has no OIDC sign-in: name an issuer in spec.access.oidc, or use an environment whose defaults.access.oidc has one\n",
			code:   ExitError,
		},
		{
			name: "--oidc of a cluster whose issuer was removed: not the last one, which signs in nowhere",
			objects: func(t *testing.T) []*unstructured.Unstructured {
				return []*unstructured.Unstructured{object(t, readyClaim),
					kubeconfigSecret(t, map[string]string{"kubeconfig": clusterKubeconfig, "oidc-kubeconfig": peoplesKubeconfig})}
			},
			args:   []string{"kubeconfig", "dev", "--oidc", "--merge"},
			stderr: "error: SCSCluster team1/dev has no OIDC sign-in: name an issuer in spec.access.oidc, or use an environment whose defaults.access.oidc has one\n",
			code:   ExitError,
		},
		{
			name: "--oidc not delivered yet",
			objects: func(t *testing.T) []*unstructured.Unstructured {
				return []*unstructured.Unstructured{withIssuer(t, readyClaim, "spec", "access", "oidc"), kubeconfigSecret(t, map[string]string{"kubeconfig": clusterKubeconfig})}
			},
			args:   []string{"kubeconfig", "dev", "--oidc"},
			stderr: "error: the OIDC kubeconfig of SCSCluster team1/dev is not delivered yet: Secret dev-kubeconfig has no key oidc-kubeconfig; KubeconfigReady is True (Delivered): the connection secret holds an admin kubeconfig\n",
			code:   ExitNotReady,
		},
		{
			name:   "--kubeconfig-file without --merge",
			args:   []string{"kubeconfig", "dev", "--kubeconfig-file", "x"},
			stderr: "error: --kubeconfig-file and --context-name go with --merge\n",
			code:   ExitUsage,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var objs []*unstructured.Unstructured
			if tc.objects != nil {
				objs = tc.objects(t)
			}
			stdout, stderr, code := newHarness(t, flavourLegacy, objs...).run("", tc.args...)
			if diff := cmp.Diff(tc.stdout, stdout); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.stderr, stderr); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
		})
	}
}

// TestKubeconfigMerge: the cluster's context joins a kubeconfig file under the cluster's
// name, replacing only an earlier merge of it; the current context stays, nothing of the
// credentials is printed.
func TestKubeconfigMerge(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config")
	existing := `apiVersion: v1
kind: Config
clusters:
- name: home
  cluster: {server: https://home.example.com}
- name: dev
  cluster: {server: https://stale.example.com}
contexts:
- name: home
  context: {cluster: home, user: me}
current-context: home
users:
- name: me
  user: {token: mine}
`
	if err := os.WriteFile(file, []byte(existing), 0o600); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, flavourLegacy, object(t, readyClaim), kubeconfigSecret(t, map[string]string{"kubeconfig": clusterKubeconfig}))
	stdout, stderr, code := h.run("", "kubeconfig", "dev", "--merge", "--kubeconfig-file", file)
	if code != ExitOK || stderr != "" {
		t.Fatalf("exit code %d, stderr %q", code, stderr)
	}
	wantOut := `Context "dev" (https://api.dev-mfn4yr.team1.gardener.example.com) merged into ` + file + "; use it with: kubectl --context dev ...\n"
	if diff := cmp.Diff(wantOut, stdout); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: v1
clusters:
- cluster:
    server: https://api.dev-mfn4yr.team1.gardener.example.com
  name: dev
- cluster:
    server: https://home.example.com
  name: home
contexts:
- context:
    cluster: dev
    user: dev
  name: dev
- context:
    cluster: home
    user: me
  name: home
current-context: home
kind: Config
users:
- name: dev
  user:
    token: example-token-not-a-secret
- name: me
  user:
    token: mine
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("merged kubeconfig (-want +got):\n%s", diff)
	}
	if info, err := os.Stat(file); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("merged kubeconfig mode %v (%v), want 0600: it holds credentials", info.Mode().Perm(), err)
	}

	// A new file, under another context name.
	other := filepath.Join(t.TempDir(), "kube", "config")
	if _, stderr, code := h.run("", "kubeconfig", "dev", "--merge", "--kubeconfig-file", other, "--context-name", "team1-dev"); code != ExitOK {
		t.Fatalf("exit code %d: %s", code, stderr)
	}
	got, err = os.ReadFile(other)
	if err != nil {
		t.Fatal(err)
	}
	want = `apiVersion: v1
clusters:
- cluster:
    server: https://api.dev-mfn4yr.team1.gardener.example.com
  name: team1-dev
contexts:
- context:
    cluster: team1-dev
    user: team1-dev
  name: team1-dev
current-context: ""
kind: Config
users:
- name: team1-dev
  user:
    token: example-token-not-a-secret
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("new kubeconfig (-want +got):\n%s", diff)
	}
}

// TestKubeconfigMergeOIDC: with --oidc the people's kubeconfig is merged, its kubelogin user
// under the cluster's name.
func TestKubeconfigMergeOIDC(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config")
	h := newHarness(t, flavourLegacy, withIssuer(t, readyClaim, "spec", "access", "oidc"),
		kubeconfigSecret(t, map[string]string{"kubeconfig": clusterKubeconfig, "oidc-kubeconfig": peoplesKubeconfig}))
	stdout, stderr, code := h.run("", "kubeconfig", "dev", "--oidc", "--merge", "--kubeconfig-file", file)
	if code != ExitOK || stderr != "" {
		t.Fatalf("exit code %d, stderr %q", code, stderr)
	}
	wantOut := `Context "dev" (https://api.dev-mfn4yr.team1.gardener.example.com) merged into ` + file + "; use it with: kubectl --context dev ...\n"
	if diff := cmp.Diff(wantOut, stdout); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: v1
clusters:
- cluster:
    server: https://api.dev-mfn4yr.team1.gardener.example.com
  name: dev
contexts:
- context:
    cluster: dev
    user: dev
  name: dev
current-context: ""
kind: Config
users:
- name: dev
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      args:
      - oidc-login
      - get-token
      - --oidc-issuer-url=https://login.example.com/realms/team1
      - --oidc-client-id=kubectl
      command: kubectl
      env: null
      interactiveMode: IfAvailable
      provideClusterInfo: false
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("merged kubeconfig (-want +got):\n%s", diff)
	}
}
