// Package controlplane runs a real Crossplane control plane on one machine
// without containers: etcd, kube-apiserver and kube-controller-manager for
// the Crossplane cluster, a Gardener garden (etcd, kube-apiserver and the real
// gardener-apiserver aggregated behind it), Crossplane core, provider-kubernetes
// and a composition function, and optionally Cluster API, all as plain
// processes on 127.0.0.1.
//
// What it cannot include: no kubelet, no Pods and no cloud, so no gardenlet
// and no OpenStack; tests that need the status those would write write it
// themselves (packages gardensim and the simulators of the e2e).
package controlplane

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"
)

// DefaultFunctionName is the name Compositions use in functionRef: the
// package manager's name for ghcr.io/sovereigncloudstack/function-scs-kaas.
const DefaultFunctionName = "sovereigncloudstack-function-scs-kaas"

// Options configure Start. Only RunDir is needed when tools are found through
// the repository; everything else has a default.
type Options struct {
	// RunDir holds PKI, data, logs (logs/<process>.log) and PID files
	// (pids/<process>.json). Start stops whatever an earlier run in it left
	// behind and reuses it. Default: <repo>/_output/playground.
	RunDir string
	// RepoRoot is the scs-kaas checkout (for hack/tools/build.sh). Default:
	// found above the working directory.
	RepoRoot string
	// Tools are the binaries; empty fields are resolved (see Tools).
	Tools Tools

	// FunctionBinary is the composition function to run. Empty: the
	// function is registered but not started (StartFunction can follow).
	FunctionBinary string
	// FunctionName is the Function (and FunctionRevision) name that
	// Compositions reference. Default: DefaultFunctionName.
	FunctionName string
	// FunctionCertsDirFlag, e.g. "--tls-server-certs-dir", additionally
	// passes the server certificate directory as that flag; it is always
	// passed as TLS_SERVER_CERTS_DIR.
	FunctionCertsDirFlag string
	// FunctionExtraArgs are appended to the function's command line.
	FunctionExtraArgs []string

	// ProviderConfigName names the provider-kubernetes ProviderConfig and
	// ClusterProviderConfig for the garden cluster. Default: "garden".
	ProviderConfigName string
	// GardenProjects become Gardener projects in the garden: namespace garden-<project>,
	// the Project and its OpenStack credentials (see CreateGardenProject).
	GardenProjects []string
	// GardenCRDs are further CRD files or directories for the garden cluster.
	GardenCRDs []string

	// ClusterAPI runs Cluster API (StartClusterAPI) in the Crossplane cluster, which is
	// then also the Cluster Stacks backend's local management cluster.
	ClusterAPI bool
	// ManagementCluster, when set, starts one more cluster of that name running Cluster
	// API, a remote management cluster, and names provider-kubernetes' ProviderConfig and
	// ClusterProviderConfig for it so.
	ManagementCluster string

	// Manifests are files or directories applied into the Crossplane
	// cluster once everything runs (XRDs, Compositions, EnvironmentConfigs,
	// RBAC...). Start waits for every XRD among them to be Established and,
	// when it offers a claim, Offered.
	Manifests []string

	// Packages, when set, installs the project through Crossplane's package manager from the
	// control plane's registry: a Configuration and ImageConfigs instead of the XRD,
	// Composition and FunctionRevision (which Manifests must then not hold) and
	// provider-kubernetes' CRDs applied by hand.
	Packages *PackageInstall

	// PollInterval for Crossplane and provider-kubernetes. Default: 10s.
	PollInterval time.Duration
	// Detach keeps the processes running after this process exits
	// (playground up). Otherwise they are killed with it (Pdeathsig).
	Detach bool
	// Logf receives progress messages. Default: discard.
	Logf func(format string, args ...any)
}

// Env is a running control plane.
type Env struct {
	// RunDir is the absolute run directory.
	RunDir string
	// Crossplane is the cluster Crossplane, the provider and the XRs live in.
	Crossplane *Cluster
	// Garden is Gardener's garden cluster: a kube-apiserver aggregating
	// gardener-apiserver (Shoots, CloudProfiles, Projects, ...).
	Garden *Cluster
	// Management is the remote Cluster API management cluster (Options.ManagementCluster),
	// or nil.
	Management *Cluster

	opts  Options
	tools Tools

	mu    sync.Mutex // guards procs and seq
	procs map[string]*process
	seq   int
	fnMu  sync.Mutex // serialises Start/Stop/KillFunction and Stop

	fnPort, fnMetricsPort, providerWebhookPort, crossplaneHealth int
	fnClientTLS                                                  *tls.Config
	providerCA                                                   *certAuthority
	registry                                                     *Registry
	signing                                                      *Signing
	stopPackageRuntime                                           context.CancelFunc
	configuration                                                installedConfiguration
}

// Tools returns the resolved tool directories (e.g. for kubectl).
func (e *Env) Tools() Tools { return e.tools }

// Options returns the options after defaulting.
func (e *Env) Options() Options { return e.opts }

func (e *Env) logf(format string, args ...any) { e.opts.Logf(format, args...) }

func (o *Options) defaults() error {
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.RepoRoot == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		// Not fatal: the tools may all be given explicitly.
		o.RepoRoot, _ = FindRepoRoot(wd)
	}
	if o.RunDir == "" {
		if o.RepoRoot == "" {
			return errors.New("Options.RunDir is empty and no repository was found")
		}
		o.RunDir = filepath.Join(o.RepoRoot, "_output", "playground")
	}
	var err error
	if o.RunDir, err = filepath.Abs(o.RunDir); err != nil {
		return err
	}
	if o.FunctionName == "" {
		o.FunctionName = DefaultFunctionName
	}
	if o.ProviderConfigName == "" {
		o.ProviderConfigName = "garden"
	}
	if o.PollInterval == 0 {
		o.PollInterval = 10 * time.Second
	}
	if o.FunctionBinary != "" {
		if o.FunctionBinary, err = filepath.Abs(o.FunctionBinary); err != nil {
			return err
		}
	}
	return nil
}

// runSubdirs are what a run leaves in RunDir; only these are removed before
// a new run, never RunDir itself, which a caller may have pointed anywhere.
var runSubdirs = []string{"crossplane", "garden", "function", "provider-kubernetes", "logs", "pids", "state.json"}

// Start brings the whole control plane up and returns when it is ready:
// API servers answer /readyz, Crossplane and provider-kubernetes report
// ready, the function completes a TLS handshake, and every XRD in
// Options.Manifests is Established (and Offered). On error everything
// started so far is stopped again.
func Start(ctx context.Context, opts Options) (_ *Env, err error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	e := &Env{RunDir: opts.RunDir, opts: opts, procs: map[string]*process{}}
	start := time.Now()
	if opts.Packages != nil && opts.Detach && len(opts.Packages.RuntimeCommand) == 0 {
		return nil, errors.New("Options.Packages with Detach needs Packages.RuntimeCommand: the package runtime cannot run in this process")
	}

	if err := StopRun(e.RunDir); err != nil {
		return nil, fmt.Errorf("stopping the previous run in %s: %w", e.RunDir, err)
	}
	subdirs := runSubdirs
	if opts.ManagementCluster != "" {
		subdirs = append(slices.Clone(runSubdirs), opts.ManagementCluster)
	}
	for _, d := range subdirs {
		if err := os.RemoveAll(filepath.Join(e.RunDir, d)); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(e.RunDir, 0o755); err != nil {
		return nil, err
	}
	if e.tools, err = opts.Tools.resolve(ctx, opts.RepoRoot, opts.Packages, e.logf); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = e.Stop()
		}
	}()

	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	e.fnPort, e.fnMetricsPort, e.providerWebhookPort = ports[0], ports[1], ports[2]
	if err := e.setupFunctionTLS(); err != nil {
		return nil, err
	}
	if err := e.setupProviderTLS(); err != nil {
		return nil, err
	}

	var gardenDone chan struct{}
	var gardenErr error
	defer func() {
		if gardenDone != nil && err != nil {
			<-gardenDone // let it finish before Stop tears its processes down
		}
	}()
	// The garden cluster boots in parallel with the Crossplane side: they share nothing
	// until the provider config needs its kubeconfig.
	startGarden := func(ctx context.Context) {
		gardenDone = make(chan struct{})
		go func() {
			defer close(gardenDone)
			if e.Garden, gardenErr = e.startGarden(ctx); gardenErr == nil {
				gardenErr = e.setupGarden(ctx)
			}
		}()
	}
	waitGarden := func(context.Context) error {
		<-gardenDone
		return gardenErr
	}
	steps := append([]startStep{{what: "Crossplane cluster (etcd, kube-apiserver)", do: func(ctx context.Context) (err error) {
		startGarden(ctx)
		e.Crossplane, err = e.startCluster(ctx, "crossplane", clusterOptions{})
		return err
	}}}, e.crossplaneSteps(waitGarden)...)
	if err := e.runSteps(ctx, steps, false); err != nil {
		return nil, err
	}
	if err := e.writeState(); err != nil {
		return nil, err
	}
	e.logf("control plane ready in %.1fs (run dir %s)", time.Since(start).Seconds(), e.RunDir)
	return e, nil
}

// startStep is one step of Start.
type startStep struct {
	what string
	do   func(context.Context) error
	// outside marks what lives outside the Crossplane cluster (the garden, the remote
	// management cluster, the registry and the signing key): RebuildCrossplane keeps it.
	outside bool
}

// crossplaneSteps are Start's steps after the Crossplane cluster runs, in order; waitGarden
// returns once the garden runs (Start boots it in parallel).
func (e *Env) crossplaneSteps(waitGarden func(context.Context) error) []startStep {
	opts := e.opts
	packages := opts.Packages != nil
	return []startStep{
		{what: "Crossplane core init (CRDs, secrets, Lock)", do: e.initCrossplane},
		{what: "provider-kubernetes CRDs", do: skipIf(packages, e.installProviderCRDs)},
		{what: "provider-kubernetes", do: skipIf(packages, e.startProvider)},
		{what: "garden cluster (etcd, kube-apiserver, gardener-apiserver, landscape, projects)", do: waitGarden, outside: true},
		{what: "provider configs for the garden", do: skipIf(packages, e.configureProvider)},
		{what: "Cluster API", do: onlyIf(opts.ClusterAPI, func(ctx context.Context) error {
			return e.StartClusterAPI(ctx, e.Crossplane)
		})},
		{what: "remote Cluster API management cluster", do: onlyIf(opts.ManagementCluster != "", func(ctx context.Context) error {
			return e.startManagementCluster(ctx, opts.ManagementCluster)
		}), outside: true},
		{what: "function registration", do: skipIf(packages, e.registerFunction)},
		{what: "function process", do: func(ctx context.Context) error {
			if opts.FunctionBinary == "" {
				e.logf("no function binary given: registered %s, not started", opts.FunctionName)
				return nil
			}
			return e.StartFunction(ctx)
		}},
		{what: "signing key, transparency log and TUF root", do: onlyIf(packages && opts.Packages.Verify, e.startSigning), outside: true},
		{what: "registry and the packages pushed to it", do: onlyIf(packages, e.pushPackages), outside: true},
		{what: "Crossplane core", do: e.startCrossplane},
		{what: "package runtime", do: onlyIf(packages, e.startPackageRuntime)},
		{what: "Configuration installed by the package manager", do: onlyIf(packages, e.installConfiguration)},
		{what: "provider-kubernetes (CRDs from its package)", do: onlyIf(packages, e.startProvider)},
		{what: "provider configs for the garden (after the package's CRDs)", do: onlyIf(packages, e.configureProvider)},
		{what: "provider configs for the remote management cluster", do: onlyIf(opts.ManagementCluster != "", func(ctx context.Context) error {
			return e.providerConfigsFor(ctx, e.Management, opts.ManagementCluster, opts.ManagementCluster+"-kubeconfig")
		})},
		{what: "manifests", do: e.applyManifests},
		// Last: its garbage collector only discovers CRDs that exist when it
		// starts (or after a 30 s resync).
		{what: "kube-controller-manager", do: func(ctx context.Context) error {
			return e.startControllerManager(ctx, e.Crossplane)
		}},
	}
}

// runSteps runs steps in order, logging each one's time; crossplaneOnly leaves out what
// lives outside the Crossplane cluster.
func (e *Env) runSteps(ctx context.Context, steps []startStep, crossplaneOnly bool) error {
	for _, s := range steps {
		if s.do == nil || (crossplaneOnly && s.outside) {
			continue // not a step of this control plane (Options.Packages), or kept
		}
		t := time.Now()
		if err := s.do(ctx); err != nil {
			return fmt.Errorf("%s: %w", s.what, err)
		}
		e.logf("ready: %s (%.1fs)", s.what, time.Since(t).Seconds())
	}
	return nil
}

// Stop stops every process this Env started, newest first (SIGTERM to its
// process group, SIGKILL after 15 s), and nothing else.
func (e *Env) Stop() error {
	e.fnMu.Lock()
	defer e.fnMu.Unlock()
	if e.stopPackageRuntime != nil {
		e.stopPackageRuntime()
	}
	e.signing.stop()
	e.mu.Lock()
	names := make([]string, 0, len(e.procs))
	seq := map[string]int{}
	for n, p := range e.procs {
		names = append(names, n)
		seq[n] = p.rec.Seq
	}
	e.mu.Unlock()
	sort.Slice(names, func(i, j int) bool { return seq[names[i]] > seq[names[j]] })
	var errs []error
	for _, n := range names {
		if err := e.stopProcess(n); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// PIDs returns the processes currently running for this Env, by name.
func (e *Env) PIDs() map[string]int {
	e.mu.Lock()
	defer e.mu.Unlock()
	m := map[string]int{}
	for n, p := range e.procs {
		m[n] = p.rec.PID
	}
	return m
}

// RSS returns the resident set size in KiB of each running process.
func (e *Env) RSS() map[string]int64 {
	m := map[string]int64{}
	for n, pid := range e.PIDs() {
		if kib, err := rssKiB(pid); err == nil {
			m[n] = kib
		}
	}
	return m
}

// LogFile is the log of the named process (see PIDs for names).
func (e *Env) LogFile(name string) string { return filepath.Join(e.RunDir, "logs", name+".log") }

// State is what a run directory's state.json records for other programs.
type State struct {
	CrossplaneKubeconfig string `json:"crossplaneKubeconfig"`
	GardenKubeconfig     string `json:"gardenKubeconfig"`
	FunctionName         string `json:"functionName"`
	FunctionAddress      string `json:"functionAddress"`
	FunctionTLSDir       string `json:"functionTLSDir"`
	ProviderConfigName   string `json:"providerConfigName"`
	Kubectl              string `json:"kubectl"`
	LogDir               string `json:"logDir"`
}

// State describes the running Env.
func (e *Env) State() State {
	return State{
		CrossplaneKubeconfig: e.Crossplane.Kubeconfig,
		GardenKubeconfig:     e.Garden.Kubeconfig,
		FunctionName:         e.opts.FunctionName,
		FunctionAddress:      e.FunctionAddress(),
		FunctionTLSDir:       e.FunctionTLSDir(),
		ProviderConfigName:   e.opts.ProviderConfigName,
		Kubectl:              e.tools.Kubectl(),
		LogDir:               filepath.Join(e.RunDir, "logs"),
	}
}

func (e *Env) writeState() error {
	data, err := json.MarshalIndent(e.State(), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(e.RunDir, "state.json"), append(data, '\n'), 0o644)
}

// skipIf is step unless skip; a nil step is left out.
func skipIf(skip bool, step func(context.Context) error) func(context.Context) error {
	if skip {
		return nil
	}
	return step
}

// onlyIf is step when do, else nothing.
func onlyIf(do bool, step func(context.Context) error) func(context.Context) error {
	return skipIf(!do, step)
}
