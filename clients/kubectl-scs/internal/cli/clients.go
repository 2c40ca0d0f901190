package cli

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// Clients reach one API server, the one the kubeconfig flags name.
type Clients struct {
	Dynamic   dynamic.Interface
	Discovery discovery.DiscoveryInterface
	// Namespace is -n, else the kubeconfig context's namespace, else "default".
	Namespace string
	// NamespaceExplicit says that -n was given: a manifest in another namespace is then
	// an error, as in kubectl.
	NamespaceExplicit bool
}

// connectKubeconfig makes the clients as kubectl does, from --kubeconfig, $KUBECONFIG,
// --context and the rest of the kubeconfig flags.
func (a *App) connectKubeconfig(flags *genericclioptions.ConfigFlags) (*Clients, error) {
	// Crossplane's claims warn on every request; once per warning is enough.
	flags.WrapConfigFn = func(c *rest.Config) *rest.Config {
		c.WarningHandler = rest.NewWarningWriter(a.IO.ErrOut, rest.WarningWriterOptions{Deduplicate: true})
		c.UserAgent = FieldManager + " " + rest.DefaultKubernetesUserAgent()
		return c
	}
	ns, explicit, err := flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, err
	}
	cfg, err := flags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	disco, err := flags.ToDiscoveryClient()
	if err != nil {
		return nil, err
	}
	return &Clients{Dynamic: dyn, Discovery: disco, Namespace: ns, NamespaceExplicit: explicit}, nil
}

// Resources kubectl-scs reads and writes.
var (
	clusterGVR   = schema.GroupVersionResource{Group: kaasv1alpha1.Group, Version: kaasv1alpha1.Version, Resource: "scsclusters"}
	compositeGVR = schema.GroupVersionResource{Group: kaasv1alpha1.Group, Version: kaasv1alpha1.Version, Resource: "xscsclusters"}
	secretGVR    = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	namespaceGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	eventGVR     = schema.GroupVersionResource{Version: "v1", Resource: "events"}
	envConfigGVR = schema.GroupVersionResource{Group: "apiextensions.crossplane.io", Version: "v1beta1", Resource: "environmentconfigs"}
)

// clusters is the SCSClusters of a namespace ("" for all).
func (c *Clients) clusters(namespace string) dynamic.ResourceInterface {
	if namespace == "" {
		return c.Dynamic.Resource(clusterGVR)
	}
	return c.Dynamic.Resource(clusterGVR).Namespace(namespace)
}

// getCluster reads one SCSCluster, with an error that names it the way a user wrote it.
func (c *Clients) getCluster(ctx context.Context, namespace, name string) (*unstructured.Unstructured, error) {
	obj, err := c.clusters(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("%s %s/%s not found", kaasv1alpha1.ClaimKind, namespace, name)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s %s/%s: %w", kaasv1alpha1.ClaimKind, namespace, name, err)
	}
	return obj, nil
}

// resourceName is how kubectl names an object of the API in messages and -o name.
func resourceName(name string) string { return "scscluster." + kaasv1alpha1.Group + "/" + name }
