package gardener

import (
	"encoding/json"
	"fmt"
	"slices"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// ResourceAuthentication is the resource name of the ConfigMap with the Shoot's structured
// authentication, in the project namespace beside the Shoot.
const ResourceAuthentication = "gardener-authentication"

// AuthenticationConfigKey is the key of the ConfigMap Gardener reads the
// AuthenticationConfiguration from.
const AuthenticationConfigKey = "config.yaml"

// ACLExtensionType is the Shoot extension of gardener-extension-acl, which lets only the
// listed source ranges reach the API server (and the other endpoints of the Shoot's Istio
// ingress).
const ACLExtensionType = "acl"

// authenticationConfigMapName names the ConfigMap after the Shoot, which never changes.
func authenticationConfigMapName(shoot string) string { return shoot + "-authn" }

// authenticationConfiguration is kube-apiserver's structured authentication with the
// cluster's issuer, in v1beta1, which every minor Gardener offers with it (1.30 on) reads.
// An empty one stays behind when a cluster stops signing people in: the ConfigMap, once
// composed, is kept for the cluster's life (nothing of a backend is dropped).
func authenticationConfiguration(o *model.OIDC) ([]byte, error) {
	jwt := []any{}
	if o != nil {
		issuer := map[string]any{"url": o.IssuerURL, "audiences": []any{o.ClientID}}
		if o.CA != "" {
			issuer["certificateAuthority"] = o.CA
		}
		claims := map[string]any{"username": map[string]any{"claim": o.UsernameClaim, "prefix": o.UsernamePrefix}}
		if o.GroupsClaim != "" {
			claims["groups"] = map[string]any{"claim": o.GroupsClaim, "prefix": o.GroupsPrefix}
		}
		jwt = append(jwt, map[string]any{"issuer": issuer, "claimMappings": claims})
	}
	return yaml.Marshal(map[string]any{"apiVersion": "apiserver.config.k8s.io/v1beta1", "kind": "AuthenticationConfiguration", "jwt": jwt})
}

// authenticationConfigMap is the ConfigMap the Shoot's kube-apiserver settings reference.
func authenticationConfigMap(namespace, shoot string, o *model.OIDC) (*unstructured.Unstructured, error) {
	config, err := authenticationConfiguration(o)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": authenticationConfigMapName(shoot), "namespace": namespace},
		"data":     map[string]any{AuthenticationConfigKey: string(config)},
	}}, nil
}

// aclExtension is the ACL extension's configuration: allow the ranges, drop the rest.
func aclExtension(ranges []string) (gardencorev1beta1.Extension, error) {
	raw, err := json.Marshal(map[string]any{"rule": map[string]any{"action": "ALLOW", "type": "remote_ip", "cidrs": ranges}})
	if err != nil {
		return gardencorev1beta1.Extension{}, err
	}
	return gardencorev1beta1.Extension{Type: ACLExtensionType, ProviderConfig: &runtime.RawExtension{Raw: raw}}, nil
}

// applyAccess puts the access into the Shoot: the structured authentication's ConfigMap
// and the ACL extension.
func applyAccess(req *model.Request, shoot *gardencorev1beta1.Shoot) error {
	if req.Access.OIDC != nil {
		if shoot.Spec.Kubernetes.KubeAPIServer == nil {
			shoot.Spec.Kubernetes.KubeAPIServer = &gardencorev1beta1.KubeAPIServerConfig{}
		}
		shoot.Spec.Kubernetes.KubeAPIServer.StructuredAuthentication = &gardencorev1beta1.StructuredAuthentication{
			ConfigMapName: authenticationConfigMapName(shoot.Name)}
	}
	if len(req.Access.AllowedSourceRanges) > 0 {
		ext, err := aclExtension(req.Access.AllowedSourceRanges)
		if err != nil {
			return err
		}
		shoot.Spec.Extensions = append(shoot.Spec.Extensions, ext)
	}
	return nil
}

// accessInForce is what the observed Shoot and its ConfigMap carry.
func accessInForce(req *model.Request, shoot *gardencorev1beta1.Shoot) (*kaasv1alpha1.AccessStatus, error) {
	out := &kaasv1alpha1.AccessStatus{}
	for _, e := range shoot.Spec.Extensions {
		if e.Type != ACLExtensionType || e.ProviderConfig == nil || (e.Disabled != nil && *e.Disabled) {
			continue
		}
		var cfg struct {
			Rule struct {
				CIDRs []string `json:"cidrs"`
			} `json:"rule"`
		}
		if err := json.Unmarshal(e.ProviderConfig.Raw, &cfg); err != nil {
			return nil, fmt.Errorf("the Shoot's acl extension: %w", err)
		}
		out.AllowedSourceRanges = slices.Clone(cfg.Rule.CIDRs)
	}
	if k := shoot.Spec.Kubernetes.KubeAPIServer; k != nil && k.StructuredAuthentication != nil {
		cm, err := req.Native(ResourceAuthentication)
		if err != nil {
			return nil, err
		}
		if cm != nil && cm.GetName() == k.StructuredAuthentication.ConfigMapName {
			raw, _, _ := unstructured.NestedString(cm.Object, "data", AuthenticationConfigKey)
			if out.OIDC, err = issuerOf([]byte(raw)); err != nil {
				return nil, fmt.Errorf("ConfigMap %s/%s: %w", cm.GetNamespace(), cm.GetName(), err)
			}
		}
	}
	if out.OIDC == nil && len(out.AllowedSourceRanges) == 0 {
		return nil, nil
	}
	return out, nil
}

// issuerOf reads the first issuer of an AuthenticationConfiguration.
func issuerOf(raw []byte) (*kaasv1alpha1.OIDCStatus, error) {
	var cfg struct {
		JWT []struct {
			Issuer struct {
				URL       string   `json:"url"`
				Audiences []string `json:"audiences"`
			} `json:"issuer"`
			ClaimMappings struct {
				Username struct {
					Claim  string  `json:"claim"`
					Prefix *string `json:"prefix"`
				} `json:"username"`
				Groups struct {
					Claim  string  `json:"claim"`
					Prefix *string `json:"prefix"`
				} `json:"groups"`
			} `json:"claimMappings"`
		} `json:"jwt"`
	}
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		return nil, err
	}
	if len(cfg.JWT) == 0 {
		return nil, nil
	}
	j := cfg.JWT[0]
	out := &kaasv1alpha1.OIDCStatus{IssuerURL: j.Issuer.URL, UsernameClaim: j.ClaimMappings.Username.Claim,
		GroupsClaim: j.ClaimMappings.Groups.Claim}
	if len(j.Issuer.Audiences) > 0 {
		out.ClientID = j.Issuer.Audiences[0]
	}
	if p := j.ClaimMappings.Username.Prefix; p != nil {
		out.UsernamePrefix = *p
	}
	if p := j.ClaimMappings.Groups.Prefix; p != nil {
		out.GroupsPrefix = *p
	}
	return out, nil
}
