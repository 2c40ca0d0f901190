package magnum

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// Magnum's labels for the API server's OIDC flags and its load balancer's allowed CIDRs.
const (
	labelOIDCIssuerURL      = "oidc_issuer_url"
	labelOIDCClientID       = "oidc_client_id"
	labelOIDCUsernameClaim  = "oidc_username_claim"
	labelOIDCUsernamePrefix = "oidc_username_prefix"
	labelOIDCGroupsClaim    = "oidc_groups_claim"
	labelOIDCGroupsPrefix   = "oidc_groups_prefix"
	labelAllowedCIDRs       = "master_lb_allowed_cidrs"
)

// accessLabels are the labels of the access in force.
func accessLabels(a model.Access) map[string]string {
	out := map[string]string{}
	if o := a.OIDC; o != nil {
		out[labelOIDCIssuerURL], out[labelOIDCClientID], out[labelOIDCUsernameClaim] = o.IssuerURL, o.ClientID, o.UsernameClaim
		out[labelOIDCUsernamePrefix] = o.UsernamePrefixFlag()
		if o.GroupsClaim != "" {
			out[labelOIDCGroupsClaim], out[labelOIDCGroupsPrefix] = o.GroupsClaim, o.GroupsPrefix
		}
	}
	if len(a.AllowedSourceRanges) > 0 {
		out[labelAllowedCIDRs] = strings.Join(a.AllowedSourceRanges, ",")
	}
	return out
}

// accessLabelKeys are the labels accessLabels may set.
var accessLabelKeys = []string{labelOIDCIssuerURL, labelOIDCClientID, labelOIDCUsernameClaim, labelOIDCUsernamePrefix,
	labelOIDCGroupsClaim, labelOIDCGroupsPrefix, labelAllowedCIDRs}

// removedAccessLabels are the access labels applied (have) and no longer desired (want).
func removedAccessLabels(want, have any) []string {
	w, _ := want.(map[string]any)
	h, _ := have.(map[string]any)
	var out []string
	for _, k := range accessLabelKeys {
		_, desired := w[k]
		if _, applied := h[k]; applied && !desired {
			out = append(out, k)
		}
	}
	return out
}

// validateAccess refuses access Magnum cannot apply: a CA the labels cannot carry, and
// source ranges without the load balancer that enforces them.
func validateAccess(req *model.Request) field.ErrorList {
	var errs field.ErrorList
	access := field.NewPath("spec", "access")
	if o := req.Access.OIDC; o != nil && o.CA != "" {
		p, where := access.Child("oidc", "certificateAuthorityRef"), "the CA"
		if a := req.Cluster.Spec.Access; a == nil || a.OIDC == nil || a.OIDC.CertificateAuthorityRef == nil {
			p, where = access.Child("oidc"), "the issuer's CA (from the environment's defaults.access.oidc.certificateAuthority)"
		}
		errs = append(errs, field.Forbidden(p, where+" cannot reach the API server: Magnum has no label for an issuer's CA, so its certificate must be publicly trusted"))
	}
	if len(req.Access.AllowedSourceRanges) > 0 && !*req.Cluster.Spec.ControlPlane.HighAvailability && !req.Environment.Magnum.MasterLBEnabled {
		errs = append(errs, field.Forbidden(access.Child("allowedSourceRanges"), fmt.Sprintf(
			"Magnum restricts the API server at its load balancer (label %s), and a single control plane node gets none in this environment: set spec.controlPlane.highAvailability, or ask for data.magnum.masterLBEnabled", labelAllowedCIDRs)))
	}
	return errs
}

// accessInForce is what the observed cluster's labels carry.
func accessInForce(c managed) *kaasv1alpha1.AccessStatus {
	// What Magnum reports applied, else what was asked of it.
	labels, ok, _ := unstructured.NestedStringMap(c.obj.Object, "status", "atProvider", "labels")
	if !ok {
		labels, _, _ = unstructured.NestedStringMap(c.obj.Object, "spec", "forProvider", "labels")
	}
	get := func(k string) string { return labels[k] }
	out := &kaasv1alpha1.AccessStatus{}
	if url := get(labelOIDCIssuerURL); url != "" {
		out.OIDC = &kaasv1alpha1.OIDCStatus{IssuerURL: url, ClientID: get(labelOIDCClientID), UsernameClaim: get(labelOIDCUsernameClaim),
			UsernamePrefix: model.UsernamePrefixOfFlag(get(labelOIDCUsernamePrefix)), GroupsClaim: get(labelOIDCGroupsClaim),
			GroupsPrefix: get(labelOIDCGroupsPrefix)}
	}
	if r := get(labelAllowedCIDRs); r != "" {
		out.AllowedSourceRanges = strings.Split(r, ",")
	}
	if out.OIDC == nil && len(out.AllowedSourceRanges) == 0 {
		return nil
	}
	return out
}
