package conformance

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/clients/kubectl-scs/internal/fields"
)

// fieldManager is the field manager of every write of the kit.
const fieldManager = "kubectl-scs-conformance"

// clusters are the SCSClusters of the namespace under test.
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

// stalled says why a cluster will not progress: Stalled True about its current generation,
// when the function refuses its spec (fields.Stalled), in the kit's words; "" otherwise.
func stalled(obj *unstructured.Unstructured) string {
	s, ok := fields.Stalled(obj)
	if !ok {
		return ""
	}
	return kaasv1alpha1.ConditionStalled + " " + shown(s)
}

// refusal ends a wait at once: the cluster will not get there without a change.
type refusal struct{ msg string }

func (e *refusal) Error() string { return e.msg }
