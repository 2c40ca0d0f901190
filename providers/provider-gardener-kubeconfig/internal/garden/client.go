// Package garden requests admin kubeconfigs from a Gardener garden cluster: a POST of an
// AdminKubeconfigRequest (authentication.gardener.cloud/v1alpha1) to the adminkubeconfig
// subresource of a Shoot (core.gardener.cloud/v1beta1), served by gardener-apiserver.
package garden

import (
	"context"
	"errors"
	"fmt"
	"time"

	authenticationv1alpha1 "github.com/gardener/gardener/pkg/apis/authentication/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"

	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/internal/kubeconfig"
)

// ShootGroupVersion is where gardener-apiserver serves Shoots and their subresources.
var ShootGroupVersion = schema.GroupVersion{Group: "core.gardener.cloud", Version: "v1beta1"}

// Request says which Shoot to issue a kubeconfig for and for how long.
type Request struct {
	Namespace         string
	ShootName         string
	ExpirationSeconds int64
}

// Shoot returns namespace/name, the way messages name the Shoot.
func (r Request) Shoot() string { return r.Namespace + "/" + r.ShootName }

// Issued is a kubeconfig the garden issued.
type Issued struct {
	// Kubeconfig is secret: it never goes into a log, an event or a condition.
	Kubeconfig []byte
	// ExpirationTimestamp is when the garden says the credential expires; it may be earlier
	// than requested, because the garden caps the lifetime.
	ExpirationTimestamp time.Time
}

// Client issues admin kubeconfigs from one garden cluster.
type Client struct {
	rest rest.Interface
}

// DefaultTimeout bounds one request, so that a garden that accepts connections but does not
// answer fails the reconcile (and is retried with backoff) instead of holding a worker.
const DefaultTimeout = 30 * time.Second

// NewClient returns a Client for the garden the kubeconfig points at (the ProviderConfig's
// credentials; see kubeconfig.RESTConfig for what it may contain).
func NewClient(gardenKubeconfig []byte, userAgent string) (*Client, error) {
	cfg, err := kubeconfig.RESTConfig(gardenKubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.UserAgent = userAgent
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	return NewClientForConfig(cfg)
}

// NewClientForConfig returns a Client for a REST config.
func NewClientForConfig(cfg *rest.Config) (*Client, error) {
	scheme := runtime.NewScheme()
	if err := authenticationv1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	// Gardener's AddToScheme registers no meta types: without Status the REST client cannot
	// decode the garden's error bodies and reports "the server could not find the requested
	// resource" for every 404, whether the Shoot or the subresource is missing.
	metav1.AddToGroupVersion(scheme, authenticationv1alpha1.SchemeGroupVersion)
	c := rest.CopyConfig(cfg)
	c.APIPath = "/apis"
	c.GroupVersion = &ShootGroupVersion
	c.ContentType = runtime.ContentTypeJSON
	// The request and the response are authentication.gardener.cloud objects although the
	// path is core.gardener.cloud: encode and decode without conversion, keeping their own kind.
	c.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	rc, err := rest.RESTClientFor(c)
	if err != nil {
		return nil, fmt.Errorf("cannot build a REST client for the garden: %w", err)
	}
	return &Client{rest: rc}, nil
}

// Issue requests a new admin kubeconfig. Errors are *Error.
func (c *Client) Issue(ctx context.Context, r Request) (*Issued, error) {
	req := &authenticationv1alpha1.AdminKubeconfigRequest{
		Spec: authenticationv1alpha1.AdminKubeconfigRequestSpec{ExpirationSeconds: &r.ExpirationSeconds},
	}
	res := &authenticationv1alpha1.AdminKubeconfigRequest{}
	err := c.rest.Post().
		Namespace(r.Namespace).Resource("shoots").Name(r.ShootName).SubResource("adminkubeconfig").
		Body(req).Do(ctx).Into(res)
	if err != nil {
		return nil, classify(err, r.Shoot(), r.ShootName)
	}
	bad := func(detail string) error {
		return &Error{Cause: CauseBadResponse, Shoot: r.Shoot(), Detail: detail, Err: errors.New(detail)}
	}
	switch {
	case len(res.Status.Kubeconfig) == 0:
		return nil, bad("the garden answered without status.kubeconfig")
	case res.Status.ExpirationTimestamp.IsZero():
		return nil, bad("the garden answered without status.expirationTimestamp")
	}
	if _, err := kubeconfig.Inspect(res.Status.Kubeconfig); err != nil {
		return nil, bad("the garden answered with an unusable kubeconfig: " + err.Error())
	}
	return &Issued{Kubeconfig: res.Status.Kubeconfig, ExpirationTimestamp: res.Status.ExpirationTimestamp.Time}, nil
}
