// Package conformance is the conformance kit of the SCS cluster API: the checks a provider
// runs against its own environment with nothing but a kubeconfig and an environment name
// (`kubectl scs conformance`, docs/conformance.md).
//
// A run learns what the environment offers, creates one small cluster per offered
// Kubernetes minor, waits until each is Ready, fetches its kubeconfig and asks the new
// cluster for its version and its nodes' zones, scales a pool, upgrades a cluster by one
// minor, checks that a refused change is refused naming its field, and deletes everything
// it created. Every check is a named step with a verdict (passed, failed, skipped) and a
// message; the cleanup runs in a deferred path that also runs after a failure or when the
// context is cancelled (an interrupt), with a context of its own.
//
// Each check has a file of its own, check_<id>.go (the id with underscores), in the shape
// of Cluster API's e2e specs: an input struct that says what the check needs, and its steps
// in order. The table in this file runs the checks in order and hands each the input it
// needs from what the checks before it found.
package conformance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// Resources the kit reads and writes on the provider's API server.
var (
	ClusterGVR   = schema.GroupVersionResource{Group: kaasv1alpha1.Group, Version: kaasv1alpha1.Version, Resource: "scsclusters"}
	SecretGVR    = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	NamespaceGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	EnvConfigGVR = schema.GroupVersionResource{Group: "apiextensions.crossplane.io", Version: "v1beta1", Resource: "environmentconfigs"}
)

// LabelRun marks every SCSCluster a run creates with the run's id, so that the cleanup (and
// a person after a killed run) finds them: kubectl get scsclusters -l kaas.scs.community/conformance-run.
const LabelRun = "kaas.scs.community/conformance-run"

// ZoneLabel is the well-known label a kubelet (or the cloud controller) sets on a node for
// its failure zone.
const ZoneLabel = "topology.kubernetes.io/zone"

// The node pools of the kit's clusters: every cluster has pool; the clusters of the tested
// minors also scalePool, whose bounds scale-pool raises. The first pool is not scaled: a
// backend may fix its size at creation (Magnum's default node group) and refuse to change
// it, as the standard allows for a field set only on creation.
const (
	pool      = "default"
	scalePool = "scale"
)

// Offer is what an environment offers the namespace.
type Offer struct {
	KubernetesVersions []string
	MachineTypes       []string
	Zones              []string
	// Source says where the kit learnt it.
	Source string
}

// Workload is what the kit asks of a new cluster, over the kubeconfig the API delivered.
type Workload interface {
	// ServerVersion is the API server's gitVersion, such as v1.34.2.
	ServerVersion(ctx context.Context) (string, error)
	// NodeZones maps each node's name to its zone label ("" when it has none).
	NodeZones(ctx context.Context) (map[string]string, error)
}

// Options configure a run.
type Options struct {
	// Environment is the environment under test (spec.environment); Namespace where the
	// kit creates its clusters (one the environment admits).
	Environment string
	Namespace   string
	// Minors restricts the run to these offered minors; empty: every offered minor.
	Minors []string
	// Timeout bounds each wait: until a cluster is Ready, scaled, upgraded, deleted.
	Timeout time.Duration
	// CleanupTimeout bounds the cleanup as a whole; default Timeout.
	CleanupTimeout time.Duration
	// PollInterval is how often a wait reads the cluster again; default 5s.
	PollInterval time.Duration
	// MachineType of the clusters' pool; default the first the environment offers.
	MachineType string
	// RunID names the run (LabelRun, cluster names); default a random one.
	RunID string
	// Log receives progress lines; nil discards them. Never a kubeconfig.
	Log io.Writer
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// Kit runs the checks.
type Kit struct {
	// Dynamic reaches the provider's API server, as the user of the kubeconfig.
	Dynamic dynamic.Interface
	// Connect makes a Workload from a delivered kubeconfig; default ConnectKubeconfig.
	Connect func(kubeconfig []byte) (Workload, error)
	Options Options

	created []string
}

// Run runs every check and the cleanup, and returns what happened. It returns an error
// only for wrong options; a check that cannot run is a failed check.
func (k *Kit) Run(ctx context.Context) (*Outcome, error) {
	o := &k.Options
	if o.Environment == "" || o.Namespace == "" {
		return nil, errors.New("an environment and a namespace are required")
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Minute
	}
	if o.CleanupTimeout <= 0 {
		o.CleanupTimeout = o.Timeout
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 5 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if k.Connect == nil {
		k.Connect = ConnectKubeconfig
	}
	if o.RunID == "" {
		b := make([]byte, 3)
		_, _ = rand.Read(b)
		o.RunID = hex.EncodeToString(b)
	}
	out := &Outcome{Environment: o.Environment, Namespace: o.Namespace, Started: o.Now()}
	r := &run{kit: k, out: out, ready: map[string]string{}, kubeconfigs: map[string][]byte{}}
	// The cleanup runs however the checks end: a failure, a panic, an interrupt. It has a
	// context of its own, since the run's may be cancelled already.
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.CleanupTimeout)
		defer cancel()
		r.deleteCleanup(cctx)
		out.Ended = o.Now()
	}()
	r.checks(ctx)
	return out, nil
}

// table is the checks of a run in the order they run, each in its file (check_<id>.go). A
// row reads its check's input from what the run found so far, runs the check, records its
// results, and says whether the run goes on. delete-cleanup follows in Run's deferred path,
// however the table ends.
var table = []func(r *run, ctx context.Context) bool{
	(*run).environmentOffers,         // environment-offers: the offer and the minors to test
	(*run).machineType,               // the machine type of the clusters (create-ready)
	(*run).eachMinor,                 // perMinor, for each tested minor
	(*run).environmentOffersUnlearnt, // environment-offers, when no cluster could report the offer
	(*run).scalePool,                 // scale-pool
	(*run).upgradeMinor,              // upgrade-minor
	(*run).refusedChange,             // refused-change
}

// perMinor is the checks of each tested minor, in the order they run, one minor after the
// other. A row that returns false ends the checks of that minor.
var perMinor = []func(r *run, ctx context.Context, minor string) bool{
	(*run).createReady,       // create-ready-<minor>
	(*run).learnOffer,        // environment-offers, from the first Ready cluster when the offer was not readable
	(*run).kubeconfigVersion, // kubeconfig-version-<minor>
	(*run).nodeZones,         // node-zones-<minor>
	(*run).addons,            // addons-<minor>
}

func (r *run) checks(ctx context.Context) {
	for _, check := range table {
		if !check(r, ctx) {
			return
		}
	}
}

func (r *run) eachMinor(ctx context.Context) bool {
	for _, minor := range r.out.Minors {
		for _, check := range perMinor {
			if !check(r, ctx, minor) {
				break
			}
		}
	}
	return true
}

// run is the state of one run: the outcome so far, and what the checks found that later
// checks take as their input. Each field names the check that writes it.
type run struct {
	kit *Kit
	// out holds the results; out.Minors, the minors under test, and out.Offered, the offer,
	// are environment-offers'.
	out *Outcome
	// unread is why environment-offers could not read the offer before the clusters, while
	// the kit learns it from status.offered of the first cluster that becomes Ready instead
	// (the user gave --minors and --machine-type). It is nil when the offer was read, and
	// from the moment the kit reads a Ready cluster for it (learnOffer).
	unread error
	// machine is the machine type of the clusters' pools (machineType).
	machine string
	// ready names the cluster of each tested minor that was created and became Ready
	// (create-ready-<minor>).
	ready map[string]string
	// kubeconfigs holds the kubeconfig of each tested minor that reached its cluster
	// (kubeconfig-version-<minor>).
	kubeconfigs map[string][]byte
}

func (r *run) logf(format string, args ...any) {
	fmt.Fprintf(r.kit.Options.Log, "[%s] %s\n", r.kit.Options.Now().Sub(r.out.Started).Round(time.Second), fmt.Sprintf(format, args...))
}

// step runs one check and records its result. fn returns the verdict's message and whether
// the check was skipped; an error fails it. An interrupted run skips what is left.
func (r *run) step(ctx context.Context, id, description string, fn func(ctx context.Context) (msg string, skipped bool, err error)) bool {
	start := r.kit.Options.Now()
	res := Result{ID: id, Description: description}
	if ctx.Err() != nil {
		res.Verdict, res.Message = Skipped, "not run: the run was interrupted"
	} else {
		r.logf("%s: %s", id, description)
		msg, skipped, err := fn(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
			res.Verdict, res.Message = Failed, fmt.Sprintf("interrupted: %v", err)
		case err != nil:
			res.Verdict, res.Message = Failed, err.Error()
		case skipped:
			res.Verdict, res.Message = Skipped, msg
		default:
			res.Verdict, res.Message = Passed, msg
		}
	}
	res.Duration = r.kit.Options.Now().Sub(start)
	r.logf("%s: %s: %s", id, strings.ToUpper(string(res.Verdict)), res.Message)
	r.out.Results = append(r.out.Results, res)
	return res.Verdict == Passed
}

// skip records a check that cannot run, with the reason.
func (r *run) skip(id, description, why string) {
	r.out.Results = append(r.out.Results, Result{ID: id, Description: description, Verdict: Skipped, Message: why})
	r.logf("%s: SKIPPED: %s", id, why)
}

// firstReady is the Ready cluster of the lowest tested minor, or "".
func (r *run) firstReady() string {
	for _, m := range r.out.Minors {
		if n := r.ready[m]; n != "" {
			return n
		}
	}
	return ""
}

func (r *run) clusterName(suffix string) string {
	return "conformance-" + r.kit.Options.RunID + "-" + suffix
}

// poolMax is the upper bound of the kit's pools: three, or one node per offered zone where
// there are more (Gardener wants room for a node in each zone of a pool).
func (r *run) poolMax() int { return max(3, len(r.out.Offered.Zones)) }
