package model

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/yaml"
)

// kubeconfig is the part of a kubeconfig file the connection contract reads.
type kubeconfig struct {
	CurrentContext string `json:"current-context"`
	Contexts       []struct {
		Name    string `json:"name"`
		Context struct {
			Cluster string `json:"cluster"`
			User    string `json:"user"`
		} `json:"context"`
	} `json:"contexts"`
	Users []struct {
		Name string `json:"name"`
		User struct {
			ClientCertificateData string `json:"client-certificate-data"`
			ClientKeyData         string `json:"client-key-data"`
			Token                 string `json:"token"`
			// Exec and AuthProvider sign in with a program or plugin: nothing another
			// process can be handed (registration refuses them).
			Exec         any `json:"exec"`
			AuthProvider any `json:"auth-provider"`
		} `json:"user"`
	} `json:"users"`
	Clusters []struct {
		Name    string `json:"name"`
		Cluster struct {
			Server                   string `json:"server"`
			CertificateAuthorityData string `json:"certificate-authority-data"`
			CertificateAuthority     string `json:"certificate-authority"`
			InsecureSkipTLSVerify    bool   `json:"insecure-skip-tls-verify"`
			TLSServerName            string `json:"tls-server-name"`
			ProxyURL                 string `json:"proxy-url"`
		} `json:"cluster"`
	} `json:"clusters"`
}

// currentContext names the cluster and the user of the kubeconfig's current context.
func (kc *kubeconfig) currentContext() (cluster, user string) {
	for _, c := range kc.Contexts {
		if c.Name == kc.CurrentContext {
			return c.Context.Cluster, c.Context.User
		}
	}
	return "", ""
}

// isCurrent says whether the entry name is the one the current context names: that one, or
// the only one of entries when the context names none.
func isCurrent(name, current string, entries int) bool {
	return name == current || (current == "" && entries == 1)
}

// KubeconfigConnectionDetails are the kubeconfig and, where it names them, the endpoint and
// CA of its current cluster. Secret: never log it or put it into status.
func KubeconfigConnectionDetails(raw []byte) (map[string][]byte, error) {
	e, err := parsedKubeconfig(raw)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{ConnectionKeyKubeconfig: raw}
	if e.endpoint != "" {
		out[ConnectionKeyEndpoint] = []byte(e.endpoint)
	}
	if e.ca != nil {
		out[ConnectionKeyCA] = slices.Clone(e.ca)
	}
	return out, nil
}

// kubeconfigs caches the public parts of parsed kubeconfigs, never a kubeconfig
// (docs/performance.md#what-bounds-it).
var kubeconfigs = struct {
	sync.Mutex
	m map[[sha256.Size]byte]endpointAndCA
}{m: map[[sha256.Size]byte]endpointAndCA{}}

const maxParsedKubeconfigs = 1024

func parsedKubeconfig(raw []byte) (endpointAndCA, error) {
	sum := sha256.Sum256(raw)
	kubeconfigs.Lock()
	e, ok := kubeconfigs.m[sum]
	kubeconfigs.Unlock()
	if ok {
		return e, nil
	}
	e, err := parseKubeconfig(raw)
	if err != nil {
		return e, err
	}
	kubeconfigs.Lock()
	if len(kubeconfigs.m) >= maxParsedKubeconfigs {
		clear(kubeconfigs.m)
	}
	kubeconfigs.m[sum] = e
	kubeconfigs.Unlock()
	return e, nil
}

type endpointAndCA struct {
	endpoint string
	ca       []byte
	expires  time.Time // zero if unknown
}

func parseKubeconfig(raw []byte) (endpointAndCA, error) {
	var e endpointAndCA
	kc := kubeconfig{}
	if err := yaml.Unmarshal(raw, &kc); err != nil {
		// Not even the error may quote the content.
		return e, fmt.Errorf("the kubeconfig cannot be parsed as YAML")
	}
	cluster, user := kc.currentContext()
	for _, u := range kc.Users {
		if isCurrent(u.Name, user, len(kc.Users)) {
			e.expires = credentialsExpiry(u.User.ClientCertificateData, u.User.Token)
		}
	}
	for _, c := range kc.Clusters {
		if !isCurrent(c.Name, cluster, len(kc.Clusters)) {
			continue
		}
		if c.Cluster.Server != "" {
			e.endpoint = c.Cluster.Server
		}
		if c.Cluster.CertificateAuthorityData != "" {
			ca, err := base64.StdEncoding.DecodeString(c.Cluster.CertificateAuthorityData)
			if err != nil {
				return e, fmt.Errorf("the kubeconfig's certificate-authority-data is not base64")
			}
			e.ca = ca
		}
	}
	return e, nil
}

// credentialsExpiry is the earlier of a client certificate's NotAfter and a JWT's exp; zero
// when neither says. Nothing of the credentials leaves this function.
func credentialsExpiry(certData, token string) time.Time {
	var out time.Time
	earlier := func(t time.Time) {
		if !t.IsZero() && (out.IsZero() || t.Before(out)) {
			out = t
		}
	}
	if raw, err := base64.StdEncoding.DecodeString(certData); err == nil && len(raw) > 0 {
		if block, _ := pem.Decode(raw); block != nil {
			if cert, err := x509.ParseCertificate(block.Bytes); err == nil {
				earlier(cert.NotAfter)
			}
		}
	}
	if parts := strings.Split(token, "."); len(parts) == 3 {
		if payload, err := base64.RawURLEncoding.DecodeString(parts[1]); err == nil {
			var claims struct {
				Exp int64 `json:"exp"`
			}
			if json.Unmarshal(payload, &claims) == nil && claims.Exp > 0 {
				earlier(time.Unix(claims.Exp, 0).UTC())
			}
		}
	}
	return out
}

// KubeconfigRenewedNote ends the KubeconfigReady message of a backend that renews the
// kubeconfig (Gardener's live hours, by design): a close expiry is no reason to act.
const KubeconfigRenewedNote = "and renewed before then"

// KubeconfigExpiryWarning is how long before a kubeconfig expires unrenewed users are warned.
const KubeconfigExpiryWarning = 7 * 24 * time.Hour

// kubeconfigExpiry is when a delivered kubeconfig's credentials expire; zero if unknown.
func kubeconfigExpiry(raw []byte) time.Time {
	if len(raw) == 0 {
		return time.Time{}
	}
	e, err := parsedKubeconfig(raw)
	if err != nil {
		return time.Time{}
	}
	return e.expires
}
