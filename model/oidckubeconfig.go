package model

import (
	"encoding/base64"
	"maps"

	"sigs.k8s.io/yaml"
)

// ConnectionKeyOIDCKubeconfig is the people's kubeconfig: it signs in through the cluster's
// OIDC issuer with kubelogin and holds no secret, so that a platform can hand it to every
// member of a team (docs/access.md).
const ConnectionKeyOIDCKubeconfig = "oidc-kubeconfig"

// KubeloginCommand runs the exec plugin of the people's kubeconfig: kubelogin as a kubectl
// plugin (`kubectl oidc-login get-token`), which opens the browser once and caches the token.
const KubeloginCommand = "kubectl"

// withOIDCKubeconfig puts the people's kubeconfig into the connection details, made from the
// delivered endpoint and CA and the issuer in force, once there are both. Like every key
// delivered, it is never taken back (the keeper keeps it): a cluster whose issuer is removed
// keeps the last one, which then signs in nowhere, and a new issuer replaces it.
func withOIDCKubeconfig(req *Request, details map[string][]byte) map[string][]byte {
	endpoint := string(details[ConnectionKeyEndpoint])
	if req.Access.OIDC == nil || endpoint == "" {
		return details
	}
	out := maps.Clone(details)
	raw, err := OIDCKubeconfig(req.NativeName, endpoint, details[ConnectionKeyCA], req.Access.OIDC)
	if err != nil {
		return out
	}
	if out == nil {
		out = map[string][]byte{}
	}
	out[ConnectionKeyOIDCKubeconfig] = raw
	return out
}

// OIDCKubeconfig is a kubeconfig for name at endpoint (with the API server's PEM CA) whose
// user signs in through kubelogin with the issuer.
func OIDCKubeconfig(name, endpoint string, ca []byte, o *OIDC) ([]byte, error) {
	args := []string{"oidc-login", "get-token", "--oidc-issuer-url=" + o.IssuerURL, "--oidc-client-id=" + o.ClientID}
	// kubelogin asks for the openid scope only; the claims the API server reads need theirs
	// where they are the standard ones.
	if o.UsernameClaim == "email" {
		args = append(args, "--oidc-extra-scope=email")
	}
	if o.GroupsClaim == "groups" {
		args = append(args, "--oidc-extra-scope=groups")
	}
	if o.CA != "" {
		args = append(args, "--certificate-authority-data="+base64.StdEncoding.EncodeToString([]byte(o.CA)))
	}
	cluster := map[string]any{"server": endpoint}
	if len(ca) > 0 {
		cluster["certificate-authority-data"] = base64.StdEncoding.EncodeToString(ca)
	}
	user := "oidc-" + name
	return yaml.Marshal(map[string]any{
		"apiVersion": "v1",
		"kind":       "Config",
		"clusters":   []any{map[string]any{"name": name, "cluster": cluster}},
		"users": []any{map[string]any{"name": user, "user": map[string]any{"exec": map[string]any{
			"apiVersion":         "client.authentication.k8s.io/v1",
			"command":            KubeloginCommand,
			"args":               args,
			"interactiveMode":    "IfAvailable",
			"provideClusterInfo": false,
			"installHint":        "the people's kubeconfig signs in with kubelogin: install it as a kubectl plugin (kubectl krew install oidc-login), see https://github.com/int128/kubelogin",
		}}}},
		"contexts":        []any{map[string]any{"name": user, "context": map[string]any{"cluster": name, "user": user}}},
		"current-context": user,
	})
}
