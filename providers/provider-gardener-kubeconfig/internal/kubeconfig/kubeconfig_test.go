package kubeconfig

import (
	"strings"
	"testing"
)

const caPEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

// A kubeconfig as the garden issues it, two contexts, the external one current.
const issued = `apiVersion: v1
kind: Config
current-context: garden-team1--dev-external
clusters:
- name: garden-team1--dev-external
  cluster:
    server: https://api.dev.team1.example.com
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUIKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=
- name: garden-team1--dev-internal
  cluster:
    server: https://api.dev.team1.internal.example.com
contexts:
- name: garden-team1--dev-external
  context: {cluster: garden-team1--dev-external, user: garden-team1--dev}
- name: garden-team1--dev-internal
  context: {cluster: garden-team1--dev-internal, user: garden-team1--dev}
users:
- name: garden-team1--dev
  user: {token: s3cr3t-t0ken}
`

func TestInspectUsesTheCurrentContext(t *testing.T) {
	got, err := Inspect([]byte(issued))
	if err != nil {
		t.Fatal(err)
	}
	if got.Server != "https://api.dev.team1.example.com" || string(got.CAData) != caPEM {
		t.Errorf("Inspect() = %q, %q", got.Server, got.CAData)
	}
}

func TestInspectRefusesIncompleteKubeconfigs(t *testing.T) {
	for name, kc := range map[string]string{
		"not YAML": "{{{ token: s3cr3t-t0ken",
		// The decoder quotes an unknown kind in its error: a kubeconfig pasted into the wrong
		// place must not leak through that.
		"unknown kind echoed by the decoder": strings.Replace(issued, "kind: Config", "kind: s3cr3t-t0ken", 1),
		"no current context":                 strings.Replace(issued, "current-context: garden-team1--dev-external", "current-context: gone", 1),
		"no server":                          strings.Replace(issued, "server: https://api.dev.team1.example.com", "server: ''", 1),
		"context without cluster":            strings.Replace(issued, "context: {cluster: garden-team1--dev-external,", "context: {cluster: nowhere,", 1),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Inspect([]byte(kc))
			if err == nil {
				t.Fatal("accepted")
			}
			if strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("the error quotes the kubeconfig: %v", err)
			}
		})
	}
}

func TestRESTConfigAcceptsEmbeddedCredentials(t *testing.T) {
	rc, err := RESTConfig([]byte(issued))
	if err != nil {
		t.Fatal(err)
	}
	if rc.Host != "https://api.dev.team1.example.com" || rc.BearerToken != "s3cr3t-t0ken" || string(rc.CAData) != caPEM {
		t.Errorf("RESTConfig() host %q, token set %v, CA %q", rc.Host, rc.BearerToken != "", rc.CAData)
	}
}

func TestRESTConfigRefusesWhatWouldRunOrReadOnTheProviderHost(t *testing.T) {
	user := "user: {token: s3cr3t-t0ken}"
	for name, tc := range map[string]struct{ from, to, want string }{
		"exec plugin":      {user, "user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh, args: [-c, id]}}", "exec plugin"},
		"auth provider":    {user, "user: {auth-provider: {name: oidc}}", "auth provider"},
		"token file":       {user, "user: {tokenFile: /var/run/secrets/token}", "credential files"},
		"client cert file": {user, "user: {client-certificate: /etc/cert.pem, client-key: /etc/key.pem}", "credential files"},
		"CA file":          {"certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUIKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=", "certificate-authority: /etc/ca.pem", "CA file"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := RESTConfig([]byte(strings.Replace(issued, tc.from, tc.to, 1)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("RESTConfig() error %v, want one about %q", err, tc.want)
			}
		})
	}
}
