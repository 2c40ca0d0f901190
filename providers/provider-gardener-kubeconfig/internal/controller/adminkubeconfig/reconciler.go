package adminkubeconfig

import (
	"time"

	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	namespaced "github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/namespaced/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/internal/garden"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/internal/renewal"
)

// Options configure the AdminKubeconfig reconciler.
type Options struct {
	Logger   logging.Logger
	Recorder event.Recorder
	// PollInterval is the longest time between two looks at an up-to-date kubeconfig; the
	// renewal time shortens it (see PollIntervalHook).
	PollInterval time.Duration
	// Clock is what the renewal arithmetic reads; nil means the real clock.
	Clock clock.PassiveClock
	// NewIssuer builds the garden client; nil means garden.NewClient.
	NewIssuer NewIssuerFn
	// ManagementPolicies enables spec.managementPolicies (crossplane-runtime's beta feature).
	ManagementPolicies bool
	// MetricRecorder records managed resource metrics; nil records none.
	MetricRecorder managed.MetricRecorder
	// UserAgent is sent to the garden.
	UserAgent string
}

// NewReconciler returns the managed reconciler of the cluster-scoped AdminKubeconfigs
// (gardener.kaas.scs.community), without a controller around it: Setup adds that, tests drive
// it directly.
func NewReconciler(mgr manager.Manager, o Options) *managed.Reconciler {
	return newReconciler(mgr, v1alpha1.AdminKubeconfigGroupVersionKind, o)
}

// NewNamespacedReconciler returns the managed reconciler of the namespaced AdminKubeconfigs
// (gardener.m.kaas.scs.community). It differs from NewReconciler only in the kind it
// reconciles: the connector and the external client serve both.
func NewNamespacedReconciler(mgr manager.Manager, o Options) *managed.Reconciler {
	return newReconciler(mgr, namespaced.AdminKubeconfigGroupVersionKind, o)
}

func newReconciler(mgr manager.Manager, kind schema.GroupVersionKind, o Options) *managed.Reconciler {
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.Logger == nil {
		o.Logger = logging.NewNopLogger()
	}
	if o.NewIssuer == nil {
		ua := o.UserAgent
		o.NewIssuer = func(kc []byte) (Issuer, error) { return garden.NewClient(kc, ua) }
	}
	conn := &connector{
		kube:        mgr.GetClient(),
		usage:       resource.NewLegacyProviderConfigUsageTracker(mgr.GetClient(), &v1alpha1.ProviderConfigUsage{}),
		modernUsage: resource.NewProviderConfigUsageTracker(mgr.GetClient(), &namespaced.ProviderConfigUsage{}),
		newIssuer:   o.NewIssuer,
		clock:       o.Clock,
		log:         o.Logger,
	}
	opts := []managed.ReconcilerOption{
		managed.WithExternalConnector(conn),
		managed.WithLogger(o.Logger),
		managed.WithPollInterval(o.PollInterval),
		managed.WithPollIntervalHook(PollIntervalHook(o.Clock)),
		// The external name means nothing here (a kubeconfig has no name in the garden): skip
		// the default initializer that would write it.
		managed.WithInitializers(),
		// Issuing twice is harmless (both kubeconfigs expire), so a Create that was
		// interrupted before its outcome was recorded may simply be retried.
		managed.WithDeterministicExternalName(true),
		// The grace period protects against external APIs that do not show a resource right
		// after creating it. Observe reads only the connection secret and the annotation, both
		// written before Create returns and read without a cache, so there is nothing to wait
		// for; waiting would only delay the deletion of a freshly created AdminKubeconfig.
		managed.WithCreationGracePeriod(0),
	}
	if o.Recorder != nil {
		opts = append(opts, managed.WithRecorder(o.Recorder))
	}
	if o.MetricRecorder != nil {
		opts = append(opts, managed.WithMetricRecorder(o.MetricRecorder))
	}
	if o.ManagementPolicies {
		opts = append(opts, managed.WithManagementPolicies())
	}
	return managed.NewReconciler(mgr, resource.ManagedKind(kind), opts...)
}

// PollIntervalHook makes the reconciler come back at the renewal time when that is sooner
// than the poll interval. crossplane-runtime calls it after every successful reconcile (an
// up-to-date kubeconfig or a successful renewal); failed reconciles are requeued by the rate
// limiter with exponential backoff instead.
func PollIntervalHook(c clock.PassiveClock) managed.PollIntervalHook {
	return func(mg resource.Managed, poll time.Duration) time.Duration {
		cr, err := asAdminKubeconfig(mg)
		if err != nil || cr.at.RenewalTime == nil {
			return poll
		}
		return renewal.RequeueAfter(c.Now(), cr.at.RenewalTime.Time, poll)
	}
}
