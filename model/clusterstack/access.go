package clusterstack

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// oidcConfig is the scs2 ClusterClass's oidcConfig variable, which becomes kube-apiserver's
// --oidc-* flags. Every field is set, the empty groups claim too: the ClusterClass would
// otherwise default it to groups, and the cluster would read groups the spec did not ask for.
type oidcConfig struct {
	IssuerURL      string `json:"issuerURL"`
	ClientID       string `json:"clientID"`
	UsernameClaim  string `json:"usernameClaim"`
	UsernamePrefix string `json:"usernamePrefix"`
	GroupsClaim    string `json:"groupsClaim"`
	GroupsPrefix   string `json:"groupsPrefix"`
}

// setAccess sets the access variables; validateAccess made sure the stack has them.
func setAccess(req *model.Request, vars *variables) {
	if o := req.Access.OIDC; o != nil {
		vars.set(envv1alpha1.VariableOIDCConfig, oidcConfig{IssuerURL: o.IssuerURL, ClientID: o.ClientID,
			UsernameClaim: o.UsernameClaim, UsernamePrefix: o.UsernamePrefixFlag(), GroupsClaim: o.GroupsClaim, GroupsPrefix: o.GroupsPrefix})
	}
	if len(req.Access.AllowedSourceRanges) > 0 {
		vars.set(envv1alpha1.VariableAPIServerAllowedCIDRs, req.Access.AllowedSourceRanges)
	}
}

// validateAccess refuses access the stack cannot apply: a cluster asking for it must not be
// left open while its status says it is closed.
func validateAccess(req *model.Request) field.ErrorList {
	cs := req.Environment.ClusterStack
	access := field.NewPath("spec", "access")
	var errs field.ErrorList
	if o := req.Access.OIDC; o != nil {
		if cs.VariableNames[envv1alpha1.VariableOIDCConfig] == "" {
			errs = append(errs, field.Forbidden(access.Child("oidc"), fmt.Sprintf(
				"this Cluster Stack environment maps no topology variable to it (data.clusterStack.variableNames.%s; scs2: oidcConfig)", envv1alpha1.VariableOIDCConfig)))
		}
		if o.CA != "" {
			p, where := access.Child("oidc", "certificateAuthorityRef"), "the CA"
			if a := req.Cluster.Spec.Access; a == nil || a.OIDC == nil || a.OIDC.CertificateAuthorityRef == nil {
				p, where = access.Child("oidc"), "the issuer's CA (from the environment's defaults.access.oidc.certificateAuthority)"
			}
			errs = append(errs, field.Forbidden(p, where+" cannot reach the API server: the Cluster Stack's oidcConfig variable takes no CA, so the issuer's certificate must be publicly trusted"))
		}
	}
	if len(req.Access.AllowedSourceRanges) > 0 {
		name := cs.VariableNames[envv1alpha1.VariableAPIServerAllowedCIDRs]
		lb := loadBalancer(cs)
		switch {
		case name == "":
			errs = append(errs, field.Forbidden(access.Child("allowedSourceRanges"), fmt.Sprintf(
				"this Cluster Stack environment maps no topology variable to it (data.clusterStack.variableNames.%s; scs2: apiServerLoadBalancerOctaviaAmphoraAllowedCIDRs)", envv1alpha1.VariableAPIServerAllowedCIDRs)))
		case strings.Contains(name, "OctaviaAmphora") && lb != envv1alpha1.ClusterStackAmphora:
			errs = append(errs, field.Forbidden(access.Child("allowedSourceRanges"), fmt.Sprintf(
				"the stack applies %s only with data.clusterStack.variables.%s %q, and this environment's API server load balancer is %q",
				name, envv1alpha1.ClusterStackLoadBalancerVariable, envv1alpha1.ClusterStackAmphora, lb)))
		}
	}
	return errs
}

// loadBalancer is the stack's API server load balancer: the environment's variable, else
// scs2's default.
func loadBalancer(cs *envv1alpha1.ClusterStack) string {
	var lb string
	if raw, ok := cs.Variables[envv1alpha1.ClusterStackLoadBalancerVariable]; ok && json.Unmarshal(raw, &lb) == nil {
		return lb
	}
	return "octavia-ovn"
}

// accessInForce is what the observed Cluster's variables carry.
func accessInForce(cs *envv1alpha1.ClusterStack, c *clusterv1.Cluster) *kaasv1alpha1.AccessStatus {
	out := &kaasv1alpha1.AccessStatus{}
	for _, v := range c.Spec.Topology.Variables {
		switch v.Name {
		case "":
		case cs.VariableNames[envv1alpha1.VariableOIDCConfig]:
			var o oidcConfig
			if json.Unmarshal(v.Value.Raw, &o) == nil && o.IssuerURL != "" {
				out.OIDC = &kaasv1alpha1.OIDCStatus{IssuerURL: o.IssuerURL, ClientID: o.ClientID, UsernameClaim: o.UsernameClaim,
					UsernamePrefix: model.UsernamePrefixOfFlag(o.UsernamePrefix), GroupsClaim: o.GroupsClaim, GroupsPrefix: o.GroupsPrefix}
			}
		case cs.VariableNames[envv1alpha1.VariableAPIServerAllowedCIDRs]:
			_ = json.Unmarshal(v.Value.Raw, &out.AllowedSourceRanges)
		}
	}
	if out.OIDC == nil && len(out.AllowedSourceRanges) == 0 {
		return nil
	}
	return out
}
