// Package security holds the tests of docs/security.md's boundaries that belong to no other
// package: the RBAC the project ships.
package security

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

const repoRoot = "../.."

// grant is what the design needs of one resource, and why.
type grant struct {
	verbs []string
	why   string
}

// composed is what Crossplane does to a resource it composes: server-side apply, watch,
// garbage-collect.
var composed = []string{"get", "list", "watch", "create", "update", "patch", "delete"}

// needed is every permission the design needs, by file, API group and resource: anything a
// shipped role grants beyond it is a finding.
var needed = map[string]map[string]grant{
	// Crossplane's own ClusterRole, by aggregation.
	"package/rbac.yaml": {
		"/namespaces": {[]string{"get", "list", "watch"},
			"the function asks Crossplane for the claim's namespace, for environments that admit namespaces by label"},
		"/configmaps": {composed,
			"the function reads an OIDC issuer's CA from a ConfigMap in the cluster's namespace; Crossplane composes a Shoot's structured authentication ConfigMap in a local garden (docs/access.md)"},
		"clusterstack.x-k8s.io/clusterstackreleases": {[]string{"get", "list", "watch"},
			"the function reads the releases of a local management cluster to choose the ClusterClass"},
		"cluster.x-k8s.io/clusters":                  {composed, "Crossplane composes Cluster API Clusters in a local management cluster"},
		"core.gardener.cloud/shoots":                 {composed, "Crossplane composes Shoots in a local garden cluster"},
		"source.toolkit.fluxcd.io/ocirepositories":   {composed, "Crossplane composes each cluster's add-on sources (docs/addons.md)"},
		"source.toolkit.fluxcd.io/gitrepositories":   {composed, "Crossplane composes each cluster's add-on sources (docs/addons.md)"},
		"kustomize.toolkit.fluxcd.io/kustomizations": {composed, "Crossplane composes each cluster's add-on Kustomizations (docs/addons.md)"},
	},
	// A team, in its namespace.
	"package/team-rbac.yaml": {
		"kaas.scs.community/scsclusters": {composed,
			"a team manages its clusters; not their status, which is Crossplane's (the function keeps names and placement there)"},
		"/secrets": {[]string{"get"}, "a team reads the kubeconfig Secrets of its clusters"},
	},
	// The example add-on that lets a team's people, signed in through OIDC, read its cluster.
	"examples/addons/team-access/rbac.yaml": {
		"/configmaps": {[]string{"get", "list", "watch"},
			"the team's OIDC group reads the hello add-on's ConfigMaps and nothing else (docs/access.md)"},
	},
	// provider-gardener-kubeconfig's identity in the garden.
	"providers/provider-gardener-kubeconfig/examples/garden-rbac.yaml": {
		"core.gardener.cloud/shoots/adminkubeconfig": {[]string{"create"},
			"the provider requests short-lived admin kubeconfigs; it reads nothing in the garden"},
	},
}

// TestShippedRBACIsLeast reads every ClusterRole and Role in the repository's manifests
// (what a platform team applies with the packages, and the garden role of the kubeconfig
// provider) and fails on a wildcard, on a grant the design above does not need, and on a
// file that no longer holds the roles it is known for.
func TestShippedRBACIsLeast(t *testing.T) {
	roles := shippedRoles(t)
	for file := range needed {
		if _, ok := roles[file]; !ok {
			t.Errorf("%s holds no ClusterRole: where did the RBAC it shipped go?", file)
		}
	}
	for file, rules := range roles {
		for i, r := range rules {
			where := fmt.Sprintf("%s, rule %d", file, i+1)
			for _, field := range [][]string{r.APIGroups, r.Resources, r.Verbs, r.NonResourceURLs, r.ResourceNames} {
				if slices.Contains(field, "*") {
					t.Errorf("%s: a wildcard in %v: name what the design needs", where, r)
				}
			}
			if len(r.NonResourceURLs) > 0 {
				t.Errorf("%s: non-resource URLs %v: nothing in the design needs them", where, r.NonResourceURLs)
			}
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					n, ok := needed[file][g+"/"+res]
					if !ok {
						t.Errorf("%s: %s in group %q is not among what the design needs of this file (test/security/rbac_test.go): add it there with the reason, or drop the grant", where, res, g)
						continue
					}
					for _, v := range r.Verbs {
						if !slices.Contains(n.verbs, v) {
							t.Errorf("%s: verb %s on %s/%s: the design needs only %v (%s)", where, v, g, res, n.verbs, n.why)
						}
					}
				}
			}
		}
	}
}

// shippedRoles are the rules of every ClusterRole and Role in the repository's YAML, by
// file relative to the root; test data, build output and the e2e's own fixtures are not
// shipped.
func shippedRoles(t *testing.T) map[string][]rbacv1.PolicyRule {
	t.Helper()
	out := map[string][]rbacv1.PolicyRule{}
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, path)
		if d.IsDir() {
			switch {
			case rel != "." && strings.HasPrefix(d.Name(), "."), d.Name() == "testdata", rel == "_output", rel == "test":
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(path); ext != ".yaml" && ext != ".yml" {
			return nil
		}
		data, err := os.ReadFile(path) //nolint:gosec // G304: a file of this repository
		if err != nil {
			return err
		}
		if !bytes.Contains(data, []byte("rbac.authorization.k8s.io/")) {
			return nil
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			var role struct {
				Kind  string              `json:"kind"`
				Rules []rbacv1.PolicyRule `json:"rules"`
			}
			if err := dec.Decode(&role); errors.Is(err, io.EOF) {
				return nil
			} else if err != nil {
				return err
			}
			if role.Kind == "ClusterRole" || role.Kind == "Role" {
				out[filepath.ToSlash(rel)] = append(out[filepath.ToSlash(rel)], role.Rules...)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
