package adminkubeconfig

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/feature"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/crossplane-runtime/v2/pkg/statemetrics"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	namespaced "github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/namespaced/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/v1alpha1"
)

// Setup adds the controllers of both AdminKubeconfig kinds to the manager: the cluster-scoped
// one of gardener.kaas.scs.community and the namespaced one of gardener.m.kaas.scs.community.
func Setup(mgr ctrl.Manager, o controller.Options, userAgent string) error {
	if err := setup(mgr, o, userAgent, v1alpha1.AdminKubeconfigGroupKind, &v1alpha1.AdminKubeconfig{}, &v1alpha1.AdminKubeconfigList{}, NewReconciler); err != nil {
		return err
	}
	return setup(mgr, o, userAgent, namespaced.AdminKubeconfigGroupKind, &namespaced.AdminKubeconfig{}, &namespaced.AdminKubeconfigList{}, NewNamespacedReconciler)
}

func setup(mgr ctrl.Manager, o controller.Options, userAgent, groupKind string, kind client.Object, list resource.ManagedList,
	newReconciler func(manager.Manager, Options) *managed.Reconciler,
) error {
	name := managed.ControllerName(groupKind)
	opts := Options{
		Logger:             o.Logger.WithValues("controller", name),
		Recorder:           event.NewAPIRecorder(mgr.GetEventRecorderFor(name)), //nolint:staticcheck // crossplane-runtime's event package still wants the legacy recorder
		PollInterval:       o.PollInterval,
		Clock:              clock.RealClock{},
		ManagementPolicies: o.Features.Enabled(feature.EnableBetaManagementPolicies),
		UserAgent:          userAgent,
	}
	if o.MetricOptions != nil {
		opts.MetricRecorder = o.MetricOptions.MRMetrics
		if err := mgr.Add(statemetrics.NewMRStateRecorder(mgr.GetClient(), o.Logger, o.MetricOptions.MRStateMetrics,
			list, o.MetricOptions.PollStateMetricInterval)); err != nil {
			return err
		}
	}
	r := newReconciler(mgr, opts)
	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		// Status updates do not trigger reconciles; spec, label and annotation changes do.
		WithEventFilter(resource.DesiredStateChanged()).
		For(kind).
		// A connection secret deleted (an operator's cleanup, a restore) is issued again at
		// once rather than at the next poll, up to its interval later: every consumer of the
		// cluster's kubeconfig waits for it. Only the Secrets' metadata is watched, and of
		// their events only creation and deletion pass the filter above.
		Owns(&corev1.Secret{}, builder.OnlyMetadata).
		Complete(ratelimiter.NewReconciler(name, r, o.GlobalRateLimiter))
}
