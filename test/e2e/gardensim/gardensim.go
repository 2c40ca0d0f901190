// Package gardensim writes the status Gardener's controllers would write on a Shoot.
//
// No Gardener runs on the local control plane (it needs a seed cluster, machines and a
// cloud), so nothing ever reports on the Shoots that provider-kubernetes creates in the
// local garden cluster. Tests and the playground use this package to play that part:
// it replaces a Shoot's whole status through the status subresource, as Gardener's
// gardenlet does, with the fields Gardener's schema requires (uid, technicalID, hibernated,
// gardener) and the ones the composition function reads (lastOperation, lastErrors,
// observedGeneration, the health conditions, advertisedAddresses). It also publishes the
// ConfigMap <shoot>.ca-cluster and the InternalSecret <shoot>.ca-client, from which
// gardener-apiserver's shoots/adminkubeconfig takes the cluster CA and signs the client
// certificate of the admin kubeconfigs it issues.
//
// It writes through the garden's real gardener-apiserver, whose status validation applies
// (technicalID and uid are immutable once set, advertised addresses are https). It adds no
// finalizer, so a Shoot whose deletion Gardener admits is gone at once.
package gardensim

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// ShootGVR is Gardener's Shoot resource.
var ShootGVR = schema.GroupVersionResource{Group: "core.gardener.cloud", Version: "v1beta1", Resource: "shoots"}

// State is a situation Gardener can report on a Shoot.
type State string

const (
	// Healthy means the last operation succeeded on the current generation and the four health
	// checks the function reads pass; the API server has an external address.
	Healthy State = "healthy"
	// Progressing means Gardener is still creating (or reconciling) the Shoot.
	Progressing State = "progressing"
	// QuotaExceeded means creating the infrastructure failed because the cloud project is out of
	// floating IPs; Gardener classifies that as ERR_INFRA_QUOTA_EXCEEDED.
	QuotaExceeded State = "quota-exceeded"
)

// States lists every State, for flags and help texts.
func States() []string {
	s := []string{string(Healthy), string(Progressing), string(QuotaExceeded)}
	sort.Strings(s)
	return s
}

// ParseState checks a state name.
func ParseState(s string) (State, error) {
	for _, v := range States() {
		if s == v {
			return State(s), nil
		}
	}
	return "", fmt.Errorf("unknown Gardener state %q; one of %s", s, strings.Join(States(), ", "))
}

// QuotaErrorCode is the Gardener error code QuotaExceeded reports.
const QuotaErrorCode = "ERR_INFRA_QUOTA_EXCEEDED"

// HealthConditions are the Shoot conditions the function requires to be True.
var HealthConditions = []string{"APIServerAvailable", "ControlPlaneHealthy", "EveryNodeReady", "SystemComponentsHealthy"}

// APIServerURL is the external API server address Healthy advertises for a Shoot, in the
// form Gardener uses: api.<shoot>.<project>.<domain>.
func APIServerURL(shoot *unstructured.Unstructured) string {
	return fmt.Sprintf("https://api.%s.%s.scs-kaas.local", shoot.GetName(), project(shoot))
}

// project is the Gardener project of a Shoot: its namespace is garden-<project>.
func project(shoot *unstructured.Unstructured) string {
	return strings.TrimPrefix(shoot.GetNamespace(), "garden-")
}

// Status returns the whole status Gardener would write on shoot in state s, at time now, for
// a cluster at APIServerURL(shoot).
func Status(shoot *unstructured.Unstructured, s State, now time.Time) (map[string]any, error) {
	return status(shoot, s, now, APIServerURL(shoot))
}

func status(shoot *unstructured.Unstructured, s State, now time.Time, apiServerURL string) (map[string]any, error) {
	ts := now.UTC().Format(time.RFC3339)
	status := map[string]any{
		// Required by Gardener's schema, always present on a real Shoot.
		"uid":         string(shoot.GetUID()),
		"technicalID": fmt.Sprintf("shoot--%s--%s", project(shoot), shoot.GetName()),
		"hibernated":  false,
		"gardener":    map[string]any{"id": "gardensim", "name": "gardensim", "version": "v1.149.3"},
	}
	opType := "Create"
	if prev, _, _ := unstructured.NestedString(shoot.Object, "status", "lastOperation", "state"); prev == "Succeeded" {
		// After the first success every further operation is a reconcile.
		opType = "Reconcile"
	}
	operation := func(state string, progress int64, description string) map[string]any {
		return map[string]any{"type": opType, "state": state, "progress": progress, "description": description, "lastUpdateTime": ts}
	}
	conditions := func(st, reason, message string) []any {
		out := make([]any, 0, len(HealthConditions))
		for _, t := range HealthConditions {
			out = append(out, map[string]any{"type": t, "status": st, "reason": reason, "message": message,
				"lastTransitionTime": ts, "lastUpdateTime": ts})
		}
		return out
	}

	switch s {
	case Healthy:
		status["observedGeneration"] = shoot.GetGeneration()
		status["lastOperation"] = operation("Succeeded", 100, "Shoot cluster has been successfully reconciled (simulated)")
		status["conditions"] = conditions("True", "HealthChecksPassed", "simulated by gardensim")
		status["advertisedAddresses"] = []any{map[string]any{"name": "external", "url": apiServerURL}}
	case Progressing:
		status["observedGeneration"] = shoot.GetGeneration()
		status["lastOperation"] = operation("Processing", 40, "Waiting until the Kubernetes API server is ready (simulated)")
		status["conditions"] = conditions("Progressing", "ConditionInitialized", "simulated by gardensim")
	case QuotaExceeded:
		status["observedGeneration"] = shoot.GetGeneration()
		status["lastOperation"] = operation("Error", 12,
			`Flow "Shoot cluster creation" encountered task errors: task "Deploying Shoot infrastructure" failed (simulated)`)
		status["lastErrors"] = []any{map[string]any{
			"taskID":         "DeployInfrastructure",
			"description":    `task "Deploying Shoot infrastructure" failed: Quota exceeded for resources: [floatingip]: Requested 1, but already used 10 of 10 floatingip (simulated)`,
			"codes":          []any{QuotaErrorCode},
			"lastUpdateTime": ts,
		}}
		status["conditions"] = conditions("Progressing", "ConditionInitialized", "simulated by gardensim")
	default:
		return nil, fmt.Errorf("unknown Gardener state %q", s)
	}
	return status, nil
}

// Option changes what Write publishes.
type Option func(*Cluster)

// WithCluster makes Write advertise c's API server and publish c's CAs (see Cluster).
func WithCluster(c Cluster) Option { return func(o *Cluster) { *o = c } }

// Write does what gardenlet would do for Shoot namespace/name in state s: it publishes the
// Shoot's CAs (PublishCAs) and replaces the Shoot's status through the status subresource.
// It returns the updated Shoot. It reads the Shoot first (the status carries its uid and
// generation) and retries on conflicts, since provider-kubernetes may update the Shoot at
// the same time.
func Write(ctx context.Context, kube kubernetes.Interface, dyn dynamic.Interface, namespace, name string, s State, opts ...Option) (*unstructured.Unstructured, error) {
	var c Cluster
	for _, o := range opts {
		o(&c)
	}
	if err := PublishCAs(ctx, kube, dyn, namespace, name, c); err != nil {
		return nil, err
	}
	shoots := dyn.Resource(ShootGVR).Namespace(namespace)
	var out *unstructured.Unstructured
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		shoot, err := shoots.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		url := c.APIServerURL
		if url == "" {
			url = APIServerURL(shoot)
		}
		st, err := status(shoot, s, time.Now(), url)
		if err != nil {
			return err
		}
		shoot.Object["status"] = st
		out, err = shoots.UpdateStatus(ctx, shoot, metav1.UpdateOptions{FieldManager: "gardensim"})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("writing simulated Gardener status %q on Shoot %s/%s: %w", s, namespace, name, err)
	}
	return out, nil
}
