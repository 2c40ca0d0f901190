package fakegarden

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// Implementations backed by a real garden kube-apiserver (with the Shoot CRD), used by the
// fake-garden-auth command. Authentication and authorization are delegated to that API server
// the way an aggregated API server such as gardener-apiserver delegates them: client
// certificates verified against the garden's client CA, bearer tokens through a TokenReview,
// and every request checked with a SubjectAccessReview, so the garden's RBAC decides 403.

// ShootResource is the Shoot CRD's resource.
var ShootResource = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}

// GardenShoots reads Shoots and their cluster CA from the garden.
type GardenShoots struct {
	Dynamic dynamic.Interface
	Kube    kubernetes.Interface
}

// Get implements Shoots. The cluster CA comes from the ConfigMap <shoot>.ca-cluster (key
// ca.crt) in the Shoot's namespace, where Gardener publishes it; without it the CA is empty.
func (g *GardenShoots) Get(ctx context.Context, namespace, name string) (*Shoot, error) {
	u, err := g.Dynamic.Resource(ShootResource).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	s := &Shoot{}
	addrs, _, _ := unstructured.NestedSlice(u.Object, "status", "advertisedAddresses")
	for _, a := range addrs {
		m, ok := a.(map[string]any)
		if !ok {
			continue
		}
		n, _ := m["name"].(string)
		url, _ := m["url"].(string)
		s.AdvertisedAddresses = append(s.AdvertisedAddresses, Address{Name: n, URL: url})
	}
	cm, err := g.Kube.CoreV1().ConfigMaps(namespace).Get(ctx, name+".ca-cluster", metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return nil, fmt.Errorf("cannot read the cluster CA of Shoot %s/%s: %w", namespace, name, err)
	default:
		s.CABundle = []byte(cm.Data["ca.crt"])
	}
	return s, nil
}

// DelegatingAuthenticator identifies callers by a verified client certificate or, failing
// that, a bearer token the garden accepts in a TokenReview.
type DelegatingAuthenticator struct {
	Kube kubernetes.Interface
}

// Authenticate implements Authenticator.
func (d *DelegatingAuthenticator) Authenticate(r *http.Request) (*User, bool, error) {
	if r.TLS != nil && len(r.TLS.VerifiedChains) > 0 && len(r.TLS.VerifiedChains[0]) > 0 {
		c := r.TLS.VerifiedChains[0][0]
		return &User{Name: c.Subject.CommonName, Groups: c.Subject.Organization}, true, nil
	}
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || token == "" {
		return nil, false, nil
	}
	tr, err := d.Kube.AuthenticationV1().TokenReviews().Create(r.Context(), &authenticationv1.TokenReview{
		Spec: authenticationv1.TokenReviewSpec{Token: token},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, false, errors.New("cannot review the bearer token with the garden") // the error could quote the request
	}
	if !tr.Status.Authenticated {
		return nil, false, nil
	}
	extra := map[string][]string{}
	for k, v := range tr.Status.User.Extra {
		extra[k] = v
	}
	return &User{Name: tr.Status.User.Username, UID: tr.Status.User.UID, Groups: tr.Status.User.Groups, Extra: extra}, true, nil
}

// SubjectAccessReviewer asks the garden whether a user may create shoots/adminkubeconfig.
type SubjectAccessReviewer struct {
	Kube kubernetes.Interface
}

// Authorize implements Authorizer.
func (s *SubjectAccessReviewer) Authorize(ctx context.Context, u *User, namespace, name string) (bool, string, error) {
	extra := map[string]authorizationv1.ExtraValue{}
	for k, v := range u.Extra {
		extra[k] = v
	}
	sar, err := s.Kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{
			User: u.Name, UID: u.UID, Groups: u.Groups, Extra: extra,
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: namespace, Verb: "create", Group: ShootResource.Group, Version: ShootResource.Version,
				Resource: ShootResource.Resource, Subresource: "adminkubeconfig", Name: name,
			},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return false, "", fmt.Errorf("cannot review access with the garden: %w", err)
	}
	return sar.Status.Allowed, sar.Status.Reason, nil
}
