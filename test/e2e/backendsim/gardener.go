package backendsim

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/SovereignCloudStack/scs-kaas/test/e2e/gardensim"
)

// shoot plays gardenlet for Shoot namespace/name: a Shoot not yet reconciled at its
// generation gets the status of a healthy, reconciled Shoot whose cluster is the Gardener
// workload.
func (s *Simulator) shoot(ctx context.Context, namespace, name string) error {
	w := s.Workloads[BackendGardener]
	if w == nil || s.Garden.Dynamic == nil {
		return nil
	}
	sh, err := s.Garden.Dynamic.Resource(gardensim.ShootGVR).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil || sh.GetDeletionTimestamp() != nil {
		return err
	}
	jwt, err := s.shootSignIn(ctx, sh)
	if err != nil {
		return err
	}
	s.recordSignIn(w, "shoot/"+namespace+"/"+name, jwt)
	observed, _, _ := unstructured.NestedInt64(sh.Object, "status", "observedGeneration")
	if observed == sh.GetGeneration() && str(sh, "status", "lastOperation", "state") == "Succeeded" {
		return nil
	}
	_, err = gardensim.Write(ctx, s.Garden.Kube, s.Garden.Dynamic, namespace, name, gardensim.Healthy, gardensim.WithCluster(w.Gardener()))
	return err
}
