package model

import (
	"encoding/base64"
	"fmt"

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
	kc := kubeconfig{}
	if err := yaml.Unmarshal(raw, &kc); err != nil {
		// Not even the error may quote the content.
		return nil, fmt.Errorf("the kubeconfig cannot be parsed as YAML")
	}
	out := map[string][]byte{ConnectionKeyKubeconfig: raw}
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
			out[ConnectionKeyEndpoint] = []byte(c.Cluster.Server)
		}
		if c.Cluster.CertificateAuthorityData != "" {
			ca, err := base64.StdEncoding.DecodeString(c.Cluster.CertificateAuthorityData)
			if err != nil {
				return nil, fmt.Errorf("the kubeconfig's certificate-authority-data is not base64")
			}
			out[ConnectionKeyCA] = ca
		}
	}
	return out, nil
}
