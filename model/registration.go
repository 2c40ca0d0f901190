package model

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// ResourceArgoCDCluster is the composed resource name of a cluster's Argo CD cluster Secret.
const ResourceArgoCDCluster = "registration-argocd"

// Labels of an Argo CD cluster Secret: Argo CD's own, and what an ApplicationSet's cluster
// generator selects on (docs/addons.md#argo-cd).
const (
	LabelArgoCDSecretType   = "argocd.argoproj.io/secret-type"
	ArgoCDSecretTypeCluster = "cluster"
	LabelBackend            = "kaas.scs.community/backend"
	LabelRegion             = "kaas.scs.community/region"
	LabelTeamNamespace      = "kaas.scs.community/namespace"
	LabelKubernetesMinor    = "kaas.scs.community/kubernetes-minor"
)

// registerArgoCD composes the cluster's Argo CD cluster Secret once the cluster is Ready with
// its kubeconfig, in the namespace the environment names (a namespaced composite: its own).
// A registration is never taken back while the cluster lives: Argo CD would delete what its
// ApplicationSets deployed there. So it stays where it was made, whatever the environment
// says now, and while no kubeconfig is delivered it stays as last applied. The credentials
// are only in the Secret's data: the message of a kubeconfig it cannot use names no value.
func registerArgoCD(in Input, req *Request, env *Environment, obs *Observation) ([]Resource, []Event) {
	observed := in.Observed[ResourceArgoCDCluster].Object
	namespace := ""
	switch {
	case observed != nil:
		namespace = observed.GetNamespace()
	case env.ArgoCD == nil:
		return nil, nil
	case req.Namespaced():
		namespace = req.Cluster.Namespace
	default:
		namespace = env.ArgoCD.Namespace
	}
	raw := obs.ConnectionDetails[ConnectionKeyKubeconfig]
	if !obs.Ready || len(raw) == 0 {
		if observed == nil {
			return nil, nil
		}
		return []Resource{{Name: ResourceArgoCDCluster, Object: LastApplied(observed), Disposable: true}}, nil
	}
	server, config, err := argoCDClusterConfig(raw)
	if err != nil {
		if observed == nil {
			return nil, []Event{{Type: EventWarning, Reason: kaasv1alpha1.ReasonRegistrationImpossible, Message: fmt.Sprintf(
				"the cluster is not registered in Argo CD (namespace %s): %v", namespace, err)}}
		}
		return []Resource{{Name: ResourceArgoCDCluster, Object: LastApplied(observed), Disposable: true}}, []Event{{Type: EventWarning,
			Reason: kaasv1alpha1.ReasonRegistrationImpossible, Message: fmt.Sprintf(
				"the cluster's Argo CD registration (namespace %s) stays as last applied: %v", namespace, err)}}
	}
	name := NativeName(req.Identity, 63)
	if observed != nil {
		name = observed.GetName()
	}
	labels := maps.Clone(req.Labels())
	maps.Copy(labels, map[string]string{
		LabelArgoCDSecretType:        ArgoCDSecretTypeCluster,
		envv1alpha1.LabelEnvironment: env.Name,
		LabelBackend:                 string(env.Backend),
		LabelRegion:                  req.Environment.Region,
		LabelTeamNamespace:           req.Identity.Namespace,
		LabelKubernetesMinor:         minorOf(req.Cluster.Spec.Kubernetes.Version),
	})
	// A value no label can carry (a region pinned before it was checked) is left out:
	// Crossplane could not apply the Secret at all.
	for k, v := range labels {
		if v == "" || len(validation.IsValidLabelValue(v)) > 0 {
			delete(labels, k)
		}
	}
	return []Resource{{Name: ResourceArgoCDCluster, Disposable: true, Object: &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "Secret",
		"metadata":   map[string]any{"name": name, "namespace": namespace, "labels": stringMap(labels)},
		"type":       "Opaque",
		"data": map[string]any{
			"name":   base64.StdEncoding.EncodeToString([]byte(name)),
			"server": base64.StdEncoding.EncodeToString([]byte(server)),
			"config": base64.StdEncoding.EncodeToString(config),
		},
	}}}}, nil
}

// argoCDConfig is the config key of an Argo CD cluster Secret.
type argoCDConfig struct {
	BearerToken     string          `json:"bearerToken,omitempty"`
	ProxyURL        string          `json:"proxyUrl,omitempty"`
	TLSClientConfig argoCDTLSConfig `json:"tlsClientConfig"`
}

type argoCDTLSConfig struct {
	Insecure   bool   `json:"insecure"`
	ServerName string `json:"serverName,omitempty"`
	CAData     string `json:"caData,omitempty"`
	CertData   string `json:"certData,omitempty"`
	KeyData    string `json:"keyData,omitempty"`
}

// argoCDClusterConfig reads the server and the credentials of a kubeconfig's current context
// into Argo CD's form. Secret: the errors name what is missing, never a value.
func argoCDClusterConfig(raw []byte) (string, []byte, error) {
	kc := kubeconfig{}
	if err := yaml.Unmarshal(raw, &kc); err != nil {
		return "", nil, errors.New("the kubeconfig cannot be parsed as YAML")
	}
	clusterName, userName := kc.currentContext()
	var cfg argoCDConfig
	server := ""
	for _, c := range kc.Clusters {
		if isCurrent(c.Name, clusterName, len(kc.Clusters)) {
			if c.Cluster.CertificateAuthority != "" {
				return "", nil, errors.New("its kubeconfig names its CA by a file (certificate-authority), which Argo CD cannot read; deliver certificate-authority-data")
			}
			server, cfg.ProxyURL = c.Cluster.Server, c.Cluster.ProxyURL
			cfg.TLSClientConfig.CAData = c.Cluster.CertificateAuthorityData
			cfg.TLSClientConfig.Insecure = c.Cluster.InsecureSkipTLSVerify
			cfg.TLSClientConfig.ServerName = c.Cluster.TLSServerName
		}
	}
	found := false
	for _, u := range kc.Users {
		if !isCurrent(u.Name, userName, len(kc.Users)) {
			continue
		}
		found = true
		if u.User.Exec != nil || u.User.AuthProvider != nil {
			return "", nil, errors.New("its kubeconfig signs in with a program (exec or auth-provider), which Argo CD cannot run; deliver client certificates or a token")
		}
		cfg.BearerToken = u.User.Token
		// A certificate without its key (or the reverse) is no credential: Argo CD would
		// refuse the pair, so only both are passed on.
		if u.User.ClientCertificateData != "" && u.User.ClientKeyData != "" {
			cfg.TLSClientConfig.CertData, cfg.TLSClientConfig.KeyData = u.User.ClientCertificateData, u.User.ClientKeyData
		}
	}
	switch {
	case server == "":
		return "", nil, errors.New("its kubeconfig names no server for its current context")
	case !found || (cfg.BearerToken == "" && cfg.TLSClientConfig.CertData == ""):
		return "", nil, errors.New("its kubeconfig holds neither a token nor a client certificate with its key inline (client-certificate-data, client-key-data)")
	}
	config, err := json.Marshal(cfg) //nolint:gosec // G117: the credentials go into the Argo CD cluster Secret's data, and only there
	if err != nil {
		return "", nil, errors.New("the Argo CD config cannot be encoded")
	}
	return server, config, nil
}

// withRegistration adds the cluster's Argo CD cluster Secret to the rendering.
func withRegistration(in Input, req *Request, env *Environment, rendering *Rendering, obs *Observation) (*Rendering, *Observation, []Event) {
	resources, events := registerArgoCD(in, req, env, obs)
	rendering, obs = withReadyResources(rendering, obs, resources)
	return rendering, obs, events
}

// validateArgoCDRegistration checks where the environment registers its clusters, and that
// the values its cluster Secrets are labelled with can be label values.
func validateArgoCDRegistration(data *field.Path, env *Environment) field.ErrorList {
	if env.ArgoCD == nil {
		return nil
	}
	var errs field.ErrorList
	p, ns := data.Child("argoCD", "namespace"), env.ArgoCD.Namespace
	switch ns {
	case "":
		errs = append(errs, field.Required(p, "the namespace Argo CD runs in, such as argocd"))
	default:
		for _, msg := range validation.IsDNS1123Label(ns) {
			errs = append(errs, field.Invalid(p, ns, msg))
		}
	}
	for _, msg := range validation.IsValidLabelValue(env.Region) {
		errs = append(errs, field.Invalid(data.Child("region"), env.Region, "labels the Argo CD cluster Secrets ("+LabelRegion+"): "+msg))
	}
	return errs
}
