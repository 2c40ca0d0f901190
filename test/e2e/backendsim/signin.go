package backendsim

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
)

// Sign-in is a stand-in mapping: each backend turns what the function rendered into its
// API servers' authentication settings (Gardener's kube-apiserver reads the structured
// authentication ConfigMap, kubeadm and Magnum's Heat templates turn variables and labels
// into --oidc-* flags), and the simulator does the same for the workload API server that
// stands in for the backend's clusters, as kube-apiserver's structured authentication,
// which it reloads while it runs. The workload then signs people in exactly as the
// rendered object says, and refuses what it refuses.

// signIn is what the simulator knows of one cluster's sign-in: its workload and issuer.
type signIn struct {
	workload *Workload
	jwt      *controlplane.JWTAuthenticator
}

// recordSignIn notes the issuer a cluster's rendered object asks for (nil: none); Step
// writes each workload's authenticators once it has looked at every cluster.
func (s *Simulator) recordSignIn(w *Workload, key string, jwt *controlplane.JWTAuthenticator) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.signIns == nil {
		s.signIns = map[string]signIn{}
	}
	s.signIns[key] = signIn{workload: w, jwt: jwt}
}

// writeSignIns gives every workload the issuers of its clusters, one authenticator per
// issuer (the API server allows no two), the first by cluster wins; a workload whose
// issuers did not change is not written, so its API server does not reload.
func (s *Simulator) writeSignIns(ctx context.Context) error {
	s.mu.Lock()
	byWorkload := map[*Workload][]controlplane.JWTAuthenticator{}
	for _, key := range slices.Sorted(maps.Keys(s.signIns)) {
		in := s.signIns[key]
		if _, ok := byWorkload[in.workload]; !ok {
			byWorkload[in.workload] = []controlplane.JWTAuthenticator{}
		}
		if in.jwt == nil || slices.ContainsFunc(byWorkload[in.workload], func(a controlplane.JWTAuthenticator) bool { return a.IssuerURL == in.jwt.IssuerURL }) {
			continue
		}
		byWorkload[in.workload] = append(byWorkload[in.workload], *in.jwt)
	}
	if s.written == nil {
		s.written = map[*Workload][]controlplane.JWTAuthenticator{}
	}
	var todo []*Workload
	for w, jwt := range byWorkload {
		if w.cluster != nil && !reflect.DeepEqual(s.written[w], jwt) {
			todo = append(todo, w)
		}
	}
	s.mu.Unlock()
	for _, w := range todo {
		jwt := byWorkload[w]
		if err := w.cluster.SetJWTAuthenticators(ctx, jwt); err != nil {
			return fmt.Errorf("workload %s: %w", w.Name, err)
		}
		s.mu.Lock()
		s.written[w] = jwt
		s.mu.Unlock()
	}
	return nil
}

// trusted is the CA the workload trusts for an issuer whose rendered object carries none:
// on a real cluster the issuer's certificate is publicly trusted.
func (s *Simulator) trusted(ca string) string {
	if ca != "" {
		return ca
	}
	return s.IssuerCA
}

// shootSignIn reads the issuer of a Shoot's structured authentication ConfigMap.
func (s *Simulator) shootSignIn(ctx context.Context, sh *unstructured.Unstructured) (*controlplane.JWTAuthenticator, error) {
	name := str(sh, "spec", "kubernetes", "kubeAPIServer", "structuredAuthentication", "configMapName")
	if name == "" {
		return nil, nil
	}
	cm, err := s.Garden.Kube.CoreV1().ConfigMaps(sh.GetNamespace()).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil // Gardener would refuse to reconcile the Shoot until it exists
	}
	if err != nil {
		return nil, err
	}
	var cfg struct {
		JWT []struct {
			Issuer struct {
				URL                  string   `json:"url"`
				CertificateAuthority string   `json:"certificateAuthority"`
				Audiences            []string `json:"audiences"`
			} `json:"issuer"`
			ClaimMappings struct {
				Username struct{ Claim, Prefix string } `json:"username"`
				Groups   struct{ Claim, Prefix string } `json:"groups"`
			} `json:"claimMappings"`
		} `json:"jwt"`
	}
	if err := yaml.Unmarshal([]byte(cm.Data["config.yaml"]), &cfg); err != nil {
		return nil, fmt.Errorf("ConfigMap %s/%s: %w", cm.Namespace, cm.Name, err)
	}
	if len(cfg.JWT) == 0 {
		return nil, nil
	}
	j := cfg.JWT[0]
	return &controlplane.JWTAuthenticator{IssuerURL: j.Issuer.URL, CAPEM: s.trusted(j.Issuer.CertificateAuthority), Audiences: j.Issuer.Audiences,
		UsernameClaim: j.ClaimMappings.Username.Claim, UsernamePrefix: j.ClaimMappings.Username.Prefix,
		GroupsClaim: j.ClaimMappings.Groups.Claim, GroupsPrefix: j.ClaimMappings.Groups.Prefix}, nil
}

// clusterAPISignIn reads the scs2 ClusterClass's oidcConfig variable, as kubeadm's
// --oidc-* flags would take it.
func (s *Simulator) clusterAPISignIn(c *unstructured.Unstructured) (*controlplane.JWTAuthenticator, error) {
	vars, _, _ := unstructured.NestedSlice(c.Object, "spec", "topology", "variables")
	for _, v := range vars {
		m, _ := v.(map[string]any)
		if m["name"] != "oidcConfig" {
			continue
		}
		raw, err := json.Marshal(m["value"])
		if err != nil {
			return nil, err
		}
		var o struct{ IssuerURL, ClientID, UsernameClaim, UsernamePrefix, GroupsClaim, GroupsPrefix string }
		if err := json.Unmarshal(raw, &o); err != nil {
			return nil, fmt.Errorf("Cluster %s: oidcConfig: %w", c.GetName(), err)
		}
		return flagsSignIn(o.IssuerURL, o.ClientID, o.UsernameClaim, o.UsernamePrefix, o.GroupsClaim, o.GroupsPrefix, s.IssuerCA), nil
	}
	return nil, nil
}

// magnumSignIn reads a ClusterV1's oidc_* labels, as Magnum's templates pass them on.
func (s *Simulator) magnumSignIn(c *unstructured.Unstructured) *controlplane.JWTAuthenticator {
	l, _, _ := unstructured.NestedStringMap(c.Object, "spec", "forProvider", "labels")
	if l["oidc_issuer_url"] == "" {
		return nil
	}
	return flagsSignIn(l["oidc_issuer_url"], l["oidc_client_id"], l["oidc_username_claim"], l["oidc_username_prefix"],
		l["oidc_groups_claim"], l["oidc_groups_prefix"], s.IssuerCA)
}

// flagsSignIn is what kube-apiserver's --oidc-* flags mean as an authenticator: "-" as the
// username prefix is none, and an empty prefix of a claim other than email is the issuer
// URL and "#".
func flagsSignIn(issuer, client, userClaim, userPrefix, groupsClaim, groupsPrefix, ca string) *controlplane.JWTAuthenticator {
	switch {
	case userPrefix == "-":
		userPrefix = ""
	case userPrefix == "" && userClaim != "email":
		userPrefix = strings.TrimSuffix(issuer, "/") + "#"
	}
	if userClaim == "" {
		userClaim = "sub"
	}
	return &controlplane.JWTAuthenticator{IssuerURL: issuer, CAPEM: ca, Audiences: []string{client},
		UsernameClaim: userClaim, UsernamePrefix: userPrefix, GroupsClaim: groupsClaim, GroupsPrefix: groupsPrefix}
}
