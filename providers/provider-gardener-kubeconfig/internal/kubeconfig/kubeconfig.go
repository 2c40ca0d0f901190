// Package kubeconfig reads the two kubeconfigs the provider handles: the garden credentials
// of a ProviderConfig, and the admin kubeconfigs the garden issues. Errors never quote the
// kubeconfig: parse errors of YAML and JSON decoders can echo input, and the input is secret.
package kubeconfig

import (
	"errors"
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// ErrUnparsable is returned for input that is not a kubeconfig. It deliberately carries no
// detail of the parser's complaint.
var ErrUnparsable = errors.New("not a valid kubeconfig")

// Target is where a kubeconfig's current context points.
type Target struct {
	// Server is the API server URL.
	Server string
	// CAData is the PEM bundle that verifies the server, empty when the kubeconfig relies on
	// the system trust store.
	CAData []byte
}

// Inspect returns the target of the current context of a kubeconfig. A kubeconfig without a
// current context but with exactly one context uses that one, as kubectl would not; the
// garden always sets the current context, this only makes hand-written test input easier.
func Inspect(raw []byte) (Target, error) {
	cfg, err := clientcmd.Load(raw)
	if err != nil {
		return Target{}, ErrUnparsable
	}
	_, cluster, err := current(cfg)
	if err != nil {
		return Target{}, err
	}
	if cluster.Server == "" {
		return Target{}, errors.New("the kubeconfig's current cluster has no server URL")
	}
	return Target{Server: cluster.Server, CAData: cluster.CertificateAuthorityData}, nil
}

// RESTConfig turns a garden kubeconfig from a ProviderConfig's Secret into a client config.
// It must be self-contained: the provider refuses exec plugins and auth providers (they
// would run commands or reach token endpoints on the provider's host on behalf of whoever
// can write the Secret) and file references (they would read the provider's files).
func RESTConfig(raw []byte) (*rest.Config, error) {
	cfg, err := clientcmd.Load(raw)
	if err != nil {
		return nil, ErrUnparsable
	}
	ctxName, cluster, err := current(cfg)
	if err != nil {
		return nil, err
	}
	if cluster.CertificateAuthority != "" {
		return nil, errors.New("the garden kubeconfig refers to a CA file; embed it as certificate-authority-data")
	}
	user := cfg.AuthInfos[cfg.Contexts[ctxName].AuthInfo]
	if user == nil {
		return nil, fmt.Errorf("the garden kubeconfig's context %q has no user", ctxName)
	}
	switch {
	case user.Exec != nil:
		return nil, errors.New("the garden kubeconfig uses an exec plugin, which the provider does not run; use a token or a client certificate")
	case user.AuthProvider != nil:
		return nil, errors.New("the garden kubeconfig uses an auth provider, which the provider does not run; use a token or a client certificate")
	case user.ClientCertificate != "" || user.ClientKey != "" || user.TokenFile != "":
		return nil, errors.New("the garden kubeconfig refers to credential files; embed them (client-certificate-data, client-key-data, token)")
	}
	rc, err := clientcmd.NewDefaultClientConfig(*cfg, &clientcmd.ConfigOverrides{CurrentContext: ctxName}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("cannot build a client from the garden kubeconfig: %w", err)
	}
	return rc, nil
}

// current returns the name of the context in use and its cluster.
func current(cfg *clientcmdapi.Config) (string, *clientcmdapi.Cluster, error) {
	name := cfg.CurrentContext
	if name == "" && len(cfg.Contexts) == 1 {
		for n := range cfg.Contexts {
			name = n
		}
	}
	ctx := cfg.Contexts[name]
	if ctx == nil {
		return "", nil, errors.New("the kubeconfig has no current context")
	}
	cluster := cfg.Clusters[ctx.Cluster]
	if cluster == nil {
		return "", nil, fmt.Errorf("the kubeconfig's context %q names a cluster it does not define", name)
	}
	return name, cluster, nil
}
