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
			Token                 string `json:"token"`
		} `json:"user"`
	} `json:"users"`
	Clusters []struct {
		Name    string `json:"name"`
		Cluster struct {
			Server                   string `json:"server"`
			CertificateAuthorityData string `json:"certificate-authority-data"`
		} `json:"cluster"`
	} `json:"clusters"`
}

// KubeconfigConnectionDetails returns the connection details every backend delivers for a
// kubeconfig: the kubeconfig itself, and the endpoint and CA of its current cluster where
// it names them. The kubeconfig is secret: callers never log it or put it into status.
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

// kubeconfigs remembers what the kubeconfigs seen last gave, by their SHA-256: a cluster's
// kubeconfig is the same on every reconcile until it is renewed, and parsing its YAML was
// a tenth of a call. What is kept is public (endpoint, CA, when the credentials expire),
// never the kubeconfig; the map is emptied whenever it reaches maxParsedKubeconfigs.
var kubeconfigs = struct {
	sync.Mutex
	m map[[sha256.Size]byte]endpointAndCA
}{m: map[[sha256.Size]byte]endpointAndCA{}}

const maxParsedKubeconfigs = 1024

// parsedKubeconfig parses a kubeconfig once per content (kubeconfigs).
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
	// expires is when the current user's credentials stop working: the client
	// certificate's NotAfter or a token's exp, whichever comes first; zero if unknown.
	expires time.Time
}

// parseKubeconfig reads the endpoint and CA of a kubeconfig's current cluster.
func parseKubeconfig(raw []byte) (endpointAndCA, error) {
	var e endpointAndCA
	kc := kubeconfig{}
	if err := yaml.Unmarshal(raw, &kc); err != nil {
		// Not even the error may quote the content.
		return e, fmt.Errorf("the kubeconfig cannot be parsed as YAML")
	}
	cluster, user := "", ""
	for _, c := range kc.Contexts {
		if c.Name == kc.CurrentContext {
			cluster, user = c.Context.Cluster, c.Context.User
		}
	}
	for _, u := range kc.Users {
		if u.Name == user || (user == "" && len(kc.Users) == 1) {
			e.expires = credentialsExpiry(u.User.ClientCertificateData, u.User.Token)
		}
	}
	for _, c := range kc.Clusters {
		if c.Name != cluster && !(cluster == "" && len(kc.Clusters) == 1) {
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

// credentialsExpiry is when a kubeconfig user's credentials expire: the client
// certificate's NotAfter, or a JWT token's exp, whichever is earlier; zero when neither
// says. Nothing of the credentials leaves this function.
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
// kubeconfig before it expires (Gardener's admin kubeconfigs live hours, by design): an
// expiry date close ahead is then no reason to act.
const KubeconfigRenewedNote = "and renewed before then"

// KubeconfigExpiryWarning is how long before a delivered kubeconfig expires that the
// cluster's users are warned, when the backend has not renewed it.
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
