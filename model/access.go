package model

import (
	"cmp"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// OIDCCARequirement fetches the ConfigMap that spec.access.oidc.certificateAuthorityRef names,
// in the cluster's own namespace: never one the spec could point elsewhere.
const OIDCCARequirement = "oidc-ca"

// Access is who may reach a cluster's API server, resolved for the backends: the spec's
// values, else the cluster's recorded defaults, with the claims' defaults filled in the same
// way for every backend and the issuer's CA read. Backends render it, never the spec's
// access, so that all of them give a sign-in the same meaning.
type Access struct {
	// OIDC is the issuer people sign in through; nil: none.
	OIDC *OIDC
	// AllowedSourceRanges are the networks that may reach the API server: the cluster's and
	// the environment's always-allowed ones, in canonical form, sorted; empty: any.
	AllowedSourceRanges []string
}

// OIDC is an issuer with every claim and prefix decided.
type OIDC struct {
	kaasv1alpha1.OIDCStatus
	// CA is the issuer's PEM CA; empty: publicly trusted.
	CA string
}

// Status is what the access says in status.access.
func (a Access) Status() *kaasv1alpha1.AccessStatus {
	if a.OIDC == nil && len(a.AllowedSourceRanges) == 0 {
		return nil
	}
	out := &kaasv1alpha1.AccessStatus{AllowedSourceRanges: slices.Clone(a.AllowedSourceRanges)}
	if a.OIDC != nil {
		o := a.OIDC.OIDCStatus
		out.OIDC = &o
	}
	return out
}

// defaultAccess fills spec.access from the defaults the cluster keeps (its record), or, for a
// cluster without a record yet, the environment's. A cluster created before access was
// recorded has a record without it, and so takes no issuer or range the environment adds.
func defaultAccess(in *kaasv1alpha1.AccessSpec, d *kaasv1alpha1.DefaultedAccess) *kaasv1alpha1.AccessSpec {
	out := kaasv1alpha1.AccessSpec{}
	if in != nil {
		out = *in.DeepCopy()
	}
	if d != nil {
		if out.OIDC == nil && d.OIDC != nil {
			out.OIDC = &kaasv1alpha1.OIDCSpec{OIDCClaims: *d.OIDC.DeepCopy()}
		}
		if len(out.AllowedSourceRanges) == 0 {
			out.AllowedSourceRanges = slices.Clone(d.AllowedSourceRanges)
		}
	}
	if out.OIDC == nil && len(out.AllowedSourceRanges) == 0 {
		return nil
	}
	return &out
}

// accessDefaults are those recorded for the cluster, else the environment's.
func accessDefaults(env *Environment, kept *kaasv1alpha1.DefaultedValues) *kaasv1alpha1.DefaultedAccess {
	if kept != nil {
		return kept.Access
	}
	if env.Defaults.Access == nil {
		return nil
	}
	out := &kaasv1alpha1.DefaultedAccess{AllowedSourceRanges: slices.Clone(env.Defaults.Access.AllowedSourceRanges)}
	if o := env.Defaults.Access.OIDC; o != nil {
		out.OIDC = o.OIDCClaims.DeepCopy()
	}
	return out
}

// accessRecord is what the defaults gave spec.access, for status.defaulted.access.
func accessRecord(in *kaasv1alpha1.AccessSpec, d *kaasv1alpha1.DefaultedAccess) *kaasv1alpha1.DefaultedAccess {
	if d == nil {
		return nil
	}
	out := kaasv1alpha1.DefaultedAccess{}
	if in == nil || in.OIDC == nil {
		out.OIDC = d.OIDC.DeepCopy()
	}
	if in == nil || len(in.AllowedSourceRanges) == 0 {
		out.AllowedSourceRanges = slices.Clone(d.AllowedSourceRanges)
	}
	if out.OIDC == nil && len(out.AllowedSourceRanges) == 0 {
		return nil
	}
	return &out
}

// accessRequirements fetch the issuer's CA where the spec names a ConfigMap for it.
func accessRequirements(req *Request) map[string]Selector {
	a := req.Cluster.Spec.Access
	if a == nil || a.OIDC == nil || a.OIDC.CertificateAuthorityRef == nil {
		return nil
	}
	ns := tenantNamespace(req.Cluster)
	if ns == "" {
		return nil
	}
	return map[string]Selector{OIDCCARequirement: {APIVersion: "v1", Kind: "ConfigMap", Namespace: ns,
		MatchName: a.OIDC.CertificateAuthorityRef.Name}}
}

// tenantNamespace is the namespace the cluster belongs to: a namespaced composite's own, a
// claim's; empty for a composite the platform made without a claim.
func tenantNamespace(xr *kaasv1alpha1.XSCSCluster) string {
	if xr.Namespace != "" {
		return xr.Namespace
	}
	return xr.GetLabels()[LabelClaimNamespace]
}

// ResolveAccess decides the access the backends render, from the defaulted spec: the
// claims' defaults, the CA from the team's ConfigMap or the recorded issuer, and the
// environment's always-allowed ranges (a setting the cluster keeps) once it has any range.
func ResolveAccess(req *Request, required map[string][]*unstructured.Unstructured) (Access, error) {
	spec := req.Cluster.Spec.Access
	if spec == nil {
		return Access{}, nil
	}
	var out Access
	if o := spec.OIDC; o != nil {
		ca, err := oidcCA(req, o, required)
		if err != nil {
			return Access{}, err
		}
		out.OIDC = &OIDC{CA: ca, OIDCStatus: kaasv1alpha1.OIDCStatus{
			IssuerURL: o.IssuerURL, ClientID: o.ClientID,
			UsernameClaim:  cmp.Or(o.UsernameClaim, kaasv1alpha1.DefaultOIDCUsernameClaim),
			UsernamePrefix: prefixOr(o.UsernamePrefix),
		}}
		if o.GroupsClaim != "" {
			out.OIDC.GroupsClaim, out.OIDC.GroupsPrefix = o.GroupsClaim, prefixOr(o.GroupsPrefix)
		}
	}
	if len(spec.AllowedSourceRanges) > 0 {
		var always []string
		if p := req.Environment.APIServerAccess; p != nil {
			always = p.AlwaysAllowedSourceRanges
		}
		out.AllowedSourceRanges = slices.Concat(spec.AllowedSourceRanges, always)
		slices.Sort(out.AllowedSourceRanges)
		out.AllowedSourceRanges = slices.Compact(out.AllowedSourceRanges)
	}
	return out, nil
}

// UsernamePrefixFlag is the issuer's username prefix as kube-apiserver's
// --oidc-username-prefix takes it, for backends that set the flags (Cluster Stacks, Magnum):
// "-" for none, since an empty flag prefixes every name but an email with the issuer URL.
func (o *OIDC) UsernamePrefixFlag() string {
	if o.UsernamePrefix == "" {
		return noUsernamePrefixFlag
	}
	return o.UsernamePrefix
}

// UsernamePrefixOfFlag reads --oidc-username-prefix back as the spec's prefix.
func UsernamePrefixOfFlag(flag string) string {
	if flag == noUsernamePrefixFlag {
		return ""
	}
	return flag
}

const noUsernamePrefixFlag = "-"

func prefixOr(p *string) string {
	if p == nil {
		return kaasv1alpha1.DefaultOIDCPrefix
	}
	return *p
}

// oidcCA is the issuer's CA: from the team's ConfigMap, else the environment's when the
// spec's issuer (named or taken from the defaults) is the environment's, else none
// (publicly trusted).
func oidcCA(req *Request, o *kaasv1alpha1.OIDCSpec, required map[string][]*unstructured.Unstructured) (string, error) {
	if ref := o.CertificateAuthorityRef; ref != nil {
		p := field.NewPath("spec", "access", "oidc", "certificateAuthorityRef")
		ns := tenantNamespace(req.Cluster)
		if ns == "" {
			return "", invalidAccess(req, field.Forbidden(p, "a cluster without a namespace (a composite made without a claim) has no ConfigMap to read; put the CA into the environment's defaults.access.oidc"))
		}
		key := cmp.Or(ref.Key, kaasv1alpha1.DefaultOIDCCAKey)
		for _, cm := range required[OIDCCARequirement] {
			if cm.GetName() != ref.Name || cm.GetNamespace() != ns {
				continue
			}
			v, _, _ := unstructured.NestedString(cm.Object, "data", key)
			if err := checkPEMCA(v); err != nil {
				return "", invalidAccess(req, field.Invalid(p.Child("key"), key, fmt.Sprintf("ConfigMap %s/%s: %v", ns, ref.Name, err)))
			}
			return v, nil
		}
		return "", invalidAccess(req, field.NotFound(p.Child("name"), ref.Name))
	}
	if d := req.Environment.Defaults.Access; d != nil && d.OIDC != nil && d.OIDC.IssuerURL == o.IssuerURL {
		return d.OIDC.CertificateAuthority, nil
	}
	return "", nil
}

func invalidAccess(req *Request, errs ...*field.Error) error {
	return &InvalidError{Reason: kaasv1alpha1.ReasonInvalidSpec, Subject: fmt.Sprintf("%s %q", kaasv1alpha1.CompositeKind, req.Cluster.Name), Errs: errs}
}

// checkPEMCA says whether s holds at least one PEM certificate and nothing else.
func checkPEMCA(s string) error {
	rest, n := []byte(s), 0
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			return fmt.Errorf("holds a PEM block of type %s; only CERTIFICATE blocks are allowed", b.Type)
		}
		if _, err := x509.ParseCertificate(b.Bytes); err != nil {
			return fmt.Errorf("holds a certificate that cannot be parsed: %v", err)
		}
		n++
	}
	if n == 0 || strings.TrimSpace(string(rest)) != "" {
		return fmt.Errorf("must hold PEM certificates only")
	}
	return nil
}

// ValidateAccess checks spec.access against the environment's policy, beside what CEL says
// at admission: the function sees every spec, also one from before a rule existed. The
// policy binds what the team names; what the cluster took from the environment's defaults
// (defaulted, its record) was the environment's own, and an edit of the environment never
// refuses a running cluster for it. created says the cluster exists in its backend: the
// rule that it must name ranges applies to new clusters only, for the same reason.
func ValidateAccess(spec *kaasv1alpha1.ClusterSpec, defaulted *kaasv1alpha1.DefaultedAccess, env *Environment, created bool) field.ErrorList {
	p := field.NewPath("spec", "access")
	policy := env.APIServerAccess
	if policy == nil {
		policy = &envv1alpha1.APIServerAccess{}
	}
	a := spec.Access
	if a == nil {
		a = &kaasv1alpha1.AccessSpec{}
	}
	if defaulted == nil {
		defaulted = &kaasv1alpha1.DefaultedAccess{}
	}
	var errs field.ErrorList
	if a.OIDC != nil {
		errs = append(errs, validateOIDCClaims(p.Child("oidc"), &a.OIDC.OIDCClaims)...)
		if d := env.Defaults.Access; policy.EnforceOIDC && defaulted.OIDC == nil && d != nil && d.OIDC != nil &&
			(a.OIDC.IssuerURL != d.OIDC.IssuerURL || a.OIDC.ClientID != d.OIDC.ClientID) {
			errs = append(errs, field.Forbidden(p.Child("oidc", "issuerURL"), fmt.Sprintf(
				"environment %s signs people in through %s (client %s) only: leave spec.access.oidc out to take it", env.Name, d.OIDC.IssuerURL, d.OIDC.ClientID)))
		}
	}
	rp := p.Child("allowedSourceRanges")
	for i, r := range a.AllowedSourceRanges {
		if err := checkCIDR(r); err != nil {
			errs = append(errs, field.Invalid(rp.Index(i), r, err.Error()))
			continue
		}
		if len(policy.SourceRangesWithin) > 0 && len(defaulted.AllowedSourceRanges) == 0 && !withinAny(r, policy.SourceRangesWithin) {
			errs = append(errs, field.Forbidden(rp.Index(i), fmt.Sprintf("%s is wider than environment %s allows: every range must lie within %s",
				r, env.Name, strings.Join(policy.SourceRangesWithin, ", "))))
		}
	}
	switch {
	case len(a.AllowedSourceRanges) > 0 && !policy.RestrictSourceRanges && len(defaulted.AllowedSourceRanges) == 0:
		errs = append(errs, field.Forbidden(rp, fmt.Sprintf(
			"environment %s cannot restrict who reaches an API server (its data.apiServerAccess.restrictSourceRanges is not set): leave spec.access.allowedSourceRanges out, or ask the platform team for an environment that can", env.Name)))
	case len(a.AllowedSourceRanges) == 0 && len(policy.SourceRangesWithin) > 0 && !created:
		errs = append(errs, field.Required(rp, fmt.Sprintf("environment %s opens API servers only to ranges within %s: name them",
			env.Name, strings.Join(policy.SourceRangesWithin, ", "))))
	}
	return errs
}

// validateOIDCClaims checks an issuer as CEL does at admission.
func validateOIDCClaims(p *field.Path, o *kaasv1alpha1.OIDCClaims) field.ErrorList {
	var errs field.ErrorList
	if u, err := url.Parse(o.IssuerURL); err != nil || u.Scheme != "https" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" ||
		strings.Contains(o.IssuerURL, "#") || strings.Contains(o.IssuerURL, "?") {
		errs = append(errs, field.Invalid(p.Child("issuerURL"), o.IssuerURL, "must be an https URL without query or fragment, such as https://login.example.com/realms/team"))
	}
	if o.ClientID == "" {
		errs = append(errs, field.Required(p.Child("clientID"), "the audience the tokens are issued for, such as kubectl"))
	}
	if o.UsernamePrefix != nil && o.UsernameClaim == "" {
		errs = append(errs, field.Forbidden(p.Child("usernamePrefix"), "needs usernameClaim: a prefix without its claim would apply to a default the backends do not share"))
	}
	if o.GroupsPrefix != nil && o.GroupsClaim == "" {
		errs = append(errs, field.Forbidden(p.Child("groupsPrefix"), "needs groupsClaim: without a groups claim no groups are read"))
	}
	return errs
}

// validateAccessEnvironment checks the environment's access defaults and policy.
func validateAccessEnvironment(env *envv1alpha1.Environment) field.ErrorList {
	var errs field.ErrorList
	data := field.NewPath("data")
	if d := env.Defaults.Access; d != nil {
		p := data.Child("defaults", "access")
		if d.OIDC != nil {
			errs = append(errs, validateOIDCClaims(p.Child("oidc"), &d.OIDC.OIDCClaims)...)
			if d.OIDC.CertificateAuthority != "" {
				if err := checkPEMCA(d.OIDC.CertificateAuthority); err != nil {
					errs = append(errs, field.Invalid(p.Child("oidc", "certificateAuthority"), "(PEM)", err.Error()))
				}
			}
		}
		errs = append(errs, validateCIDRs(p.Child("allowedSourceRanges"), d.AllowedSourceRanges)...)
		// Defaults the policy refuses would refuse every cluster that names no ranges, for
		// a field it never set.
		a := env.APIServerAccess
		if len(d.AllowedSourceRanges) > 0 && (a == nil || !a.RestrictSourceRanges) {
			errs = append(errs, field.Forbidden(p.Child("allowedSourceRanges"), "needs data.apiServerAccess.restrictSourceRanges: without it no cluster can be restricted"))
		}
		for i, r := range d.AllowedSourceRanges {
			if a != nil && len(a.SourceRangesWithin) > 0 && checkCIDR(r) == nil && !withinAny(r, a.SourceRangesWithin) {
				errs = append(errs, field.Forbidden(p.Child("allowedSourceRanges").Index(i), "lies outside data.apiServerAccess.sourceRangesWithin"))
			}
		}
	}
	if a := env.APIServerAccess; a != nil {
		p := data.Child("apiServerAccess")
		errs = append(errs, validateCIDRs(p.Child("sourceRangesWithin"), a.SourceRangesWithin)...)
		errs = append(errs, validateCIDRs(p.Child("alwaysAllowedSourceRanges"), a.AlwaysAllowedSourceRanges)...)
		if a.EnforceOIDC && (env.Defaults.Access == nil || env.Defaults.Access.OIDC == nil) {
			errs = append(errs, field.Required(data.Child("defaults", "access", "oidc"), "enforceOIDC needs the issuer every cluster signs in through"))
		}
	}
	return errs
}

func validateCIDRs(p *field.Path, ranges []string) field.ErrorList {
	var errs field.ErrorList
	for i, r := range ranges {
		if err := checkCIDR(r); err != nil {
			errs = append(errs, field.Invalid(p.Index(i), r, err.Error()))
		}
	}
	return errs
}

// checkCIDR accepts a CIDR in canonical form, as the XRD's CEL rule does.
func checkCIDR(s string) error {
	p, err := netip.ParsePrefix(s)
	if err != nil || p.Masked().String() != s {
		return fmt.Errorf("must be a CIDR in canonical form, such as 203.0.113.0/24 or 2001:db8::/32")
	}
	return nil
}

// withinAny says whether the range r lies within one of the ranges of bounds.
func withinAny(r string, bounds []string) bool {
	p, err := netip.ParsePrefix(r)
	if err != nil {
		return false
	}
	for _, b := range bounds {
		q, err := netip.ParsePrefix(b)
		if err == nil && q.Bits() <= p.Bits() && q.Contains(p.Addr()) {
			return true
		}
	}
	return false
}
