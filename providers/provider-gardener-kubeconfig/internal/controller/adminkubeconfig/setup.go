package adminkubeconfig

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/feature"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	"github.com/crossplane/crossplane-runtime/v2/pkg/statemetrics"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/v1alpha1"
)

// Setup adds the AdminKubeconfig controller to the manager.
func Setup(mgr ctrl.Manager, o controller.Options, userAgent string) error {
	name := managed.ControllerName(v1alpha1.AdminKubeconfigGroupKind)
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
			&v1alpha1.AdminKubeconfigList{}, o.MetricOptions.PollStateMetricInterval)); err != nil {
			return err
		}
	}
	r := NewReconciler(mgr, opts)
	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		WithOptions(o.ForControllerRuntime()).
		// Status updates do not trigger reconciles; spec, label and annotation changes do.
		WithEventFilter(resource.DesiredStateChanged()).
		For(&v1alpha1.AdminKubeconfig{}).
		Complete(ratelimiter.NewReconciler(name, r, o.GlobalRateLimiter))
}
