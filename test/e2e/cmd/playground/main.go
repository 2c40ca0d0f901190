// Command playground starts and stops the local control plane (see package
// controlplane) for humans: `make demo` and `make down`.
//
//	playground up       [flags]  start everything, print kubeconfigs and a how-to, exit
//	playground demo     [flags]  up, then apply claims, wait for their Shoots, show them
//	playground simulate [flags]  write the status Gardener would write on a claim's Shoot
//	playground play-backends [flags]  play the backends for the conformance kit's clusters (started by up --conformance-backends)
//	playground package-runtime [flags]  play the package runtime of Crossplane (started by up --configuration)
//	playground down     [flags]  stop what the run directory says was started
//	playground status   [flags]  show what runs
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/backendsim"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
	"github.com/SovereignCloudStack/scs-kaas/test/e2e/kubeconfigprovider"
)

// list is a repeatable flag that also splits on commas, so make variables
// can pass several paths in one word.
type list []string

func (l *list) String() string { return strings.Join(*l, ",") }
func (l *list) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	// Crossplane's v1 XRD and its claims warn on every request; once is enough.
	rest.SetDefaultWarningHandler(rest.NewWarningWriter(os.Stderr, rest.WarningWriterOptions{Deduplicate: true}))
	var err error
	switch os.Args[1] {
	case "up":
		err = up(os.Args[2:])
	case "demo":
		err = demo(os.Args[2:])
	case "simulate":
		err = simulate(os.Args[2:])
	case "play-backends":
		err = playBackends(os.Args[2:])
	case "package-runtime":
		err = packageRuntime(os.Args[2:])
	case "down":
		err = down(os.Args[2:])
	case "status":
		err = status(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "playground:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: playground up|demo|simulate|down|status [flags]   (playground <cmd> -h for flags)")
	os.Exit(2)
}

func defaultRunDir() string {
	if root, err := controlplane.FindRepoRoot("."); err == nil {
		return filepath.Join(root, "_output", "playground")
	}
	return filepath.Join(os.TempDir(), "scs-kaas-playground")
}

// upConfig is what `up` and `demo` share: the control plane's options and what joins it.
type upConfig struct {
	opts    controlplane.Options
	timeout *time.Duration
	// namespaces are created in the Crossplane cluster (for claims).
	namespaces list
	// kubeconfigProvider also runs provider-gardener-kubeconfig against the garden.
	kubeconfigProvider *bool
	// backends runs Cluster API with the scs2 ClusterClasses and installs the CRDs of
	// the controllers that cannot run (the Cluster Stack operator, provider-openstack).
	backends *bool
	// conformanceBackends starts the workload API servers and the backend simulator that
	// play the backends for the clusters of kubectl scs conformance (make conformance).
	conformanceBackends *bool
	// addons runs Flux and gives the environments the example add-on catalog and Argo CD
	// registration (make demo).
	addons *bool
	// withStatus are manifests applied with their status, as the controllers that keep
	// them would write it (such as the Cluster Stack operator's ClusterStackReleases).
	withStatus list
	// configuration, when set, installs the project through its packages: the manifest of
	// examples/install that names the Configuration (docs/install.md, air-gapped).
	configuration *string

	manifests, projects, gardenCRDs, fnArgs list
}

// upFlags defines the flags of `up` on fs.
func upFlags(fs *flag.FlagSet) *upConfig {
	c := &upConfig{}
	o := &c.opts
	fs.StringVar(&o.RunDir, "run-dir", defaultRunDir(), "run directory (PKI, data, logs, PID files); an earlier run in it is stopped first")
	fs.StringVar(&o.FunctionBinary, "function-binary", "", "composition function binary to run (empty: register only)")
	fs.StringVar(&o.FunctionName, "function-name", controlplane.DefaultFunctionName, "Function name the Compositions reference")
	fs.StringVar(&o.FunctionCertsDirFlag, "function-certs-dir-flag", "", "also pass the function's TLS directory as this flag (it always gets TLS_SERVER_CERTS_DIR)")
	fs.Var(&c.fnArgs, "function-arg", "extra function argument (repeatable)")
	fs.Var(&c.manifests, "manifest", "file or directory applied into the Crossplane cluster (repeatable, comma-separated)")
	fs.Var(&c.projects, "project", "Gardener project: creates the Project, its namespace garden-<project> and its OpenStack credentials in the garden (repeatable, comma-separated)")
	fs.Var(&c.gardenCRDs, "garden-crd", "extra CRD file or directory for the garden cluster (repeatable)")
	fs.StringVar(&o.ProviderConfigName, "provider-config", "garden", "name of the provider-kubernetes (Cluster)ProviderConfig for the garden")
	fs.DurationVar(&o.PollInterval, "poll-interval", 10*time.Second, "Crossplane and provider poll interval")
	fs.Var(&c.namespaces, "namespace", "namespace to create in the Crossplane cluster, e.g. for claims (repeatable, comma-separated)")
	c.configuration = fs.String("configuration", "", "install the project through its packages (make package) from a local registry, as docs/install.md does air-gapped: the manifest of examples/install that names the Configuration (configuration.yaml, or configuration-claims.yaml for claims); empty: nothing is installed but the manifests")
	c.kubeconfigProvider = fs.Bool("kubeconfig-provider", false, "also run provider-gardener-kubeconfig (built from the repository; its CRDs must be among the manifests or come with --configuration) against the garden's gardener-apiserver (shoots/adminkubeconfig)")
	c.backends = fs.Bool("backends", false, "also run Cluster API (with the scs2 ClusterClasses of the ClusterStackReleases among --with-status) and serve the CRDs of the controllers that cannot run here (ClusterStackRelease, provider-openstack ClusterV1 and NodegroupV1)")
	c.conformanceBackends = fs.Bool("conformance-backends", false, "also start API servers standing in for workload clusters and a process that plays Gardener, Cluster API's infrastructure and machines, and Magnum for the clusters kubectl scs conformance creates (labelled "+backendsim.ConformanceRunLabel+"); others are left to you")
	c.addons = fs.Bool("addons", false, "also run Flux's source- and kustomize-controller (hack/tools/flux), push examples/addons to the local registry (needs --configuration), and give every environment the example add-on catalog (hello enforced, web default) and Argo CD registration into namespace "+controlplane.ArgoCDNamespace)
	fs.Var(&c.withStatus, "with-status", "file or directory applied into the Crossplane cluster with the status each object carries, written as its controller would (repeatable, comma-separated)")
	c.timeout = fs.Duration("timeout", 45*time.Minute, "give up after this long (includes building missing tools)")
	return c
}

// start brings the control plane up, detached, with what c adds to it.
func (c *upConfig) start(ctx context.Context) (*controlplane.Env, error) {
	o := c.opts
	o.Manifests, o.GardenProjects, o.GardenCRDs, o.FunctionExtraArgs = c.manifests, c.projects, c.gardenCRDs, c.fnArgs
	root := o.RepoRoot
	if root == "" && (*c.backends || *c.configuration != "") {
		var err error
		if root, err = controlplane.FindRepoRoot("."); err != nil {
			return nil, err
		}
	}
	if *c.backends {
		o.Manifests = append(append([]string{}, o.Manifests...), controlplane.BackendCRDs(logf, root)...)
		o.ClusterAPI = true
	}
	if *c.configuration != "" {
		install, err := controlplane.ProjectInstall(root, *c.configuration)
		if err != nil {
			return nil, err
		}
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		install.RuntimeCommand = []string{self, "package-runtime"}
		o.Packages = install
	}
	o.Detach = true
	o.Logf = logf
	env, err := controlplane.Start(ctx, o)
	if err != nil {
		return nil, err
	}
	if err := c.join(ctx, env); err != nil {
		return nil, errors.Join(err, env.Stop())
	}
	return env, nil
}

// join adds namespaces, objects with their status and the kubeconfig provider to a running
// control plane.
func (c *upConfig) join(ctx context.Context, env *controlplane.Env) error {
	for _, ns := range c.namespaces {
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns},
		}}
		if err := env.Crossplane.ApplyObjects(ctx, obj); err != nil {
			return err
		}
	}
	if len(c.withStatus) > 0 {
		objs, err := controlplane.ReadManifests(c.withStatus...)
		if err != nil {
			return err
		}
		if err := env.Crossplane.ApplyWithStatus(ctx, "controllers-simulated-by-playground", objs...); err != nil {
			return err
		}
		if *c.backends {
			if err := installClusterClasses(ctx, env, objs); err != nil {
				return err
			}
		}
	}
	if *c.kubeconfigProvider {
		if err := kubeconfigprovider.Start(ctx, env, kubeconfigprovider.Options{RepoRoot: env.Options().RepoRoot, Logf: logf}); err != nil {
			return err
		}
	}
	if *c.conformanceBackends {
		if err := startBackendSimulator(ctx, env); err != nil {
			return err
		}
	}
	if *c.addons {
		return startAddons(ctx, env, c.namespaces)
	}
	return nil
}

// installClusterClasses installs, next to each ClusterStackRelease among objs, its
// ClusterClass rendered from the scs2 chart, as the Cluster Stack operator would. Without
// the chart (no ../shared, no network) the playground runs on and says so: Cluster API then
// admits the Clusters but cannot expand them.
func installClusterClasses(ctx context.Context, env *controlplane.Env, objs []*unstructured.Unstructured) error {
	byNamespace := map[string][]string{}
	for _, o := range objs {
		if o.GetKind() == "ClusterStackRelease" {
			byNamespace[o.GetNamespace()] = append(byNamespace[o.GetNamespace()], o.GetName())
		}
	}
	if len(byNamespace) == 0 {
		return nil
	}
	chart, err := controlplane.SCS2Chart(ctx, env.Options().RepoRoot, logf)
	if errors.Is(err, controlplane.ErrNoClusterStack) {
		logf("NOTE: %v; Clusters get no ClusterClass in this playground", err)
		return nil
	} else if err != nil {
		return err
	}
	for ns, releases := range byNamespace {
		if err := controlplane.InstallClusterStack(ctx, env.Crossplane, chart, ns, releases...); err != nil {
			return err
		}
		logf("installed the scs2 ClusterClasses %v in %s", releases, ns)
	}
	return nil
}

func logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, a...)...)
}

// signalContext ends on Ctrl-C, SIGTERM or after timeout.
func signalContext(timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	return ctx, func() { cancelTimeout(); cancel() }
}

func up(args []string) error {
	fs := flag.NewFlagSet("up", flag.ExitOnError)
	c := upFlags(fs)
	_ = fs.Parse(args)
	ctx, cancel := signalContext(*c.timeout)
	defer cancel()
	env, err := c.start(ctx)
	if err != nil {
		return err
	}
	s := env.State()
	run := env.RunDir
	fmt.Printf(`
The local control plane is up (run dir %[1]s).

  Crossplane cluster:  export KUBECONFIG=%[2]s
  Garden cluster:      %[3]s --kubeconfig %[4]s get shoots,configmaps -A
  kubectl:             %[3]s
  Function:            %[5]s at %[6]s (mTLS; certificates in %[7]s)
  ProviderConfig:      %[8]s (kubernetes.crossplane.io) and ClusterProviderConfig %[8]s (kubernetes.m.crossplane.io)
  Logs:                %[9]s/<process>.log

Try:
  %[3]s get xrd,composition,function
  %[3]s apply -f examples/claims/...          # then watch: %[3]s get managed,composite -A
  %[3]s --kubeconfig %[4]s -n garden-<project> get shoots -o yaml

No Gardener controller runs: write a Shoot's status yourself. Gardener's schema
requires uid (the Shoot's), technicalID, hibernated and gardener in a status, e.g.
  %[3]s --kubeconfig %[4]s -n garden-<project> patch shoot NAME --subresource=status --type=merge -p \
    '{"status":{"uid":"<metadata.uid>","technicalID":"shoot--p--n","hibernated":false,
      "gardener":{"id":"local","name":"local","version":"v1.149.3"},
      "lastOperation":{"type":"Create","state":"Succeeded","progress":100,"description":"done",
                       "lastUpdateTime":"2026-01-01T00:00:00Z"}}}'

Stop everything:  playground down --run-dir %[1]s
`, run, s.CrossplaneKubeconfig, s.Kubectl, s.GardenKubeconfig, s.FunctionName, s.FunctionAddress, s.FunctionTLSDir, s.ProviderConfigName, s.LogDir)
	return nil
}

func down(args []string) error {
	fs := flag.NewFlagSet("down", flag.ExitOnError)
	runDir := fs.String("run-dir", defaultRunDir(), "run directory of the playground to stop")
	_ = fs.Parse(args)
	if err := controlplane.StopRun(*runDir); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "stopped everything recorded in %s\n", *runDir)
	return nil
}

func status(args []string) error {
	fs := flag.NewFlagSet("status", flag.ExitOnError)
	runDir := fs.String("run-dir", defaultRunDir(), "run directory of the playground")
	_ = fs.Parse(args)
	procs, err := controlplane.RunProcesses(*runDir)
	if err != nil {
		return err
	}
	if len(procs) == 0 {
		fmt.Printf("nothing recorded in %s\n", *runDir)
		return nil
	}
	for _, p := range procs {
		state := "stopped"
		if p.Running {
			state = "running"
		}
		fmt.Printf("%-32s pid %-8d %s\n", p.Name, p.PID, state)
	}
	if data, err := os.ReadFile(filepath.Join(*runDir, "state.json")); err == nil {
		var s controlplane.State
		if json.Unmarshal(data, &s) == nil {
			fmt.Printf("\nexport KUBECONFIG=%s   # Crossplane cluster\n%s --kubeconfig %s ...   # garden\n", s.CrossplaneKubeconfig, s.Kubectl, s.GardenKubeconfig)
		}
	}
	return nil
}
