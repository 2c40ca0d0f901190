package model

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"
	"sync"

	"sigs.k8s.io/yaml"
)

// kubeconfig is the part of a kubeconfig file the connection contract reads.
type kubeconfig struct {
	CurrentContext string `json:"current-context"`
	Contexts       []struct {
		Name    string `json:"name"`
		Context struct {
			Cluster string `json:"cluster"`
		} `json:"context"`
	} `json:"contexts"`
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
	sum := sha256.Sum256(raw)
	kubeconfigs.Lock()
	e, ok := kubeconfigs.m[sum]
	kubeconfigs.Unlock()
	if !ok {
		var err error
		if e, err = parseKubeconfig(raw); err != nil {
			return nil, err
		}
		kubeconfigs.Lock()
		if len(kubeconfigs.m) >= maxParsedKubeconfigs {
			clear(kubeconfigs.m)
		}
		kubeconfigs.m[sum] = e
		kubeconfigs.Unlock()
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
// a tenth of a call. What is kept is public (endpoint and CA), never the kubeconfig; the
// map is emptied whenever it reaches maxParsedKubeconfigs.
var kubeconfigs = struct {
	sync.Mutex
	m map[[sha256.Size]byte]endpointAndCA
}{m: map[[sha256.Size]byte]endpointAndCA{}}

const maxParsedKubeconfigs = 1024

type endpointAndCA struct {
	endpoint string
	ca       []byte
}

// parseKubeconfig reads the endpoint and CA of a kubeconfig's current cluster.
func parseKubeconfig(raw []byte) (endpointAndCA, error) {
	var e endpointAndCA
	kc := kubeconfig{}
	if err := yaml.Unmarshal(raw, &kc); err != nil {
		// Not even the error may quote the content.
		return e, fmt.Errorf("the kubeconfig cannot be parsed as YAML")
	}
	cluster := ""
	for _, c := range kc.Contexts {
		if c.Name == kc.CurrentContext {
			cluster = c.Context.Cluster
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
