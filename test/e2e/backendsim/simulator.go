// Package backendsim plays, on the local control plane, the parts of the three backends
// that cannot run there, for the clusters of the SCS cluster API it is told to look after:
//
//   - Gardener: gardenlet's status on each Shoot (a healthy, reconciled Shoot advertising a
//     workload API server) and the Shoot's CAs, so that the real gardener-apiserver's
//     shoots/adminkubeconfig issues kubeconfigs that reach the workload (package gardensim).
//   - Cluster Stacks: the OpenStack provider's infrastructure (an OpenStackCluster with the
//     workload's address as control plane endpoint) and the cluster CA, with which the real
//     KubeadmControlPlane signs the kubeconfig it writes; then, since no machine can boot,
//     the Cluster is paused and its status written as Cluster API reports an available
//     cluster, for each new generation; it is unpaused when it is deleted.
//   - Magnum: provider-openstack's status of each ClusterV1 and NodegroupV1 (the template's
//     Kubernetes version, the workload's address) and the ClusterV1's connection secret
//     with a kubeconfig for the workload.
//
// One Workload API server stands in for every cluster of a backend. The simulator writes
// only what the named controllers write, through the same APIs, and is idempotent: each
// Step looks at the current state and writes only what is missing.
package backendsim

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/controlplane"
)

// The backends, as the environments name them, and so the keys of Workloads.
const (
	BackendGardener     = "gardener"
	BackendClusterStack = "clusterstack"
	BackendMagnum       = "magnum"
)

// ConformanceRunLabel is the label kubectl scs conformance puts on the clusters it creates:
// the playground plays the backends of those and leaves the others to the user.
const ConformanceRunLabel = "kaas.scs.community/conformance-run"

var (
	scsClusterGVR  = schema.GroupVersionResource{Group: "kaas.scs.community", Version: "v1alpha1", Resource: "scsclusters"}
	environmentGVR = schema.GroupVersionResource{Group: "apiextensions.crossplane.io", Version: "v1beta1", Resource: "environmentconfigs"}
)

// Clients reach one cluster.
type Clients struct {
	Kube    kubernetes.Interface
	Dynamic dynamic.Interface
}

// Simulator plays the backends of the SCSClusters Selector selects.
type Simulator struct {
	// Crossplane is the cluster of the SCSClusters, the Cluster API objects and the Magnum
	// managed resources; Garden the Gardener cluster of the Shoots.
	Crossplane, Garden Clients
	// Workloads stand in for the clusters of each backend; a backend without one is not
	// played.
	Workloads Workloads
	// Selector is a label selector of the SCSClusters (claims or namespaced composites)
	// whose backends are played; empty plays every one.
	Selector string
	// Logf reports what the simulator could not do; each distinct message once.
	Logf func(format string, args ...any)
	// IssuerCA is the PEM CA the workloads trust for an OIDC issuer whose rendered object
	// names no CA: it stands in for the public trust store of a real cluster (signin.go).
	IssuerCA string
	// NodesJoin gives the Machines of a Cluster Stacks cluster the nodeRefs of registered
	// Nodes (nodesJoin), which clusterctl move needs.
	NodesJoin bool

	mu       sync.Mutex
	holds    map[string]bool
	reported map[string]string
	signIns  map[string]signIn
	written  map[*Workload][]controlplane.JWTAuthenticator
	// openStack is what the stand-in's OpenStack holds of Magnum (magnum.go).
	openStack openStack
}

// Run calls Step every interval until ctx ends.
func (s *Simulator) Run(ctx context.Context, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		s.Step(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Step looks once at every selected SCSCluster and writes what its backend would write now.
func (s *Simulator) Step(ctx context.Context) {
	list, err := s.Crossplane.Dynamic.Resource(scsClusterGVR).List(ctx, metav1.ListOptions{LabelSelector: s.Selector})
	s.report("list", err)
	if err != nil {
		return
	}
	for i := range list.Items {
		c := &list.Items[i]
		s.report(c.GetNamespace()+"/"+c.GetName(), s.play(ctx, c))
	}
	s.report("released", s.releaseDeletedClusters(ctx))
	s.report("sign-in", s.writeSignIns(ctx))
	played := map[string]bool{}
	for _, w := range s.Workloads {
		if w != nil && !played[w.Name] {
			played[w.Name] = true
			s.report("Deployments of "+w.Name, w.PlayDeployments(ctx))
		}
	}
}

// StepCluster looks once at one SCSCluster, whatever its labels, and writes what its
// backend would write now: make simulate plays one user's cluster with it.
func (s *Simulator) StepCluster(ctx context.Context, namespace, name string) error {
	c, err := s.Crossplane.Dynamic.Resource(scsClusterGVR).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	return s.play(ctx, c)
}

// play writes what the backend of one SCSCluster would write now; one that has not named
// its native object yet has nothing to play.
func (s *Simulator) play(ctx context.Context, c *unstructured.Unstructured) error {
	ref, _, _ := unstructured.NestedStringMap(c.Object, "status", "backend", "nativeRef")
	switch ref["kind"] {
	case "Shoot":
		return s.shoot(ctx, ref["namespace"], ref["name"])
	case "Cluster":
		return s.clusterAPI(ctx, ref["namespace"], ref["name"])
	case "ClusterV1":
		return s.magnum(ctx, ref)
	}
	return nil
}

// report logs err for key unless it was the last thing reported for key.
func (s *Simulator) report(key string, err error) {
	if s.Logf == nil || canceled(err) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reported == nil {
		s.reported = map[string]string{}
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if s.reported[key] == msg {
		return
	}
	s.reported[key] = msg
	if msg != "" {
		s.Logf("backend simulator: %s: %s", key, msg)
	}
}

// canceled reports whether err is only the end of the simulator's context.
func canceled(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// applyStatus writes status onto obj as manager (controlplane.ApplyStatus).
func applyStatus(ctx context.Context, ri dynamic.ResourceInterface, obj *unstructured.Unstructured, status map[string]any, manager string) error {
	_, err := controlplane.ApplyStatus(ctx, ri, obj, status, manager)
	return err
}

// condition is a condition as controllers write it (metav1.Condition requires a message,
// even an empty one).
func condition(typ, status, reason string, observedGeneration int64) map[string]any {
	c := map[string]any{
		"type": typ, "status": status, "reason": reason, "message": "",
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
	}
	if observedGeneration > 0 {
		c["observedGeneration"] = observedGeneration
	}
	return c
}

// conditionEntry is a copy of the entry of condition typ in obj's status.conditions, as a
// controller wrote it, or nil: what the simulator compares with what it would write. It
// reads the raw entry rather than going through model.ConditionOf so that the simulator
// depends on nothing of the system it plays the backends for.
func conditionEntry(obj *unstructured.Unstructured, typ string) map[string]any {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			return m
		}
	}
	return nil
}

// str is a string field of obj, or "".
func str(obj *unstructured.Unstructured, path ...string) string {
	s, _, _ := unstructured.NestedString(obj.Object, path...)
	return s
}

// sortedKeys lists a map's keys in order, for messages.
func sortedKeys[V any](m map[string]V) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}
