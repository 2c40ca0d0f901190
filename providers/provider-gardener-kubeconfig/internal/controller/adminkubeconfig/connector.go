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

	namespaced "github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/namespaced/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/v1alpha1"
)

// NewIssuerFn builds an Issuer from a garden kubeconfig (a ProviderConfig's credentials).
type NewIssuerFn func(gardenKubeconfig []byte) (Issuer, error)

// usageTracker records that a cluster-scoped AdminKubeconfig uses its ProviderConfig.
type usageTracker interface {
	Track(ctx context.Context, mg resource.LegacyManaged) error
}

// modernUsageTracker records that a namespaced AdminKubeconfig uses its ProviderConfig or
// ClusterProviderConfig.
type modernUsageTracker interface {
	Track(ctx context.Context, mg resource.ModernManaged) error
}

// ReasonSecretOutsideNamespace starts the error that refuses a namespaced ProviderConfig whose
// credentials Secret is in another namespace.
const ReasonSecretOutsideNamespace = "SecretOutsideNamespace"

// connector builds the external client of one reconcile from the ProviderConfig.
type connector struct {
	kube client.Client
	// usage tracks cluster-scoped AdminKubeconfigs (ProviderConfigUsages of
	// gardener.kaas.scs.community), modernUsage namespaced ones (of gardener.m.kaas.scs.community).
	usage       usageTracker
	modernUsage modernUsageTracker
	newIssuer   NewIssuerFn
	clock       clock.PassiveClock
	log         logging.Logger
}

var _ managed.ExternalConnector = &connector{}

// providerConfig is a resolved ProviderConfig of any of the three kinds.
type providerConfig struct {
	// what names it in messages: `ProviderConfig "garden"`, `ClusterProviderConfig "default"`
	// or `ProviderConfig "garden" in namespace "team1"`.
	what  string
	creds v1alpha1.ProviderCredentials
	// confinedTo is the namespace of a namespaced ProviderConfig: the only namespace its
	// credentials Secret may be in. Empty for the cluster-scoped kinds.
	confinedTo string
}

// Connect reads the garden credentials of the resource's ProviderConfig. It makes no request
// to the garden: Observe needs none, and Create and Update fail with a cause of their own
// when the garden is unreachable.
func (c *connector) Connect(ctx context.Context, mg resource.Managed) (managed.ExternalClient, error) {
	var (
		pc  *providerConfig
		err error
	)
	switch cr := mg.(type) {
	case *v1alpha1.AdminKubeconfig:
		pc, err = c.legacyProviderConfig(ctx, cr)
	case *namespaced.AdminKubeconfig:
		pc, err = c.namespacedProviderConfig(ctx, cr)
	default:
		return nil, errors.New(errNotAdminKubeconfig)
	}
	if err != nil {
		return nil, err
	}
	kc, err := c.credentials(ctx, pc)
	if err != nil {
		return nil, err
	}
	issuer, err := c.newIssuer(kc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pc.what, err)
	}
	return &external{garden: issuer, kube: c.kube, clock: c.clock, log: c.log.WithValues("adminkubeconfig", describe(mg))}, nil
}

// legacyProviderConfig resolves the cluster-scoped ProviderConfig of a cluster-scoped
// AdminKubeconfig.
func (c *connector) legacyProviderConfig(ctx context.Context, cr *v1alpha1.AdminKubeconfig) (*providerConfig, error) {
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
	return &providerConfig{what: fmt.Sprintf("ProviderConfig %q", ref.Name), creds: pc.Spec.Credentials}, nil
}

// namespacedProviderConfig resolves what spec.providerConfigRef of a namespaced AdminKubeconfig
// names: a ProviderConfig in the AdminKubeconfig's namespace, never another, or a
// ClusterProviderConfig.
func (c *connector) namespacedProviderConfig(ctx context.Context, cr *namespaced.AdminKubeconfig) (*providerConfig, error) {
	ref := cr.GetProviderConfigReference()
	if ref == nil || ref.Name == "" {
		return nil, errors.New("spec.providerConfigRef is not set")
	}
	if err := c.modernUsage.Track(ctx, cr); err != nil {
		return nil, fmt.Errorf("cannot track the %s usage: %w", ref.Kind, err)
	}
	switch ref.Kind {
	case namespaced.ClusterProviderConfigKind:
		cpc := &namespaced.ClusterProviderConfig{}
		if err := c.kube.Get(ctx, types.NamespacedName{Name: ref.Name}, cpc); err != nil {
			return nil, fmt.Errorf("cannot get ClusterProviderConfig %q: %w", ref.Name, err)
		}
		return &providerConfig{what: fmt.Sprintf("ClusterProviderConfig %q", ref.Name), creds: cpc.Spec.Credentials}, nil
	case namespaced.ProviderConfigKind:
		ns := cr.GetNamespace()
		pc := &namespaced.ProviderConfig{}
		what := fmt.Sprintf("ProviderConfig %q in namespace %q", ref.Name, ns)
		if err := c.kube.Get(ctx, types.NamespacedName{Namespace: ns, Name: ref.Name}, pc); err != nil {
			return nil, fmt.Errorf("cannot get %s: %w", what, err)
		}
		return &providerConfig{what: what, creds: pc.Spec.Credentials, confinedTo: ns}, nil
	default:
		return nil, fmt.Errorf("spec.providerConfigRef.kind %q is neither %s nor %s", ref.Kind, namespaced.ProviderConfigKind, namespaced.ClusterProviderConfigKind)
	}
}

// credentials reads the garden kubeconfig of a ProviderConfig. A namespaced ProviderConfig may
// only use a Secret in its own namespace (an empty secretRef.namespace means that namespace):
// the provider can read every Secret of the cluster, and whoever may write a ProviderConfig in
// one namespace must not be able to make it read the Secrets of another. The check comes
// before any read, so a refused Secret is never fetched.
func (c *connector) credentials(ctx context.Context, pc *providerConfig) ([]byte, error) {
	creds := pc.creds
	if pc.confinedTo != "" {
		// The CRD admits no other source; refuse anything else all the same, since other
		// sources would read the provider's own environment or files.
		if creds.Source != xpv2.CredentialsSourceSecret || creds.SecretRef == nil {
			return nil, fmt.Errorf("%s: spec.credentials must be source Secret with a secretRef", pc.what)
		}
		ref := *creds.SecretRef
		switch ref.Namespace {
		case "":
			ref.Namespace = pc.confinedTo
		case pc.confinedTo:
		default:
			return nil, fmt.Errorf("%s: %s refers to Secret %s/%s: a namespaced ProviderConfig may only use a Secret in its own namespace; "+
				"put the credentials into namespace %s or use a ClusterProviderConfig",
				ReasonSecretOutsideNamespace, pc.what, ref.Namespace, ref.Name, pc.confinedTo)
		}
		creds.SecretRef = &ref
	}
	kc, err := resource.CommonCredentialExtractor(ctx, creds.Source, c.kube, xpv2.CommonCredentialSelectors{SecretRef: creds.SecretRef})
	if err != nil {
		return nil, fmt.Errorf("cannot read the garden credentials of %s: %w", pc.what, err)
	}
	if len(kc) == 0 {
		s := creds.SecretRef
		return nil, fmt.Errorf("%s: key %q of Secret %s/%s is missing or empty", pc.what, s.Key, s.Namespace, s.Name)
	}
	return kc, nil
}
