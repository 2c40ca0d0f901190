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
package conformance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
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
	r := &run{kit: k, out: out}
	// The cleanup runs however the checks end: a failure, a panic, an interrupt. It has a
	// context of its own, since the run's may be cancelled already.
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.CleanupTimeout)
		defer cancel()
		r.cleanup(cctx)
		out.Ended = o.Now()
	}()
	r.checks(ctx)
	return out, nil
}

// run is the state of one run.
type run struct {
	kit *Kit
	out *Outcome
	// clusters by minor, as created and Ready.
	ready map[string]string
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

func (r *run) checks(ctx context.Context) {
	o := &r.kit.Options
	r.ready = map[string]string{}
	var offer Offer
	const offersID, offersDesc = "environment-offers", "the environment tells the namespace what it offers"
	describe := func() string {
		return fmt.Sprintf("environment %s offers Kubernetes %s, machine types %s, zones %s (from %s); testing %s",
			o.Environment, strings.Join(offer.KubernetesVersions, ", "), orAny(offer.MachineTypes), orNone(strings.Join(offer.Zones, ", ")),
			offer.Source, strings.Join(r.out.Minors, ", "))
	}
	// probing: the offer is not readable, so the kit tests the minors it was given and reads
	// the offer from the first cluster's status.offered.
	probing := false
	var discoverErr error
	if ctx.Err() == nil {
		offer, discoverErr = r.discover(ctx)
		probing = discoverErr != nil && len(o.Minors) > 0 && o.MachineType != ""
	}
	if probing {
		r.out.Minors = sortMinors(slices.Clone(o.Minors))
		r.logf("%s: %v; testing --minors %s and reading the offer from the first cluster's status.offered", offersID, discoverErr, strings.Join(r.out.Minors, ", "))
	} else if !r.step(ctx, offersID, offersDesc, func(ctx context.Context) (string, bool, error) {
		if discoverErr != nil {
			return "", false, fmt.Errorf("%v; or give --minors and --machine-type, and the kit reads the offer from the first cluster it creates", discoverErr)
		}
		r.out.Offered = offer
		minors, err := selectMinors(offer.KubernetesVersions, o.Minors)
		if err != nil {
			return "", false, err
		}
		r.out.Minors = minors
		return describe(), false, nil
	}) {
		return
	}
	machine := o.MachineType
	if machine == "" {
		if len(offer.MachineTypes) == 0 {
			r.skip("create-ready", "clusters are created", "the environment names no machine type: give one with --machine-type")
			return
		}
		machine = offer.MachineTypes[0]
	}
	// learn reads the offer from a cluster's status.offered, when probing.
	learn := func(ctx context.Context, name string) (string, bool, error) {
		probing = false
		c, err := r.clusters().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return "", false, fmt.Errorf("reading %s: %s", name, reasonOf(err))
		}
		if _, found, _ := unstructured.NestedMap(c.Object, "status", "offered"); !found {
			return "", false, fmt.Errorf("SCSCluster %s reports no status.offered", name)
		}
		offer = Offer{
			KubernetesVersions: stringList(c, "status", "offered", "kubernetesVersions"),
			MachineTypes:       stringList(c, "status", "offered", "machineTypes"),
			Zones:              stringList(c, "status", "offered", "zones"),
			Source:             "status.offered of SCSCluster " + name,
		}
		r.out.Offered = offer
		if _, err := selectMinors(offer.KubernetesVersions, r.out.Minors); err != nil {
			return "", false, err
		}
		return describe(), false, nil
	}

	for _, minor := range r.out.Minors {
		name := r.clusterName(strings.ReplaceAll(minor, ".", "-"))
		var kubeconfig []byte
		if !r.step(ctx, "create-ready-"+minor, "a cluster of Kubernetes "+minor+" is created and becomes Ready with its kubeconfig delivered", func(ctx context.Context) (string, bool, error) {
			return r.createReady(ctx, name, minor, machine, pool, scalePool)
		}) {
			continue
		}
		r.ready[minor] = name
		if probing {
			r.step(ctx, offersID, offersDesc, func(ctx context.Context) (string, bool, error) { return learn(ctx, name) })
		}
		r.step(ctx, "kubeconfig-version-"+minor, "the delivered kubeconfig reaches the cluster, which answers with Kubernetes "+minor, func(ctx context.Context) (string, bool, error) {
			var msg string
			var err error
			kubeconfig, msg, err = r.answersMinor(ctx, name, minor)
			return msg, false, err
		})
		id := "node-zones-" + minor
		desc := "the cluster's nodes carry the zone label, with zones the environment offers"
		if len(offer.Zones) == 0 {
			r.skip(id, desc, "the environment offers no zones")
		} else if kubeconfig == nil {
			r.skip(id, desc, "no working kubeconfig (kubeconfig-version-"+minor+")")
		} else {
			r.step(ctx, id, desc, func(ctx context.Context) (string, bool, error) { return r.zones(ctx, kubeconfig, offer.Zones) })
		}
	}

	switch {
	case probing && ctx.Err() != nil:
		r.skip(offersID, offersDesc, "not run: the run was interrupted before a cluster could report status.offered")
	case probing:
		r.out.Results = append(r.out.Results, Result{ID: offersID, Description: offersDesc, Verdict: Failed,
			Message: fmt.Sprintf("%v, and no cluster became Ready to report status.offered", discoverErr)})
	}

	scaleDesc := "a node pool's lower bound is raised from 1 to 2 nodes and the backend reports the new bounds (pool " + scalePool + ", not the first)"
	if first := r.firstReady(); first == "" {
		r.skip("scale-pool", scaleDesc, "no cluster became Ready")
	} else {
		r.step(ctx, "scale-pool", scaleDesc, func(ctx context.Context) (string, bool, error) { return r.scale(ctx, first) })
	}

	r.step(ctx, "upgrade-minor", "a cluster is upgraded by one minor and then answers with the new minor", func(ctx context.Context) (string, bool, error) {
		return r.upgrade(ctx, offer.KubernetesVersions, machine)
	})

	refuseDesc := "a downgrade of spec.kubernetes.version is refused with the field named, and nothing changes"
	if first := r.firstReady(); first == "" {
		r.skip("refused-change", refuseDesc, "no cluster became Ready")
	} else {
		r.step(ctx, "refused-change", refuseDesc, func(ctx context.Context) (string, bool, error) { return r.refusedChange(ctx, first) })
	}
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

// selectMinors is the offered minors the run tests, in the offer's order.
func selectMinors(offered, wanted []string) ([]string, error) {
	if len(offered) == 0 {
		return nil, errors.New("the environment offers no Kubernetes version")
	}
	if len(wanted) == 0 {
		return offered, nil
	}
	var out, missing []string
	for _, w := range wanted {
		if slices.Contains(offered, w) {
			out = append(out, w)
		} else {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("minors %s are not offered (offered: %s)", strings.Join(missing, ", "), strings.Join(offered, ", "))
	}
	return sortMinors(out), nil
}

func sortMinors(m []string) []string {
	sort.SliceStable(m, func(i, j int) bool {
		a, errA := model.ParseVersion(m[i])
		b, errB := model.ParseVersion(m[j])
		if errA != nil || errB != nil {
			return m[i] < m[j]
		}
		return a.Major < b.Major || (a.Major == b.Major && a.Minor < b.Minor)
	})
	return m
}

// discover reads the offer: from the environment's EnvironmentConfig where the user may read
// it and it admits the namespace, else from status.offered of a cluster of the namespace in
// that environment.
func (r *run) discover(ctx context.Context) (Offer, error) {
	o := &r.kit.Options
	dyn := r.kit.Dynamic
	configs, cfgErr := dyn.Resource(EnvConfigGVR).List(ctx, metav1.ListOptions{LabelSelector: envv1alpha1.LabelEnvironment + "=" + o.Environment})
	if cfgErr == nil {
		tenant := model.Tenant{Namespace: o.Namespace}
		if ns, err := dyn.Resource(NamespaceGVR).Get(ctx, o.Namespace, metav1.GetOptions{}); err == nil {
			tenant.Labels = ns.GetLabels()
		}
		for i := range configs.Items {
			cfg := &configs.Items[i]
			if !model.Admits(accessOf(cfg), tenant) {
				continue
			}
			return Offer{
				KubernetesVersions: stringList(cfg, "data", "catalog", "kubernetesVersions"),
				MachineTypes:       stringList(cfg, "data", "catalog", "machineTypes"),
				Zones:              stringList(cfg, "data", "catalog", "zones"),
				Source:             "EnvironmentConfig " + cfg.GetName(),
			}, nil
		}
	}
	list, err := dyn.Resource(ClusterGVR).Namespace(o.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return Offer{}, fmt.Errorf("the SCSClusters of namespace %s are not readable: %w", o.Namespace, err)
	}
	for i := range list.Items {
		c := &list.Items[i]
		if str(c, "status", "backend", "environment") != o.Environment {
			continue
		}
		if _, found, _ := unstructured.NestedMap(c.Object, "status", "offered"); !found {
			continue
		}
		return Offer{
			KubernetesVersions: stringList(c, "status", "offered", "kubernetesVersions"),
			MachineTypes:       stringList(c, "status", "offered", "machineTypes"),
			Zones:              stringList(c, "status", "offered", "zones"),
			Source:             "status.offered of SCSCluster " + c.GetName(),
		}, nil
	}
	why := "no EnvironmentConfig labelled " + envv1alpha1.LabelEnvironment + "=" + o.Environment + " admits namespace " + o.Namespace
	if cfgErr != nil {
		why = "EnvironmentConfigs are not readable (" + reasonOf(cfgErr) + ")"
	}
	return Offer{}, fmt.Errorf("environment %s: %s, and no SCSCluster of namespace %s in it reports status.offered; create one cluster in it, or ask the platform team for read access to EnvironmentConfigs", o.Environment, why, o.Namespace)
}

// spec is a small cluster without protection, with pools that the autoscaler each keeps at
// one node and may grow to three, or to one per offered zone where there are more (Gardener
// wants room for a node in each zone of a pool).
func (r *run) spec(minor, machine string, pools []string) map[string]any {
	nodePools := make([]any, 0, len(pools))
	for _, p := range pools {
		nodePools = append(nodePools, map[string]any{"name": p, "machineType": machine,
			"autoscaling": map[string]any{"min": int64(1), "max": int64(r.poolMax())}})
	}
	return map[string]any{
		"environment":        r.kit.Options.Environment,
		"purpose":            "evaluation",
		"deletionProtection": false,
		"kubernetes":         map[string]any{"version": minor},
		"nodePools":          nodePools,
	}
}

// poolMax is the upper bound of the kit's pools.
func (r *run) poolMax() int { return max(3, len(r.out.Offered.Zones)) }

// createReady creates a cluster with pools and waits until it is Ready.
func (r *run) createReady(ctx context.Context, name, minor, machine string, pools ...string) (string, bool, error) {
	o := &r.kit.Options
	spec := r.spec(minor, machine, pools)
	spec["writeConnectionSecretToRef"] = map[string]any{"name": name + "-kubeconfig"}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": kaasv1alpha1.APIVersion,
		"kind":       kaasv1alpha1.ClaimKind,
		"metadata":   map[string]any{"name": name, "namespace": o.Namespace, "labels": map[string]any{LabelRun: o.RunID}},
		"spec":       spec,
	}}
	start := o.Now()
	if _, err := r.clusters().Create(ctx, obj, metav1.CreateOptions{FieldManager: "kubectl-scs-conformance"}); err != nil {
		return "", false, fmt.Errorf("creating SCSCluster %s: %s", name, reasonOf(err))
	}
	r.kit.created = append(r.kit.created, name)
	if _, err := r.waitCluster(ctx, name, "Ready", func(c *unstructured.Unstructured) error {
		if s := stalled(c); s != "" {
			return &refusal{fmt.Sprintf("SCSCluster %s will not become Ready: %s", name, s)}
		}
		if s := conditionOf(c, "Ready"); s.Status != "True" {
			return fmt.Errorf("Ready is %s; phase %s, BackendReady %s", s, orNone(str(c, "status", "phase")), conditionOf(c, kaasv1alpha1.ConditionBackendReady))
		}
		return nil
	}); err != nil {
		return "", false, err
	}
	what := "pool " + pools[0]
	if len(pools) > 1 {
		what = "pools " + strings.Join(pools, ", ") + ", each"
	}
	return fmt.Sprintf("SCSCluster %s (Kubernetes %s, %s of 1 to %d %s) Ready after %s", name, minor, what, r.poolMax(), machine, o.Now().Sub(start).Round(time.Second)), false, nil
}

// answersMinor reads the delivered kubeconfig and asks the cluster for its version.
func (r *run) answersMinor(ctx context.Context, name, minor string) ([]byte, string, error) {
	kubeconfig, err := r.kubeconfig(ctx, name)
	if err != nil {
		return nil, "", err
	}
	w, err := r.kit.Connect(kubeconfig)
	if err != nil {
		return nil, "", fmt.Errorf("the kubeconfig of %s cannot be used: %v", name, err)
	}
	v, err := w.ServerVersion(ctx)
	if err != nil {
		return nil, "", fmt.Errorf("the cluster %s does not answer over its kubeconfig: %v", name, err)
	}
	got, err := model.ParseVersion(strings.TrimPrefix(strings.SplitN(v, "-", 2)[0], "v"))
	if err != nil {
		return nil, "", fmt.Errorf("the cluster %s answers with version %q, which is not a Kubernetes version", name, v)
	}
	if got.MinorString() != minor {
		return nil, "", fmt.Errorf("the cluster %s answers with Kubernetes %s, not %s", name, v, minor)
	}
	return kubeconfig, fmt.Sprintf("the kubeconfig in Secret %s reaches the cluster, which answers with %s", name+"-kubeconfig", v), nil
}

// kubeconfig reads the delivered kubeconfig and checks the keys of the kubeconfig contract.
func (r *run) kubeconfig(ctx context.Context, name string) ([]byte, error) {
	secret := name + "-kubeconfig"
	s, err := r.kit.Dynamic.Resource(SecretGVR).Namespace(r.kit.Options.Namespace).Get(ctx, secret, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading Secret %s: %s", secret, reasonOf(err))
	}
	var missing []string
	for _, k := range []string{"kubeconfig", "endpoint", "ca.crt"} {
		if v, _, _ := unstructured.NestedString(s.Object, "data", k); v == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("Secret %s lacks the keys %s of the kubeconfig contract", secret, strings.Join(missing, ", "))
	}
	encoded, _, _ := unstructured.NestedString(s.Object, "data", "kubeconfig")
	data, err := decodeBase64(encoded)
	if err != nil {
		return nil, fmt.Errorf("Secret %s: key kubeconfig is not base64", secret)
	}
	return data, nil
}

// zones checks the nodes' zone labels against the offered zones.
func (r *run) zones(ctx context.Context, kubeconfig []byte, offered []string) (string, bool, error) {
	w, err := r.kit.Connect(kubeconfig)
	if err != nil {
		return "", false, err
	}
	nodes, err := w.NodeZones(ctx)
	if err != nil {
		return "", false, fmt.Errorf("listing nodes: %v", err)
	}
	if len(nodes) == 0 {
		return "", false, errors.New("the cluster has no nodes")
	}
	var bad []string
	seen := map[string]bool{}
	names := make([]string, 0, len(nodes))
	for n := range nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		z := nodes[n]
		switch {
		case z == "":
			bad = append(bad, n+" has no "+ZoneLabel)
		case !slices.Contains(offered, z):
			bad = append(bad, fmt.Sprintf("%s is in zone %s, which the environment does not offer", n, z))
		default:
			seen[z] = true
		}
	}
	if len(bad) > 0 {
		return "", false, errors.New(strings.Join(bad, "; "))
	}
	zs := make([]string, 0, len(seen))
	for z := range seen {
		zs = append(zs, z)
	}
	sort.Strings(zs)
	if len(nodes) == 1 {
		return fmt.Sprintf("1 node, labelled %s, in zone %s", ZoneLabel, zs[0]), false, nil
	}
	return fmt.Sprintf("%d nodes, each labelled %s, in zones %s", len(nodes), ZoneLabel, strings.Join(zs, ", ")), false, nil
}

// scale raises the lower bound of scalePool from 1 to 2 and waits until the backend
// reports it. A refusal (Stalled) fails it at once, with the function's words.
func (r *run) scale(ctx context.Context, name string) (string, bool, error) {
	start := r.kit.Options.Now()
	c, err := r.clusters().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", false, fmt.Errorf("reading %s: %s", name, reasonOf(err))
	}
	pools, _, _ := unstructured.NestedSlice(c.Object, "spec", "nodePools")
	index := slices.IndexFunc(pools, func(p any) bool { m, _ := p.(map[string]any); return m["name"] == scalePool })
	if index < 0 {
		return "", false, fmt.Errorf("%s has no node pool %s", name, scalePool)
	}
	upper := fmt.Sprint(pools[index].(map[string]any)["autoscaling"].(map[string]any)["max"])
	path := fmt.Sprintf("/spec/nodePools/%d", index)
	patch, _ := json.Marshal([]map[string]any{
		{"op": "test", "path": path + "/name", "value": scalePool},
		{"op": "replace", "path": path + "/autoscaling/min", "value": 2},
	})
	if _, err := r.clusters().Patch(ctx, name, types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-scs-conformance"}); err != nil {
		return "", false, fmt.Errorf("scaling pool %s of %s: %s", scalePool, name, reasonOf(err))
	}
	want := "2-" + upper
	if _, err := r.waitCluster(ctx, name, "pool "+scalePool+" at "+want+" nodes and Ready", func(c *unstructured.Unstructured) error {
		if s := stalled(c); s != "" {
			return &refusal{fmt.Sprintf("the scaling of pool %s was refused: %s", scalePool, s)}
		}
		if got := poolBounds(c, scalePool); got != want {
			return fmt.Errorf("status.nodePools reports pool %s at %s nodes", scalePool, orNone(got))
		}
		if s := conditionOf(c, "Ready"); s.Status != "True" {
			return fmt.Errorf("Ready is %s", s)
		}
		return nil
	}); err != nil {
		return "", false, err
	}
	return fmt.Sprintf("pool %s of %s scaled from 1-%s to %s nodes; status.nodePools reports the new bounds and the cluster is Ready after %s",
		scalePool, name, upper, want, r.kit.Options.Now().Sub(start).Round(time.Second)), false, nil
}

// poolBounds is a pool's bounds as status.nodePools reports them from the backend: "min-max".
func poolBounds(c *unstructured.Unstructured, name string) string {
	pools, _, _ := unstructured.NestedSlice(c.Object, "status", "nodePools")
	for _, p := range pools {
		m, _ := p.(map[string]any)
		if m["name"] == name && m["min"] != nil && m["max"] != nil {
			return fmt.Sprintf("%v-%v", m["min"], m["max"])
		}
	}
	return ""
}

// upgrade moves a cluster one minor up to the newest tested minor that has its predecessor
// offered: the tested cluster of the predecessor when there is one, else a cluster created
// for it. Then the cluster must run and answer with the new minor.
func (r *run) upgrade(ctx context.Context, offered []string, machine string) (string, bool, error) {
	var from, to string
	for i := len(r.out.Minors) - 1; i >= 0 && to == ""; i-- {
		t, err := model.ParseVersion(r.out.Minors[i])
		if err != nil {
			continue
		}
		prev := model.Version{Major: t.Major, Minor: t.Minor - 1, Patch: -1}.MinorString()
		if slices.Contains(offered, prev) && (r.ready[prev] != "" || !slices.Contains(r.out.Minors, prev)) {
			from, to = prev, r.out.Minors[i]
		}
	}
	if to == "" {
		return fmt.Sprintf("no tested minor has its predecessor offered and Ready (offered %s, tested %s)", strings.Join(offered, ", "), strings.Join(r.out.Minors, ", ")), true, nil
	}
	name := r.ready[from]
	start := r.kit.Options.Now()
	if name == "" {
		name = r.clusterName("upgrade")
		if _, _, err := r.createReady(ctx, name, from, machine, pool); err != nil {
			return "", false, fmt.Errorf("creating the cluster to upgrade at %s: %v", from, err)
		}
	}
	patch, _ := json.Marshal([]map[string]any{
		{"op": "test", "path": "/spec/kubernetes/version", "value": from},
		{"op": "replace", "path": "/spec/kubernetes/version", "value": to},
	})
	if _, err := r.clusters().Patch(ctx, name, types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-scs-conformance"}); err != nil {
		return "", false, fmt.Errorf("upgrading %s from %s to %s: %s", name, from, to, reasonOf(err))
	}
	if _, err := r.waitCluster(ctx, name, "running "+to+" and Ready", func(c *unstructured.Unstructured) error {
		runs := str(c, "status", "kubernetes", "version")
		if v, err := model.ParseVersion(strings.TrimPrefix(runs, "v")); err != nil || v.MinorString() != to {
			return fmt.Errorf("status.kubernetes.version is %s", orNone(runs))
		}
		if s := conditionOf(c, "Ready"); s.Status != "True" {
			return fmt.Errorf("Ready is %s", s)
		}
		return nil
	}); err != nil {
		return "", false, err
	}
	_, answer, err := r.answersMinor(ctx, name, to)
	if err != nil {
		return "", false, err
	}
	return fmt.Sprintf("%s upgraded from %s to %s in %s; %s", name, from, to, r.kit.Options.Now().Sub(start).Round(time.Second), answer), false, nil
}

// refusedChange asks for a downgrade by one minor, which the API must refuse naming
// spec.kubernetes.version, and checks that the cluster's spec did not change.
func (r *run) refusedChange(ctx context.Context, name string) (string, bool, error) {
	before, err := r.clusters().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", false, fmt.Errorf("reading %s: %s", name, reasonOf(err))
	}
	from := str(before, "spec", "kubernetes", "version")
	v, err := model.ParseVersion(from)
	if err != nil || v.Minor == 0 {
		return "", false, fmt.Errorf("%s asks for Kubernetes %q, which cannot be downgraded", name, from)
	}
	to := model.Version{Major: v.Major, Minor: v.Minor - 1, Patch: -1}.MinorString()
	patch, _ := json.Marshal([]map[string]any{
		{"op": "test", "path": "/spec/kubernetes/version", "value": from},
		{"op": "replace", "path": "/spec/kubernetes/version", "value": to},
	})
	_, err = r.clusters().Patch(ctx, name, types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-scs-conformance"})
	if err == nil {
		// Put it back before anything acts on it, then fail.
		back, _ := json.Marshal([]map[string]any{{"op": "replace", "path": "/spec/kubernetes/version", "value": from}})
		_, _ = r.clusters().Patch(ctx, name, types.JSONPatchType, back, metav1.PatchOptions{FieldManager: "kubectl-scs-conformance"})
		return "", false, fmt.Errorf("the downgrade of %s from %s to %s was accepted", name, from, to)
	}
	if !apierrors.IsInvalid(err) {
		return "", false, fmt.Errorf("the downgrade of %s from %s to %s failed, but not as a refusal by the API's rules: %s", name, from, to, reasonOf(err))
	}
	msg := statusMessage(err)
	if !strings.Contains(msg, "spec.kubernetes.version") {
		return "", false, fmt.Errorf("the downgrade of %s was refused without naming spec.kubernetes.version: %s", name, msg)
	}
	after, err := r.clusters().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", false, fmt.Errorf("reading %s: %s", name, reasonOf(err))
	}
	if after.GetGeneration() != before.GetGeneration() || str(after, "spec", "kubernetes", "version") != from {
		return "", false, fmt.Errorf("the refused downgrade changed %s: generation %d -> %d, spec.kubernetes.version %s", name, before.GetGeneration(), after.GetGeneration(), str(after, "spec", "kubernetes", "version"))
	}
	return fmt.Sprintf("the downgrade of %s from %s to %s was refused: %s", name, from, to, msg), false, nil
}

// cleanup deletes every cluster the run created, and any other cluster labelled with the run,
// and waits until they are gone.
func (r *run) cleanup(ctx context.Context) {
	o := &r.kit.Options
	names := slices.Clone(r.kit.created)
	if list, err := r.clusters().List(ctx, metav1.ListOptions{LabelSelector: LabelRun + "=" + o.RunID}); err == nil {
		for _, c := range list.Items {
			if !slices.Contains(names, c.GetName()) {
				names = append(names, c.GetName())
			}
		}
	}
	start := o.Now()
	res := Result{ID: "delete-cleanup", Description: "every cluster the run created is deleted and gone"}
	if len(names) == 0 {
		res.Verdict, res.Message = Skipped, "the run created no cluster"
		r.out.Results = append(r.out.Results, res)
		return
	}
	r.logf("delete-cleanup: deleting %s", strings.Join(names, ", "))
	var problems []string
	for _, n := range names {
		err := r.clusters().Delete(ctx, n, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			problems = append(problems, fmt.Sprintf("deleting %s: %s", n, reasonOf(err)))
		}
	}
	var left []string
	err := r.poll(ctx, func(ctx context.Context) (bool, error) {
		left = left[:0]
		for _, n := range names {
			_, err := r.clusters().Get(ctx, n, metav1.GetOptions{})
			if err == nil || !apierrors.IsNotFound(err) {
				left = append(left, n)
			}
		}
		return len(left) == 0, nil
	})
	if err != nil {
		for _, n := range left {
			r.out.Leftovers = append(r.out.Leftovers, "SCSCluster "+o.Namespace+"/"+n)
		}
		problems = append(problems, fmt.Sprintf("still there after %s: %s", o.Now().Sub(start).Round(time.Second), strings.Join(left, ", ")))
	}
	res.Duration = o.Now().Sub(start)
	if len(problems) > 0 {
		res.Verdict, res.Message = Failed, strings.Join(problems, "; ")
	} else {
		res.Verdict, res.Message = Passed, fmt.Sprintf("deleted and gone after %s: %s", res.Duration.Round(time.Second), strings.Join(names, ", "))
	}
	r.logf("delete-cleanup: %s: %s", strings.ToUpper(string(res.Verdict)), res.Message)
	r.out.Results = append(r.out.Results, res)
}

func (r *run) clusters() dynamic.ResourceInterface {
	return r.kit.Dynamic.Resource(ClusterGVR).Namespace(r.kit.Options.Namespace)
}

// waitCluster polls a cluster until cond holds (nil), within the timeout, and logs each new
// reason it gives.
func (r *run) waitCluster(ctx context.Context, name, what string, cond func(*unstructured.Unstructured) error) (*unstructured.Unstructured, error) {
	ctx, cancel := context.WithTimeout(ctx, r.kit.Options.Timeout)
	defer cancel()
	var last string
	var obj *unstructured.Unstructured
	err := r.poll(ctx, func(ctx context.Context) (bool, error) {
		c, err := r.clusters().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			if apierrors.IsNotFound(err) {
				return false, fmt.Errorf("SCSCluster %s disappeared", name)
			}
			last = reasonOf(err)
			return false, nil
		}
		if err := cond(c); err != nil {
			var stop *refusal
			if errors.As(err, &stop) {
				return false, err
			}
			if err.Error() != last {
				r.logf("%s: waiting for %s: %v", name, what, err)
			}
			last = err.Error()
			return false, nil
		}
		obj = c
		return true, nil
	})
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			return nil, fmt.Errorf("%s not %s within %s: %s", name, what, r.kit.Options.Timeout, last)
		}
		return nil, err
	}
	return obj, nil
}

// poll calls fn until it reports done or an error, or the context ends.
func (r *run) poll(ctx context.Context, fn func(context.Context) (bool, error)) error {
	for {
		done, err := fn(ctx)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		t := time.NewTimer(r.kit.Options.PollInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
