// Command provider runs provider-gardener-kubeconfig: the controllers of the cluster-scoped
// AdminKubeconfig and ProviderConfig (gardener.kaas.scs.community) and of the namespaced
// AdminKubeconfig, ProviderConfig and ClusterProviderConfig (gardener.m.kaas.scs.community). It runs in a Crossplane Provider package's pod or as a plain process
// against any cluster (KUBECONFIG), as the project's local control plane runs providers.
package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/alecthomas/kong"
	"github.com/crossplane/crossplane-runtime/v2/pkg/controller"
	"github.com/crossplane/crossplane-runtime/v2/pkg/feature"
	"github.com/crossplane/crossplane-runtime/v2/pkg/logging"
	"github.com/crossplane/crossplane-runtime/v2/pkg/ratelimiter"
	"github.com/crossplane/crossplane-runtime/v2/pkg/reconciler/managed"
	"github.com/crossplane/crossplane-runtime/v2/pkg/statemetrics"
	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/apis"
	pcontroller "github.com/SovereignCloudStack/scs-kaas/providers/provider-gardener-kubeconfig/internal/controller"
)

// version is set at build time (-ldflags "-X main.version=...").
var version = "dev"

type cli struct {
	Debug                    bool          `short:"d" help:"Log at debug level (never logs kubeconfigs or credentials)."`
	Kubeconfig               string        `help:"Kubeconfig of the Crossplane cluster; empty: $KUBECONFIG, the in-cluster config or ~/.kube/config."`
	Sync                     time.Duration `short:"s" default:"1h" help:"Controller manager sync period: every resource is reconciled at least this often."`
	Poll                     time.Duration `default:"10m" help:"Longest time between two looks at an up-to-date AdminKubeconfig. Renewals happen on time whatever this is: the controller also comes back at each renewal time."`
	PollStateMetric          time.Duration `default:"5s" help:"Interval of the managed resource state metrics."`
	MaxReconcileRate         int           `default:"10" help:"Reconciles per second across all controllers, and concurrent reconciles per controller."`
	LeaderElection           bool          `short:"l" env:"LEADER_ELECTION" help:"Use leader election (needs --leader-election-namespace outside a cluster)."`
	LeaderElectionNamespace  string        `env:"LEADER_ELECTION_NAMESPACE" help:"Namespace of the leader election lease; empty: the pod's namespace."`
	MetricsBindAddress       string        `default:":8080" env:"METRICS_BIND_ADDRESS" help:"Address of the Prometheus metrics endpoint; 0 disables it."`
	HealthProbeBindAddr      string        `default:":8081" env:"HEALTH_PROBE_BIND_ADDRESS" help:"Address of /healthz and /readyz."`
	EnableManagementPolicies bool          `default:"true" env:"ENABLE_MANAGEMENT_POLICIES" negatable:"" help:"Honour spec.managementPolicies (crossplane-runtime beta feature)."`
}

func main() {
	var c cli
	kong.Parse(&c, kong.Name("provider-gardener-kubeconfig"),
		kong.Description("Crossplane provider that keeps short-lived Gardener admin kubeconfigs in connection secrets and renews them."))
	if err := run(&c); err != nil {
		fmt.Fprintln(os.Stderr, "provider-gardener-kubeconfig:", err)
		os.Exit(1)
	}
}

func run(c *cli) error {
	zl := zap.New(zap.UseDevMode(c.Debug), func(o *zap.Options) { o.TimeEncoder = zapcore.ISO8601TimeEncoder })
	log := logging.NewLogrLogger(zl.WithName("provider-gardener-kubeconfig"))
	// controller-runtime's own logs only at debug level: they are noisy, not secret.
	ctrl.SetLogger(zap.New(zap.WriteTo(io.Discard)))
	if c.Debug {
		ctrl.SetLogger(zl)
	}
	log.Info("Starting", "version", version, "sync", c.Sync.String(), "poll", c.Poll.String(), "max-reconcile-rate", c.MaxReconcileRate)

	cfg, err := restConfig(c.Kubeconfig)
	if err != nil {
		return fmt.Errorf("cannot load the Crossplane cluster's config: %w", err)
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := apis.AddToScheme(scheme); err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(ratelimiter.LimitRESTConfig(cfg, c.MaxReconcileRate), ctrl.Options{
		Scheme: scheme,
		Cache:  cache.Options{SyncPeriod: &c.Sync, DefaultTransform: cache.TransformStripManagedFields()},
		// Secrets are read directly, not from an informer: the provider reads only the few it
		// needs (credentials, connection secrets), it must see a connection secret right after
		// writing it, and it should not hold every Secret of the cluster in memory.
		Client: client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}}},

		Metrics:                    metricsserver.Options{BindAddress: c.MetricsBindAddress},
		HealthProbeBindAddress:     c.HealthProbeBindAddr,
		LeaderElection:             c.LeaderElection,
		LeaderElectionID:           "crossplane-leader-election-provider-gardener-kubeconfig",
		LeaderElectionNamespace:    c.LeaderElectionNamespace,
		LeaderElectionResourceLock: resourcelock.LeasesResourceLock,
	})
	if err != nil {
		return fmt.Errorf("cannot create the controller manager: %w", err)
	}

	mm := managed.NewMRMetricRecorder()
	sm := statemetrics.NewMRStateMetrics()
	metrics.Registry.MustRegister(mm, sm)
	o := controller.Options{
		Logger:                  log,
		MaxConcurrentReconciles: c.MaxReconcileRate,
		PollInterval:            c.Poll,
		GlobalRateLimiter:       ratelimiter.NewGlobal(c.MaxReconcileRate),
		Features:                &feature.Flags{},
		MetricOptions:           &controller.MetricOptions{PollStateMetricInterval: c.PollStateMetric, MRMetrics: mm, MRStateMetrics: sm},
	}
	if c.EnableManagementPolicies {
		o.Features.Enable(feature.EnableBetaManagementPolicies)
	}
	if err := pcontroller.Setup(mgr, o, "provider-gardener-kubeconfig/"+version); err != nil {
		return fmt.Errorf("cannot set up the controllers: %w", err)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return err
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}

// restConfig loads the kubeconfig given, or what controller-runtime finds by itself.
func restConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig != "" {
		return clientcmd.BuildConfigFromFlags("", kubeconfig)
	}
	return ctrl.GetConfig()
}
