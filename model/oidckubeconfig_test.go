package model

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// peoplesKubeconfig is the people's kubeconfig of cluster demo-fklvc3 at
// https://api.demo.example:6443 (CA "API-CA") whose issuer has the CA "ISSUER-CA" and reads
// the email and groups claims: kubelogin asks for both scopes.
const peoplesKubeconfig = `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: QVBJLUNB
    server: https://api.demo.example:6443
  name: demo-fklvc3
contexts:
- context:
    cluster: demo-fklvc3
    user: oidc-demo-fklvc3
  name: oidc-demo-fklvc3
current-context: oidc-demo-fklvc3
kind: Config
users:
- name: oidc-demo-fklvc3
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      args:
      - oidc-login
      - get-token
      - --oidc-issuer-url=https://login.example.com/realms/team
      - --oidc-client-id=kubectl
      - --oidc-extra-scope=email
      - --oidc-extra-scope=groups
      - --certificate-authority-data=SVNTVUVSLUNB
      command: kubectl
      installHint: 'the people''s kubeconfig signs in with kubelogin: install it as
        a kubectl plugin (kubectl krew install oidc-login), see https://github.com/int128/kubelogin'
      interactiveMode: IfAvailable
      provideClusterInfo: false
`

// emailAndGroups is the issuer peoplesKubeconfig signs in with.
func emailAndGroups() *OIDC {
	return &OIDC{CA: "ISSUER-CA", OIDCStatus: kaasv1alpha1.OIDCStatus{IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl",
		UsernameClaim: "email", UsernamePrefix: "oidc:", GroupsClaim: "groups", GroupsPrefix: "oidc:"}}
}

func TestOIDCKubeconfig(t *testing.T) {
	cases := map[string]struct {
		ca   []byte
		oidc *OIDC
		want string
	}{
		"IssuerWithCAEmailAndGroups": {ca: []byte("API-CA"), oidc: emailAndGroups(), want: peoplesKubeconfig},
		// Claims other than the standard ones need no scope; a publicly trusted issuer and
		// API server need no CA.
		"PubliclyTrustedWithOtherClaims": {
			oidc: &OIDC{OIDCStatus: kaasv1alpha1.OIDCStatus{IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl",
				UsernameClaim: "sub", UsernamePrefix: "oidc:", GroupsClaim: "roles", GroupsPrefix: "oidc:"}},
			want: `apiVersion: v1
clusters:
- cluster:
    server: https://api.demo.example:6443
  name: demo-fklvc3
contexts:
- context:
    cluster: demo-fklvc3
    user: oidc-demo-fklvc3
  name: oidc-demo-fklvc3
current-context: oidc-demo-fklvc3
kind: Config
users:
- name: oidc-demo-fklvc3
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      args:
      - oidc-login
      - get-token
      - --oidc-issuer-url=https://login.example.com/realms/team
      - --oidc-client-id=kubectl
      command: kubectl
      installHint: 'the people''s kubeconfig signs in with kubelogin: install it as
        a kubectl plugin (kubectl krew install oidc-login), see https://github.com/int128/kubelogin'
      interactiveMode: IfAvailable
      provideClusterInfo: false
`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := OIDCKubeconfig("demo-fklvc3", "https://api.demo.example:6443", tc.ca, tc.oidc)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("OIDCKubeconfig: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestWithOIDCKubeconfig: the people's kubeconfig joins the connection details where the
// endpoint is delivered and an issuer is in force, derived anew from the issuer in force.
// Like every key delivered it is never taken back: one left from an issuer the spec no
// longer names stays (it signs in nowhere) until a new issuer replaces it.
func TestWithOIDCKubeconfig(t *testing.T) {
	delivered := func(extra map[string]string) map[string][]byte {
		out := map[string][]byte{
			ConnectionKeyKubeconfig: []byte("admin"),
			ConnectionKeyEndpoint:   []byte("https://api.demo.example:6443"),
			ConnectionKeyCA:         []byte("API-CA"),
		}
		for k, v := range extra {
			out[k] = []byte(v)
		}
		return out
	}
	cases := map[string]struct {
		access  Access
		details map[string][]byte
		want    map[string][]byte
	}{
		"EndpointAndIssuer": {
			access: Access{OIDC: emailAndGroups()}, details: delivered(nil),
			want: delivered(map[string]string{ConnectionKeyOIDCKubeconfig: peoplesKubeconfig}),
		},
		"StaleOneReplaced": {
			access: Access{OIDC: emailAndGroups()}, details: delivered(map[string]string{ConnectionKeyOIDCKubeconfig: "stale"}),
			want: delivered(map[string]string{ConnectionKeyOIDCKubeconfig: peoplesKubeconfig}),
		},
		"NoEndpoint": {
			access:  Access{OIDC: emailAndGroups()},
			details: map[string][]byte{ConnectionKeyKubeconfig: []byte("admin")},
			want:    map[string][]byte{ConnectionKeyKubeconfig: []byte("admin")},
		},
		"NothingDelivered": {access: Access{OIDC: emailAndGroups()}},
		"NoIssuer": {
			access: Access{AllowedSourceRanges: []string{"203.0.113.0/24"}}, details: delivered(nil),
			want: delivered(nil),
		},
		"OneOfARemovedIssuerStays": {
			details: delivered(map[string]string{ConnectionKeyOIDCKubeconfig: "stale"}),
			want:    delivered(map[string]string{ConnectionKeyOIDCKubeconfig: "stale"}),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			before := cloneDetails(tc.details)
			got := withOIDCKubeconfig(&Request{NativeName: "demo-fklvc3", Access: tc.access}, tc.details)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("connection details: -want, +got:\n%s", diff)
			}
			if diff := cmp.Diff(before, tc.details); diff != "" {
				t.Errorf("withOIDCKubeconfig modified its input: -before, +after:\n%s", diff)
			}
		})
	}
}

func cloneDetails(in map[string][]byte) map[string][]byte {
	if in == nil {
		return nil
	}
	out := make(map[string][]byte, len(in))
	for k, v := range in {
		out[k] = append([]byte(nil), v...)
	}
	return out
}
