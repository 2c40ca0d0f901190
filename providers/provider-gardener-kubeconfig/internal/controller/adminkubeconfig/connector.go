package adminkubeconfig

import (
	"context"
	"errors"
	"fmt"

	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	xpv2 "github.com/crossplane/crossplane/apis/v2/core/v2"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/v1alpha1"
)

// NewIssuerFn builds an Issuer from a garden kubeconfig (a ProviderConfig's credentials).
type NewIssuerFn func(gardenKubeconfig []byte) (Issuer, error)

// usageTracker records that a managed resource uses its ProviderConfig.
type usageTracker interface {
	Track(ctx context.Context, mg resource.LegacyManaged) error
}

// connector builds the external client of one reconcile from the ProviderConfig.
type connector struct {
	kube      client.Client
	usage     usageTracker
	newIssuer NewIssuerFn
	clock     clock.PassiveClock
	log       logging.Logger
}

var _ managed.ExternalConnector = &connector{}

// Connect reads the garden credentials of the resource's ProviderConfig. It makes no request
// to the garden: Observe needs none, and Create and Update fail with a cause of their own
// when the garden is unreachable.
func (c *connector) Connect(ctx context.Context, mg resource.Managed) (managed.ExternalClient, error) {
	cr, ok := mg.(*v1alpha1.AdminKubeconfig)
	if !ok {
		return nil, errors.New(errNotAdminKubeconfig)
	}
	if err := c.usage.Track(ctx, cr); err != nil {
		return nil, fmt.Errorf("cannot track the ProviderConfig usage: %w", err)
	}
	ref := cr.GetProviderConfigReference()
	if ref == nil || ref.Name == "" {
		return nil, errors.New("spec.providerConfigRef is not set")
	}
	pc := &v1alpha1.ProviderConfig{}
	if err := c.kube.Get(ctx, types.NamespacedName{Name: ref.Name}, pc); err != nil {
		return nil, fmt.Errorf("cannot get ProviderConfig %q: %w", ref.Name, err)
	}
	creds := pc.Spec.Credentials
	kc, err := resource.CommonCredentialExtractor(ctx, creds.Source, c.kube, xpv2.CommonCredentialSelectors{SecretRef: creds.SecretRef})
	if err != nil {
		return nil, fmt.Errorf("cannot read the garden credentials of ProviderConfig %q: %w", ref.Name, err)
	}
	if len(kc) == 0 {
		s := creds.SecretRef
		return nil, fmt.Errorf("ProviderConfig %q: key %q of Secret %s/%s is missing or empty", ref.Name, s.Key, s.Namespace, s.Name)
	}
	issuer, err := c.newIssuer(kc)
	if err != nil {
		return nil, fmt.Errorf("ProviderConfig %q: %w", ref.Name, err)
	}
	return &external{garden: issuer, kube: c.kube, clock: c.clock, log: c.log.WithValues("adminkubeconfig", cr.GetName())}, nil
}
