package fakegarden

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	authenticationv1alpha1 "github.com/gardener/gardener/pkg/apis/authentication/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/clock"
)

// Path is the route of the subresource, in net/http pattern syntax. Only POST is served.
const Path = "/apis/core.gardener.cloud/v1beta1/namespaces/{namespace}/shoots/{name}/adminkubeconfig"

// Limits of gardener-apiserver.
const (
	// MinExpiration is the shortest lifetime a request may ask for.
	MinExpiration = 10 * time.Minute
	// DefaultMaxExpiration is gardener-apiserver's default --shoot-admin-kubeconfig-max-expiration.
	DefaultMaxExpiration = 24 * time.Hour
	// DefaultExpirationSeconds is what a request without spec.expirationSeconds gets.
	DefaultExpirationSeconds int64 = 3600
)

var (
	shootsResource = schema.GroupResource{Group: "core.gardener.cloud", Resource: "shoots"}
	requestKind    = schema.GroupKind{Group: authenticationv1alpha1.SchemeGroupVersion.Group, Kind: "AdminKubeconfigRequest"}
)

// User is an authenticated caller.
type User struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// Authenticator identifies the caller. ok is false for a request without credentials or with
// credentials it rejects.
type Authenticator interface {
	Authenticate(r *http.Request) (u *User, ok bool, err error)
}

// Authorizer decides whether a user may create shoots/adminkubeconfig for a Shoot. reason is
// appended to the Forbidden message, as the Kubernetes authorizers do.
type Authorizer interface {
	Authorize(ctx context.Context, u *User, namespace, name string) (allowed bool, reason string, err error)
}

// Shoots finds Shoots. Get returns an error for which apierrors.IsNotFound is true when the
// Shoot does not exist.
type Shoots interface {
	Get(ctx context.Context, namespace, name string) (*Shoot, error)
}

// Shoot is what issuing a kubeconfig needs from a Shoot.
type Shoot struct {
	// AdvertisedAddresses are status.advertisedAddresses.
	AdvertisedAddresses []Address
	// CABundle is the cluster CA (gardener-apiserver reads ConfigMap <shoot>.ca-cluster).
	CABundle []byte
}

// Address is one entry of a Shoot's status.advertisedAddresses.
type Address struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// Handler serves the adminkubeconfig subresource. Construct it with NewHandler.
type Handler struct {
	authn  Authenticator
	authz  Authorizer
	shoots Shoots
	issuer *Issuer
	opts   Options
	mux    *http.ServeMux
}

// Options change what the Handler issues.
type Options struct {
	// MaxExpiration caps the requested lifetime; zero means DefaultMaxExpiration.
	MaxExpiration time.Duration
	// ServerURL, when set, is the only server of every issued kubeconfig instead of the
	// Shoot's advertised addresses: the local garden has no Shoot control planes, so tests
	// point kubeconfigs at an API server that exists.
	ServerURL string
	// ServerCA, when set, replaces the Shoot's cluster CA in issued kubeconfigs.
	ServerCA []byte
	// Clock stamps certificates; nil means the real clock.
	Clock clock.PassiveClock
	// Observe, when set, is called for each request with its outcome (HTTP status), so tests
	// can count calls without parsing logs.
	Observe func(namespace, name string, status int)
}

// NewHandler returns a Handler.
func NewHandler(authn Authenticator, authz Authorizer, shoots Shoots, issuer *Issuer, o Options) *Handler {
	if o.MaxExpiration == 0 {
		o.MaxExpiration = DefaultMaxExpiration
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	h := &Handler{authn: authn, authz: authz, shoots: shoots, issuer: issuer, opts: o, mux: http.NewServeMux()}
	h.mux.HandleFunc(Path, h.adminKubeconfig)
	// Everything else gets kube-apiserver's answer for an unknown path.
	h.mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		writeStatus(w, apierrors.NewNotFound(schema.GroupResource{}, ""))
	})
	return h
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mux.ServeHTTP(w, r)
}

func (h *Handler) adminKubeconfig(w http.ResponseWriter, r *http.Request) {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	if r.Method != http.MethodPost {
		writeStatus(w, apierrors.NewMethodNotSupported(shootsResource, strings.ToLower(r.Method)))
		return
	}
	status, body := h.serve(r, ns, name)
	if h.opts.Observe != nil {
		h.opts.Observe(ns, name, status)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// serve returns the HTTP status and body, in gardener-apiserver's order of checks.
func (h *Handler) serve(r *http.Request, ns, name string) (int, []byte) {
	u, ok, err := h.authn.Authenticate(r)
	if err != nil {
		return statusBody(apierrors.NewInternalError(err))
	}
	if !ok {
		return statusBody(apierrors.NewUnauthorized("Unauthorized"))
	}
	allowed, reason, err := h.authz.Authorize(r.Context(), u, ns, name)
	if err != nil {
		return statusBody(apierrors.NewInternalError(err))
	}
	if !allowed {
		msg := fmt.Sprintf("User %q cannot create resource \"shoots/adminkubeconfig\" in API group %q in the namespace %q", u.Name, shootsResource.Group, ns)
		if reason != "" {
			msg += ": " + reason
		}
		return statusBody(apierrors.NewForbidden(shootsResource, name, fmt.Errorf("%s", msg)))
	}

	req, err := decode(r.Body)
	if err != nil {
		return statusBody(apierrors.NewBadRequest(err.Error()))
	}
	authenticationv1alpha1.SetObjectDefaults_AdminKubeconfigRequest(req)
	if errs := validate(req); len(errs) > 0 {
		return statusBody(apierrors.NewInvalid(requestKind, "", errs))
	}
	if maxSeconds := int64(h.opts.MaxExpiration / time.Second); *req.Spec.ExpirationSeconds > maxSeconds {
		req.Spec.ExpirationSeconds = &maxSeconds
	}

	shoot, err := h.shoots.Get(r.Context(), ns, name)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return statusBody(apierrors.NewNotFound(shootsResource, name))
		}
		return statusBody(apierrors.NewInternalError(err))
	}
	addrs := h.addresses(shoot)
	if len(addrs) == 0 {
		errs := field.ErrorList{field.Invalid(field.NewPath("status", "status"), shoot.AdvertisedAddresses,
			"no suitable advertised address for kube-apiserver found in .status.advertisedAddresses")}
		return statusBody(apierrors.NewInvalid(schema.GroupKind{Group: shootsResource.Group, Kind: "Shoot"}, name, errs))
	}
	ca := shoot.CABundle
	if len(h.opts.ServerCA) > 0 {
		ca = h.opts.ServerCA
	}
	if len(ca) == 0 {
		return statusBody(apierrors.NewInternalError(fmt.Errorf("could not load cluster CA bundle")))
	}

	validity := time.Duration(*req.Spec.ExpirationSeconds) * time.Second
	kc, notAfter, err := h.issuer.Kubeconfig(ns+"--"+name, addrs, ca, u, h.opts.Clock.Now(), validity)
	if err != nil {
		return statusBody(apierrors.NewInternalError(err))
	}
	req.Status = authenticationv1alpha1.AdminKubeconfigRequestStatus{
		Kubeconfig:          kc,
		ExpirationTimestamp: metav1.Time{Time: notAfter},
	}
	req.APIVersion, req.Kind = authenticationv1alpha1.SchemeGroupVersion.String(), requestKind.Kind
	body, err := json.Marshal(req)
	if err != nil {
		return statusBody(apierrors.NewInternalError(err))
	}
	return http.StatusCreated, body
}

// addresses returns the kube-apiserver addresses of a Shoot, the way gardener-apiserver
// filters them (the list may also carry e.g. the service account issuer), or the configured
// ServerURL alone.
func (h *Handler) addresses(s *Shoot) []Address {
	if h.opts.ServerURL != "" {
		return []Address{{Name: "external", URL: h.opts.ServerURL}}
	}
	var out []Address
	for _, a := range s.AdvertisedAddresses {
		switch a.Name {
		case "external", "internal", "wildcard-tls-seed-bound", "unmanaged":
			out = append(out, a)
		}
	}
	return out
}

// decode reads an AdminKubeconfigRequest; apiVersion and kind, when present, must be right.
func decode(body io.Reader) (*authenticationv1alpha1.AdminKubeconfigRequest, error) {
	req := &authenticationv1alpha1.AdminKubeconfigRequest{}
	dec := json.NewDecoder(io.LimitReader(body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(req); err != nil {
		return nil, fmt.Errorf("cannot decode an AdminKubeconfigRequest: %w", err)
	}
	if req.APIVersion != "" && req.APIVersion != authenticationv1alpha1.SchemeGroupVersion.String() {
		return nil, fmt.Errorf("apiVersion %q is not %s", req.APIVersion, authenticationv1alpha1.SchemeGroupVersion)
	}
	if req.Kind != "" && req.Kind != requestKind.Kind {
		return nil, fmt.Errorf("kind %q is not %s", req.Kind, requestKind.Kind)
	}
	return req, nil
}

// validate applies gardener-apiserver's validation of the request.
func validate(req *authenticationv1alpha1.AdminKubeconfigRequest) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("spec", "expirationSeconds")
	switch s := *req.Spec.ExpirationSeconds; {
	case s < int64(MinExpiration/time.Second):
		errs = append(errs, field.Invalid(p, s, "may not specify a duration less than 10 minutes"))
	case s > 1<<32-1:
		errs = append(errs, field.TooLong(p, s, 1<<32-1))
	}
	return errs
}

// statusBody renders an API error as kube-apiserver does: a v1 Status with its code.
func statusBody(err apierrors.APIStatus) (int, []byte) {
	s := err.Status()
	s.APIVersion, s.Kind = "v1", "Status"
	b, _ := json.Marshal(s)
	return int(s.Code), b
}

func writeStatus(w http.ResponseWriter, err apierrors.APIStatus) {
	code, body := statusBody(err)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}
