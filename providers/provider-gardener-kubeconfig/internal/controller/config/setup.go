// Package config reconciles ProviderConfigs and ClusterProviderConfigs: it counts their users
// and keeps one that is in use from being deleted, with crossplane-runtime's ProviderConfig
// reconciler.
package config

import (
	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/event"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/providerconfig"
	"github.com/crossplane/crossplane-runtime/v2/pkg/resource"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	namespaced "github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/namespaced/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis/v1alpha1"
)

// Setup adds the controllers of the three provider config kinds to the manager: the
// cluster-scoped ProviderConfig of gardener.kaas.scs.community (with its cluster-scoped
// usages), and the namespaced ProviderConfig and the ClusterProviderConfig of
// gardener.m.kaas.scs.community, which share the namespaced usages (told apart by
// providerConfigRef.kind).
func Setup(mgr ctrl.Manager, o controller.Options) error {
	for _, c := range []struct {
		groupKind string
		kinds     resource.ProviderConfigKinds
		config    client.Object
		usage     client.Object
		enqueue   *resource.EnqueueRequestForProviderConfig
	}{
		{
			groupKind: v1alpha1.ProviderConfigGroupKind,
			kinds: resource.ProviderConfigKinds{
				Config:    v1alpha1.ProviderConfigGroupVersionKind,
				Usage:     v1alpha1.ProviderConfigUsageGroupVersionKind,
				UsageList: v1alpha1.ProviderConfigUsageListGroupVersionKind,
			},
			config: &v1alpha1.ProviderConfig{}, usage: &v1alpha1.ProviderConfigUsage{},
			enqueue: &resource.EnqueueRequestForProviderConfig{},
		},
		{
			groupKind: namespaced.ProviderConfigGroupKind,
			kinds: resource.ProviderConfigKinds{
				Config:    namespaced.ProviderConfigGroupVersionKind,
				Usage:     namespaced.ProviderConfigUsageGroupVersionKind,
				UsageList: namespaced.ProviderConfigUsageListGroupVersionKind,
			},
			config: &namespaced.ProviderConfig{}, usage: &namespaced.ProviderConfigUsage{},
			enqueue: &resource.EnqueueRequestForProviderConfig{Kind: namespaced.ProviderConfigKind},
		},
		{
			groupKind: namespaced.ClusterProviderConfigGroupKind,
			kinds: resource.ProviderConfigKinds{
				Config:    namespaced.ClusterProviderConfigGroupVersionKind,
				Usage:     namespaced.ProviderConfigUsageGroupVersionKind,
				UsageList: namespaced.ProviderConfigUsageListGroupVersionKind,
			},
			config: &namespaced.ClusterProviderConfig{}, usage: &namespaced.ProviderConfigUsage{},
			enqueue: &resource.EnqueueRequestForProviderConfig{Kind: namespaced.ClusterProviderConfigKind},
		},
	} {
		name := providerconfig.ControllerName(c.groupKind)
		r := providerconfig.NewReconciler(mgr, c.kinds,
			providerconfig.WithLogger(o.Logger.WithValues("controller", name)),
			providerconfig.WithRecorder(event.NewAPIRecorder(mgr.GetEventRecorderFor(name)))) //nolint:staticcheck // see adminkubeconfig.Setup
		err := ctrl.NewControllerManagedBy(mgr).
			Named(name).
			WithOptions(o.ForControllerRuntime()).
			For(c.config).
			Watches(c.usage, c.enqueue).
			Complete(ratelimiter.NewReconciler(name, r, o.GlobalRateLimiter))
		if err != nil {
			return err
		}
	}
	return nil
}
