package controlplane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// Structured authentication of a cluster's API server (StartClusterWithAuthentication): the
// file --authentication-config names, which kube-apiserver reloads by itself, so that a test
// can let people of an OIDC issuer sign in to a running cluster, or stop letting them.
//
// How fast a change takes effect, read in Kubernetes v1.34.2 (pkg/kubeapiserver/options/
// authentication.go, pkg/util/filesystem/watcher.go, pkg/kubeapiserver/authenticator/
// config.go, and the apiserver's plugin/pkg/authenticator/token/oidc):
//   - The file is watched with fsnotify, and polled once a minute besides; a rename onto it
//     is an event, handled at once, and the watch follows the new file.
//   - The new authenticators are swapped in only once each is healthy, that is once it has
//     fetched its issuer's discovery document. That check runs at once and then every 10 s,
//     and the fetch starts in the background at the same moment, so the first check nearly
//     always misses: an added issuer is accepted about 10 s after the write (measured: 10.2 s).
//   - Without JWT authenticators there is nothing to wait for: removing them takes effect at
//     once. But kube-apiserver caches a token it accepted for 10 s (TokenSuccessCacheTTL, no
//     flag), so the same token is still accepted for up to 10 s after (measured: 10.2 s); a
//     refusal is not cached, which is why adding does not wait on the cache.
//   - An issuer that does not answer keeps the old configuration for up to a minute (the
//     update's timeout); the next event or the minute's poll tries again. Start the issuer
//     first.
//   - A file that does not parse or validate is logged and ignored until it changes again
//     ("failed to load/validate authentication config" in the API server's log).

// authenticationConfigFile is the file under a cluster's directory that
// --authentication-config names.
const authenticationConfigFile = "authentication.yaml"

// JWTAuthenticator is one jwt entry of the API server's AuthenticationConfiguration
// (apiserver.config.k8s.io/v1): whose tokens it accepts and who they make the holder.
type JWTAuthenticator struct {
	// IssuerURL is issuer.url: https, equal to the tokens' iss.
	IssuerURL string
	// CAPEM is issuer.certificateAuthority, the PEM CA of the issuer's serving certificate.
	CAPEM string
	// Audiences is issuer.audiences; a token's aud must hold one of them.
	Audiences []string
	// UsernameClaim and UsernamePrefix are claimMappings.username: the claim that names
	// the user (email, sub, ...) and what goes in front of it. The prefix is written even
	// when empty, which the API server requires once a claim is given.
	UsernameClaim, UsernamePrefix string
	// GroupsClaim and GroupsPrefix are claimMappings.groups, mapped only when GroupsClaim is
	// set.
	GroupsClaim, GroupsPrefix string
	// RequireGroups refuses tokens without the groups claim (a claim validation rule), so
	// that a person of the issuer who is in no group cannot sign in at all.
	RequireGroups bool
}

// The v1 schema, as much of it as JWTAuthenticator sets.
type (
	authenticationConfiguration struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		// Never omitted: an empty list is an API server that accepts no JWTs (beside the
		// other authenticators), which kube-apiserver v1.34 allows so that authenticators
		// can be added by a reload later.
		JWT []jwtAuthenticator `json:"jwt"`
	}
	jwtAuthenticator struct {
		Issuer               issuer                `json:"issuer"`
		ClaimValidationRules []claimValidationRule `json:"claimValidationRules,omitempty"`
		ClaimMappings        claimMappings         `json:"claimMappings"`
	}
	issuer struct {
		URL                  string   `json:"url"`
		CertificateAuthority string   `json:"certificateAuthority,omitempty"`
		Audiences            []string `json:"audiences"`
		// Required by the API server when there is more than one audience.
		AudienceMatchPolicy string `json:"audienceMatchPolicy,omitempty"`
	}
	claimValidationRule struct {
		Expression string `json:"expression"`
		Message    string `json:"message,omitempty"`
	}
	claimMappings struct {
		Username prefixedClaim  `json:"username"`
		Groups   *prefixedClaim `json:"groups,omitempty"`
	}
	prefixedClaim struct {
		Claim  string `json:"claim"`
		Prefix string `json:"prefix"` // never omitted, see JWTAuthenticator.UsernamePrefix
	}
)

// celIdentifier is a claim name that a CEL field selection (claims.NAME) can reach.
var celIdentifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// renderAuthenticationConfiguration renders jwt in the v1 schema.
func renderAuthenticationConfiguration(jwt []JWTAuthenticator) ([]byte, error) {
	cfg := authenticationConfiguration{APIVersion: "apiserver.config.k8s.io/v1", Kind: "AuthenticationConfiguration", JWT: []jwtAuthenticator{}}
	for _, a := range jwt {
		if a.UsernameClaim == "" {
			return nil, fmt.Errorf("JWT authenticator for %s: no UsernameClaim", a.IssuerURL)
		}
		out := jwtAuthenticator{
			Issuer:        issuer{URL: a.IssuerURL, CertificateAuthority: a.CAPEM, Audiences: a.Audiences},
			ClaimMappings: claimMappings{Username: prefixedClaim{Claim: a.UsernameClaim, Prefix: a.UsernamePrefix}},
		}
		if len(a.Audiences) > 1 {
			out.Issuer.AudienceMatchPolicy = "MatchAny"
		}
		if a.GroupsClaim != "" {
			out.ClaimMappings.Groups = &prefixedClaim{Claim: a.GroupsClaim, Prefix: a.GroupsPrefix}
		}
		if a.RequireGroups {
			if !celIdentifier.MatchString(a.GroupsClaim) {
				return nil, fmt.Errorf("JWT authenticator for %s: RequireGroups needs a GroupsClaim that is a CEL identifier, not %q", a.IssuerURL, a.GroupsClaim)
			}
			out.ClaimValidationRules = append(out.ClaimValidationRules, claimValidationRule{
				Expression: "has(claims." + a.GroupsClaim + ")",
				Message:    "the token has no " + a.GroupsClaim + " claim",
			})
		}
		cfg.JWT = append(cfg.JWT, out)
	}
	return yaml.Marshal(cfg)
}

// writeAuthenticationConfiguration writes jwt to path atomically (a temporary file renamed
// onto it): the API server reacts to the first event it sees and must never read half a
// file, which it would remember as invalid until the next change.
func writeAuthenticationConfiguration(path string, jwt []JWTAuthenticator) error {
	data, err := renderAuthenticationConfiguration(jwt)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err = errors.Join(err, tmp.Close()); err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// SetJWTAuthenticators replaces the JWT authenticators of a cluster started with
// StartClusterWithAuthentication; nil or empty removes them all. It returns once the file is
// written: the API server takes the change up by itself, about 10 s later (see the top of
// this file), so a test waits for the condition it needs, for example with Whoami.
func (c *Cluster) SetJWTAuthenticators(ctx context.Context, jwt []JWTAuthenticator) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// The cluster's directory is its kubeconfig's (startCluster).
	path := filepath.Join(filepath.Dir(c.Kubeconfig), authenticationConfigFile)
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("cluster %s was not started with structured authentication (StartClusterWithAuthentication): %w", c.Name, err)
	}
	return writeAuthenticationConfiguration(path, jwt)
}

// Whoami asks the API server who token makes its holder (a SelfSubjectReview, which every
// authenticated user may create), through a client that carries nothing but the cluster's
// CA and the token, so that no other credential can answer for it. A token the API server
// refuses is an error for which apierrors.IsUnauthorized is true.
func (c *Cluster) Whoami(ctx context.Context, token string) (username string, groups []string, err error) {
	client, err := kubernetes.NewForConfig(&rest.Config{
		Host:            c.URL,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: c.ca.certPEM},
	})
	if err != nil {
		return "", nil, err
	}
	review, err := client.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return "", nil, err
	}
	return review.Status.UserInfo.Username, review.Status.UserInfo.Groups, nil
}
