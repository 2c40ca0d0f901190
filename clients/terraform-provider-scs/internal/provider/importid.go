package provider

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// parseImportID splits an import ID, namespace/name, as in
// `tofu import scs_cluster.dev team1/dev`.
func parseImportID(id string) (namespace, name string, err error) {
	namespace, name, ok := strings.Cut(id, "/")
	if !ok || namespace == "" || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("import ID %q is not namespace/name, such as team1/dev", id)
	}
	if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
		return "", "", fmt.Errorf("import ID %q: namespace %q: %s", id, namespace, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return "", "", fmt.Errorf("import ID %q: name %q: %s", id, name, strings.Join(errs, "; "))
	}
	return namespace, name, nil
}

// clusterID is the id attribute: namespace/name, the same as the import ID.
func clusterID(namespace, name string) string { return namespace + "/" + name }
