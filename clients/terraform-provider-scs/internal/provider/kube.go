package provider

// The provider's Kubernetes client: the dynamic client, the resources it touches, and the
// waits of create, update and delete.

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// FieldManager is the server-side apply field manager of the provider.
const FieldManager = "terraform-provider-scs"

var (
	clusterGVR   = schema.GroupVersionResource{Group: kaasv1alpha1.Group, Version: kaasv1alpha1.Version, Resource: "scsclusters"}
	compositeGVR = schema.GroupVersionResource{Group: kaasv1alpha1.Group, Version: kaasv1alpha1.Version, Resource: "xscsclusters"}
	secretGVR    = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	namespaceGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	envConfigGVR = schema.GroupVersionResource{Group: "apiextensions.crossplane.io", Version: "v1beta1", Resource: "environmentconfigs"}
)

// Labels of EnvironmentConfigs (docs/environments.md).
const (
	labelEnvironment = "kaas.scs.community/environment"
	labelDefault     = "kaas.scs.community/default"
)

// client is what resources and data sources get from the provider's configuration.
type client struct {
	dyn dynamic.Interface
	// namespace is the default namespace: the provider's namespace, else the kubeconfig
	// context's, else "default".
	namespace string
	// dryRunOnPlan checks creates and changes with a server-side dry run while planning.
	dryRunOnPlan bool
	// poll is the interval of the waits.
	poll time.Duration
	// nudgeEvery is the least time between two reconcile requests (nudge); default
	// circuitHalfOpen.
	nudgeEvery time.Duration
}

func (c *client) clusters(namespace string) dynamic.ResourceInterface {
	return c.dyn.Resource(clusterGVR).Namespace(namespace)
}

// newCluster is the object the provider applies: identity and spec, nothing else, so that
// the field manager owns exactly the fields of the configuration.
func newCluster(namespace, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": kaasv1alpha1.APIVersion,
		"kind":       kaasv1alpha1.ClaimKind,
		"metadata":   map[string]any{"namespace": namespace, "name": name},
		"spec":       spec,
	}}
}

// get reads an SCSCluster; nil without error when it does not exist.
func (c *client) get(ctx context.Context, namespace, name string) (*unstructured.Unstructured, error) {
	obj, err := c.clusters(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return obj, err
}

// apply server-side-applies an SCSCluster, taking over fields other managers hold.
func (c *client) apply(ctx context.Context, obj *unstructured.Unstructured, dryRun bool) (*unstructured.Unstructured, error) {
	opts := metav1.ApplyOptions{FieldManager: FieldManager, Force: true}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return c.clusters(obj.GetNamespace()).Apply(ctx, obj.GetName(), obj, opts)
}

// composite reads the composite resource of a legacy claim; nil when the claim is not bound
// yet or the user may not read composites (tenants usually cannot).
func (c *client) composite(ctx context.Context, obj *unstructured.Unstructured) *unstructured.Unstructured {
	if !isClaim(obj) {
		return nil
	}
	ref, _, _ := unstructured.NestedString(obj.Object, "spec", "resourceRef", "name")
	if ref == "" {
		return nil
	}
	xr, err := c.dyn.Resource(compositeGVR).Get(ctx, ref, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	return xr
}

// observeCluster reads an SCSCluster and what Crossplane made of it; obj is nil when it
// does not exist. xr is the composite of a legacy claim, where it can be read.
func (c *client) observeCluster(ctx context.Context, namespace, name string) (obj, xr *unstructured.Unstructured, o observation, err error) {
	obj, err = c.get(ctx, namespace, name)
	if err != nil || obj == nil {
		return obj, nil, observation{}, err
	}
	xr = c.composite(ctx, obj)
	return obj, xr, observe(obj, xr), nil
}

// waitError is a wait that ended without the cluster getting where it should.
type waitError struct {
	// Refused: the function refuses the spec (Rendered False); Failed: the backend gave up;
	// otherwise the wait timed out.
	Refused, Failed bool
	Last            observation
	What            string
	After           time.Duration
}

func (e *waitError) Error() string {
	switch {
	case e.Refused:
		return "refused: " + describe(e.Last.Rendered)
	case e.Failed:
		return fmt.Sprintf("the backend gave up on the cluster: %s", e.Last.summary())
	}
	return fmt.Sprintf("timed out after %s waiting until %s: %s", e.After.Round(time.Second), e.What, e.Last.summary())
}

// waitUntil polls an SCSCluster until done says so, the function refuses its spec, the
// backend gives up, or timeout passes. It returns the last object read.
func (c *client) waitUntil(ctx context.Context, namespace, name string, timeout time.Duration, what string, done func(observation) bool) (*unstructured.Unstructured, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last *unstructured.Unstructured
	var lastObs observation
	var lastNudge time.Time
	for {
		obj, xr, o, err := c.observeCluster(ctx, namespace, name)
		switch {
		case err != nil && ctx.Err() == nil:
			// A failing request is retried until the deadline: API servers restart.
			lastObs.Why = "reading it failed: " + err.Error()
		case obj == nil && err == nil:
			return nil, fmt.Errorf("SCSCluster %s/%s disappeared while waiting until %s", namespace, name, what)
		case obj != nil:
			last, lastObs = obj, o
			switch {
			case done(o):
				return obj, nil
			case o.refused():
				return obj, &waitError{Refused: true, Last: o, What: what, After: time.Since(start)}
			case o.failed():
				return obj, &waitError{Failed: true, Last: o, What: what, After: time.Since(start)}
			case !o.Current && time.Since(lastNudge) >= c.nudgeInterval():
				if c.nudge(ctx, obj, xr) {
					lastNudge = time.Now()
				}
			}
		}
		select {
		case <-ctx.Done():
			return last, &waitError{Last: lastObs, What: what, After: time.Since(start)}
		case <-time.After(c.interval(time.Since(start))):
		}
	}
}

// circuitHalfOpen is how often Crossplane lets a watch event through to a composite
// resource whose circuit breaker is open (condition Responsive False, WatchCircuitOpen).
const circuitHalfOpen = 30 * time.Second

func (c *client) nudgeInterval() time.Duration {
	if c.nudgeEvery > 0 {
		return c.nudgeEvery
	}
	return circuitHalfOpen
}

// nudge asks Crossplane to reconcile a composite resource whose circuit breaker is open.
// While open, the breaker drops the watch events of the composite, the one of the change
// just applied among them, and Crossplane does not reconcile it again on its own: the wait
// would run out with the change never looked at (seen in the end-to-end test after a burst
// of changes). The reconcile-requested-at annotation is Crossplane's way to ask for a
// reconcile; its event passes once the breaker's half-open interval has passed. It returns
// whether it annotated (false when no breaker is open or the patch is not allowed).
func (c *client) nudge(ctx context.Context, obj, xr *unstructured.Unstructured) bool {
	target, gvr := obj, clusterGVR
	if xr != nil && circuitOpen(xr) {
		target, gvr = xr, compositeGVR
	} else if !circuitOpen(obj) {
		return false
	}
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, annotationReconcileRequestedAt, time.Now().UTC().Format(time.RFC3339Nano))
	ri := c.dyn.Resource(gvr).Namespace(target.GetNamespace())
	_, err := ri.Patch(ctx, target.GetName(), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: FieldManager})
	return err == nil
}

// waitGone polls until an SCSCluster no longer exists.
func (c *client) waitGone(ctx context.Context, namespace, name string, timeout time.Duration) error {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last string
	for {
		obj, err := c.get(ctx, namespace, name)
		switch {
		case err == nil && obj == nil:
			return nil
		case err != nil:
			last = err.Error()
		default:
			last = "it still exists"
			if ts := obj.GetDeletionTimestamp(); ts != nil {
				last = fmt.Sprintf("deletion started %s ago; %s", time.Since(ts.Time).Round(time.Second), observe(obj, nil).summary())
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("timed out after %s waiting for SCSCluster %s/%s to be deleted: %s", time.Since(start).Round(time.Second), namespace, name, last)
		case <-time.After(c.interval(time.Since(start))):
		}
	}
}

// interval polls often at first (Crossplane reacts within seconds), then less.
func (c *client) interval(elapsed time.Duration) time.Duration {
	if c.poll > 0 {
		return c.poll
	}
	if elapsed < time.Minute {
		return 2 * time.Second
	}
	return 10 * time.Second
}

// kubeconfig reads the kubeconfig key of the cluster's connection Secret
// (spec.writeConnectionSecretToRef, in the cluster's namespace). ok is false when the
// cluster names no Secret or the Secret does not hold a kubeconfig yet.
func (c *client) kubeconfig(ctx context.Context, obj *unstructured.Unstructured) (kc string, ok bool, err error) {
	name, _, _ := unstructured.NestedString(obj.Object, "spec", "writeConnectionSecretToRef", "name")
	if name == "" {
		return "", false, nil
	}
	s, err := c.dyn.Resource(secretGVR).Namespace(obj.GetNamespace()).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("reading the connection Secret %s/%s: %w", obj.GetNamespace(), name, err)
	}
	enc, _, _ := unstructured.NestedString(s.Object, "data", "kubeconfig")
	if enc == "" {
		return "", false, nil
	}
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return "", false, errors.New("the connection Secret's kubeconfig is not base64")
	}
	return string(b), true, nil
}
