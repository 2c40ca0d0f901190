package v1alpha1

// AccessSpec says who may reach the cluster's API server: people who sign in through an
// OpenID Connect issuer, and the networks the API server answers. The admin kubeconfig of
// the cluster's Secret keeps working for the platform either way (docs/access.md).
type AccessSpec struct {
	// OIDC lets people sign in with the organisation's identity provider. The cluster's
	// kubeconfig Secret then also holds oidc-kubeconfig: a kubeconfig without any secret
	// that signs in through kubelogin, for every member of the team. Omitted: the
	// environment's issuer, if it has one.
	//
	// +optional
	OIDC *OIDCSpec `json:"oidc,omitempty"`

	// AllowedSourceRanges are the networks (CIDRs in canonical form, such as
	// 203.0.113.0/24) that may reach the API server; every other source is dropped before it
	// reaches it. Omitted: the environment's ranges, else any. The environment may bound how
	// wide they can be, and says whether its landscape can restrict them at all.
	//
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="self.all(r, isCIDR(r) && string(cidr(r).masked()) == r)",message="spec.access.allowedSourceRanges must be CIDRs in canonical form, such as 203.0.113.0/24 or 2001:db8::/32"
	AllowedSourceRanges []string `json:"allowedSourceRanges,omitempty"`
}

// OIDCSpec is an OpenID Connect issuer the API server trusts for people's sign-in, as
// kube-apiserver's structured authentication configures one.
type OIDCSpec struct {
	OIDCClaims `json:",inline"`

	// CertificateAuthorityRef names a ConfigMap in the cluster's own namespace (a claim's
	// namespace) whose key holds the PEM CA of an issuer that is not publicly trusted.
	// Omitted: the issuer's certificate must be publicly trusted.
	//
	// +optional
	CertificateAuthorityRef *ConfigMapKeyRef `json:"certificateAuthorityRef,omitempty"`
}

// OIDCIssuer is an issuer as a platform writes it into an environment: its CA inline, since
// it is public and the environment has no namespace.
type OIDCIssuer struct {
	OIDCClaims `json:",inline"`

	// CertificateAuthority is the PEM CA of an issuer that is not publicly trusted.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=65536
	CertificateAuthority string `json:"certificateAuthority,omitempty"`
}

// OIDCClaims are the issuer and how its tokens' claims make a user and groups.
//
// +kubebuilder:validation:XValidation:rule="!has(self.usernamePrefix) || has(self.usernameClaim)",message="oidc.usernamePrefix needs oidc.usernameClaim: a prefix without its claim would apply to a default the backends do not share",fieldPath=".usernamePrefix"
// +kubebuilder:validation:XValidation:rule="!has(self.groupsPrefix) || has(self.groupsClaim)",message="oidc.groupsPrefix needs oidc.groupsClaim: without a groups claim no groups are read",fieldPath=".groupsPrefix"
type OIDCClaims struct {
	// IssuerURL is the issuer, an https URL that equals the tokens' iss claim, such as
	// https://login.example.com/realms/team.
	//
	// +kubebuilder:validation:MinLength=9
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.startsWith('https://') && isURL(self) && !self.contains('#') && !self.contains('?')",message="oidc.issuerURL must be an https URL without query or fragment, such as https://login.example.com/realms/team"
	IssuerURL string `json:"issuerURL"`

	// ClientID is the audience the tokens must be issued for, such as kubectl.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	ClientID string `json:"clientID"`

	// UsernameClaim is the claim that names the user, such as email or preferred_username.
	// Omitted: sub.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Za-z_][A-Za-z0-9_.:-]*$`
	UsernameClaim string `json:"usernameClaim,omitempty"`

	// UsernamePrefix is put before every user name, such as "oidc:", so that no token can
	// name a user of another authenticator. Needs usernameClaim. Omitted: "oidc:".
	//
	// +optional
	// +kubebuilder:validation:MaxLength=63
	UsernamePrefix *string `json:"usernamePrefix,omitempty"`

	// GroupsClaim is the claim that lists the user's groups, such as groups. Omitted: no
	// groups are read, and RBAC can bind only users.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Za-z_][A-Za-z0-9_.:-]*$`
	GroupsClaim string `json:"groupsClaim,omitempty"`

	// GroupsPrefix is put before every group name, such as "oidc:". Needs groupsClaim.
	// Omitted: "oidc:".
	//
	// +optional
	// +kubebuilder:validation:MaxLength=63
	GroupsPrefix *string `json:"groupsPrefix,omitempty"`
}

// ConfigMapKeyRef names one key of a ConfigMap in the cluster's own namespace.
type ConfigMapKeyRef struct {
	// Name of the ConfigMap.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	Name string `json:"name"`

	// Key in the ConfigMap's data. Omitted: ca.crt.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	Key string `json:"key,omitempty"`
}

// The defaults of OIDCSpec that every backend renders the same way.
const (
	DefaultOIDCUsernameClaim = "sub"
	DefaultOIDCPrefix        = "oidc:"
	DefaultOIDCCAKey         = "ca.crt"
)

// AccessStatus is the access in force: what the backend's native object carries.
type AccessStatus struct {
	// OIDC is the issuer people sign in through, with the claims the API server reads.
	//
	// +optional
	OIDC *OIDCStatus `json:"oidc,omitempty"`

	// AllowedSourceRanges are the networks the API server answers; empty: any.
	//
	// +optional
	// +listType=atomic
	AllowedSourceRanges []string `json:"allowedSourceRanges,omitempty"`
}

// OIDCStatus is the issuer a cluster's API server trusts, as its backend's native object
// carries it.
type OIDCStatus struct {
	IssuerURL string `json:"issuerURL"`
	ClientID  string `json:"clientID"`
	// UsernameClaim and UsernamePrefix make a user name: prefix + the claim's value.
	UsernameClaim string `json:"usernameClaim"`
	// +optional
	UsernamePrefix string `json:"usernamePrefix,omitempty"`
	// GroupsClaim and GroupsPrefix make the groups; no claim: no groups.
	//
	// +optional
	GroupsClaim string `json:"groupsClaim,omitempty"`
	// +optional
	GroupsPrefix string `json:"groupsPrefix,omitempty"`
}

// DefaultedAccess is what the environment filled in of spec.access. The issuer's CA is not
// recorded: it follows the environment's, so that a rotated CA reaches every cluster of
// that issuer at once (and no certificate sits in a status).
type DefaultedAccess struct {
	// +optional
	OIDC *OIDCClaims `json:"oidc,omitempty"`
	// +optional
	// +listType=atomic
	AllowedSourceRanges []string `json:"allowedSourceRanges,omitempty"`
}
