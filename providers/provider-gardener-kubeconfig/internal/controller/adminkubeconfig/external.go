package adminkubeconfig

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/meta"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	corev1 "k8s.io/api/core/v1"
	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/internal/garden"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/internal/renewal"
)

// Issuer issues admin kubeconfigs; *garden.Client is the real one.
type Issuer interface {
	Issue(ctx context.Context, r garden.Request) (*garden.Issued, error)
}

const (
	errNotAdminKubeconfig = "managed resource is not an AdminKubeconfig"
	errNoSecretRef        = "spec.writeConnectionSecretToRef is required: the connection secret is where the kubeconfig is delivered"
)

// external is the managed.ExternalClient of one reconcile.
type external struct {
	garden Issuer
	// kube reads the connection secret. It should not be served from a cache: right after
	// Create, a cache that has not seen the new secret yet would make Observe issue again.
	kube  client.Reader
	clock clock.PassiveClock
	log   logging.Logger
}

var _ managed.ExternalClient = &external{}

// Observe reports whether the connection secret holds a kubeconfig this provider issued for
// the Shoot the spec names, and whether it is due for renewal. It contacts no garden.
func (e *external) Observe(ctx context.Context, mg resource.Managed) (managed.ExternalObservation, error) {
	cr, err := asAdminKubeconfig(mg)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	if meta.WasDeleted(cr) {
		// Nothing in the garden to delete (see Delete): report the kubeconfig gone so that the
		// reconciler removes the finalizer. The connection secret is garbage collected through
		// its owner reference.
		return managed.ExternalObservation{ResourceExists: false}, nil
	}
	kc, err := e.publishedKubeconfig(ctx, cr)
	if err != nil {
		return managed.ExternalObservation{}, err
	}
	rec, issued := lastIssuance(cr)
	if len(kc) == 0 || !issued {
		return managed.ExternalObservation{ResourceExists: false}, nil
	}
	details, target, err := connectionDetails(kc)
	if err != nil {
		// The secret holds something that is not a kubeconfig (edited by hand?): issue anew.
		return managed.ExternalObservation{ResourceExists: false}, nil //nolint:nilerr // not an error of the reconcile
	}

	now := e.clock.Now()
	renewAt := renewal.Time(rec.IssuedAt, rec.ExpiresAt, renewBefore(cr))
	observe(cr, rec, target.Server, renewAt)
	if now.Before(rec.ExpiresAt) {
		cr.SetConditions(xpv2.Available())
	} else {
		cr.SetConditions(expired(rec.ExpiresAt))
	}

	obs := managed.ExternalObservation{ResourceExists: true, ResourceUpToDate: true, ConnectionDetails: details}
	switch want := shoot(cr); {
	case rec.Shoot != want:
		obs.ResourceUpToDate = false
		obs.Diff = fmt.Sprintf("the kubeconfig is for Shoot %s, the spec names %s", rec.Shoot, want)
	case renewal.Due(now, renewAt):
		obs.ResourceUpToDate = false
		obs.Diff = "renewal due since " + renewAt.UTC().Format(time.RFC3339)
	}
	return obs, nil
}

// Create issues the first kubeconfig.
func (e *external) Create(ctx context.Context, mg resource.Managed) (managed.ExternalCreation, error) {
	cd, err := e.issue(ctx, mg)
	return managed.ExternalCreation{ConnectionDetails: cd}, err
}

// Update issues a new kubeconfig: a renewal, or one for another Shoot.
func (e *external) Update(ctx context.Context, mg resource.Managed) (managed.ExternalUpdate, error) {
	cd, err := e.issue(ctx, mg)
	return managed.ExternalUpdate{ConnectionDetails: cd}, err
}

// Delete does nothing. The garden cannot revoke a single admin kubeconfig: each one stays
// valid until it expires (at most the garden's maximum lifetime, 24 hours by default). To
// revoke all of them, rotate the Shoot's certificate authorities in Gardener.
func (e *external) Delete(_ context.Context, _ resource.Managed) (managed.ExternalDelete, error) {
	return managed.ExternalDelete{}, nil
}

// Disconnect does nothing: the garden client holds no connection of its own.
func (e *external) Disconnect(_ context.Context) error { return nil }

// issue requests a kubeconfig and records it. On failure the managed resource and the
// connection secret stay as they are, so the previous kubeconfig keeps being served.
func (e *external) issue(ctx context.Context, mg resource.Managed) (managed.ConnectionDetails, error) {
	cr, err := asAdminKubeconfig(mg)
	if err != nil {
		return nil, err
	}
	req := garden.Request{
		Namespace:         cr.params.Namespace,
		ShootName:         cr.params.ShootName,
		ExpirationSeconds: expirationSeconds(cr),
	}
	got, err := e.garden.Issue(ctx, req)
	if err != nil {
		return nil, err
	}
	details, target, err := connectionDetails(got.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("%s: the kubeconfig the garden issued for Shoot %s is unusable: %w", garden.CauseBadResponse, req.Shoot(), err)
	}
	// Whole seconds: that is what status and the annotation keep, and what the next Observe
	// will compare with.
	rec := issuance{Shoot: req.Shoot(), IssuedAt: e.clock.Now().Truncate(time.Second), ExpiresAt: got.ExpirationTimestamp.Truncate(time.Second)}
	renewAt := renewal.Time(rec.IssuedAt, rec.ExpiresAt, renewBefore(cr))
	annotate(cr, rec)
	observe(cr, rec, target.Server, renewAt)
	cr.SetConditions(xpv2.Available())
	e.log.Info("Issued an admin kubeconfig", "shoot", rec.Shoot, "server", target.Server,
		"expires", rec.ExpiresAt.UTC().Format(time.RFC3339), "renewal", renewAt.UTC().Format(time.RFC3339))
	return details, nil
}

// publishedKubeconfig returns the kubeconfig in the connection secret, or nil when there is
// none or the secret is not this resource's (then publishing will fail and say so).
func (e *external) publishedKubeconfig(ctx context.Context, cr *adminKubeconfig) ([]byte, error) {
	ref := cr.secret
	if ref == nil {
		return nil, errors.New(errNoSecretRef)
	}
	s := &corev1.Secret{}
	err := e.kube.Get(ctx, *ref, s)
	switch {
	case kerrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("cannot read the connection secret %s/%s: %w", ref.Namespace, ref.Name, err)
	case !metav1.IsControlledBy(s, cr):
		return nil, nil
	}
	return s.Data[KeyKubeconfig], nil
}

func shoot(cr *adminKubeconfig) string {
	return cr.params.Namespace + "/" + cr.params.ShootName
}

func expirationSeconds(cr *adminKubeconfig) int64 {
	if s := cr.params.ExpirationSeconds; s != nil {
		return *s
	}
	return v1alpha1.DefaultExpirationSeconds
}

func renewBefore(cr *adminKubeconfig) *time.Duration {
	if d := cr.params.RenewBefore; d != nil {
		return &d.Duration
	}
	return nil
}
