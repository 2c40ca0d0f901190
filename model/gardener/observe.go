package gardener

import (
	"fmt"
	"slices"
	"strings"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// healthConditions are the Shoot conditions that must all be True for a healthy cluster.
var healthConditions = []gardencorev1beta1.ConditionType{
	gardencorev1beta1.ShootAPIServerAvailable,
	gardencorev1beta1.ShootControlPlaneHealthy,
	gardencorev1beta1.ShootEveryNodeReady,
	gardencorev1beta1.ShootSystemComponentsHealthy,
}

// observe reads the Shoot's status: lastOperation, lastErrors, the four health conditions
// and observedGeneration decide readiness and phase; Gardener's error codes become the
// reason of the BackendReady condition.
func observe(req *model.Request, shoot *gardencorev1beta1.Shoot) (*model.Observation, error) {
	details, err := kubeconfigDetails(req)
	if err != nil {
		return nil, err
	}
	kubeconfigReady, kubeconfig := kubeconfigVerdict(req, shoot, details)
	// What the AdminKubeconfig delivered is the cluster's whether or not the Shoot is
	// observed now: leaving it out would empty the kubeconfig users hold.
	obs := &model.Observation{ResourceReady: map[string]bool{ResourceShoot: false, ResourceKubeconfig: kubeconfigReady}, ConnectionDetails: details}
	cm, err := req.Native(ResourceAuthentication)
	if err != nil {
		return nil, err
	}
	obs.ResourceReady[ResourceAuthentication] = cm != nil
	if shoot == nil {
		obs.Status.Phase = kaasv1alpha1.PhaseProvisioning
		obs.Conditions = []model.Condition{model.NotCreated("the Shoot", "in the garden cluster"), kubeconfig}
		return obs, nil
	}

	ready, cond := verdict(shoot)
	// Ready for the claim means usable: healthy, and a kubeconfig that works.
	obs.Ready = ready && kubeconfigReady
	obs.ResourceReady[ResourceShoot] = ready
	obs.Conditions = []model.Condition{cond, kubeconfig}
	obs.Status = kaasv1alpha1.ClusterStatus{
		Phase:        phase(shoot, ready),
		Kubernetes:   &kaasv1alpha1.KubernetesStatus{Version: shoot.Spec.Kubernetes.Version},
		APIServerURL: apiServerURL(shoot),
		ControlPlane: &kaasv1alpha1.ControlPlaneStatus{HighAvailability: observedFailureTolerance(shoot) != ""},
		NodePools:    nodePools(shoot),
		Hibernated:   shoot.Status.IsHibernated,
	}
	if obs.Status.Access, err = accessInForce(req, shoot); err != nil {
		return nil, err
	}
	if url := obs.Status.APIServerURL; obs.ConnectionDetails == nil && url != "" {
		obs.ConnectionDetails = map[string][]byte{model.ConnectionKeyEndpoint: []byte(url)}
	}
	return obs, nil
}

// verdict decides readiness and explains it in the BackendReady condition, in Gardener's
// own words where Gardener gave any.
func verdict(shoot *gardencorev1beta1.Shoot) (bool, model.Condition) {
	c := model.Condition{Type: kaasv1alpha1.ConditionBackendReady, Status: model.ConditionFalse}
	op := shoot.Status.LastOperation

	if len(shoot.Status.LastErrors) > 0 {
		e := shoot.Status.LastErrors[0]
		c.Reason = reasonOf(e.Codes, "LastError")
		c.Message = model.Truncate(fmt.Sprintf("Gardener reports: %s", e.Description))
		return false, c
	}
	switch {
	case op == nil:
		c.Reason, c.Message = kaasv1alpha1.ReasonPending, "Gardener has not started on the Shoot yet"
		return false, c
	case op.State != gardencorev1beta1.LastOperationStateSucceeded:
		c.Reason = string(op.Type) + string(op.State)
		c.Message = model.Truncate(fmt.Sprintf("Gardener %s operation is %s at %d%%: %s", strings.ToLower(string(op.Type)), op.State, op.Progress, op.Description))
		return false, c
	case shoot.Status.ObservedGeneration != shoot.Generation:
		c.Reason = kaasv1alpha1.ReasonReconciling
		c.Message = fmt.Sprintf("Gardener has not yet acted on generation %d of the Shoot (observed %d)", shoot.Generation, shoot.Status.ObservedGeneration)
		return false, c
	}
	for _, t := range healthConditions {
		hc := findCondition(shoot.Status.Conditions, t)
		if hc == nil {
			c.Reason = string(t) + string(gardencorev1beta1.ConditionUnknown)
			c.Message = fmt.Sprintf("Gardener has not reported %s yet", t)
			return false, c
		}
		if hc.Status != gardencorev1beta1.ConditionTrue {
			c.Reason = reasonOf(hc.Codes, string(t)+string(hc.Status))
			c.Message = model.Truncate(fmt.Sprintf("%s is %s: %s: %s", t, hc.Status, hc.Reason, hc.Message))
			return false, c
		}
	}
	c.Status, c.Reason, c.Message = model.ConditionTrue, kaasv1alpha1.ReasonHealthy, "the Shoot is reconciled and all health checks pass"
	return true, c
}

// reasonOf is Gardener's error codes, or the fallback when it gave none.
func reasonOf(codes []gardencorev1beta1.ErrorCode, fallback string) string {
	if len(codes) == 0 {
		return fallback
	}
	s := make([]string, len(codes))
	for i, c := range codes {
		s[i] = string(c)
	}
	return strings.Join(s, ",")
}

func phase(shoot *gardencorev1beta1.Shoot, ready bool) kaasv1alpha1.Phase {
	op := shoot.Status.LastOperation
	switch {
	case shoot.DeletionTimestamp != nil || (op != nil && op.Type == gardencorev1beta1.LastOperationTypeDelete):
		return kaasv1alpha1.PhaseDeleting
	case op != nil && op.State == gardencorev1beta1.LastOperationStateFailed:
		return kaasv1alpha1.PhaseFailed
	case op == nil || (op.Type == gardencorev1beta1.LastOperationTypeCreate && op.State != gardencorev1beta1.LastOperationStateSucceeded):
		return kaasv1alpha1.PhaseProvisioning
	case shoot.Status.IsHibernated:
		return kaasv1alpha1.PhaseHibernated
	case ready:
		return kaasv1alpha1.PhaseReady
	case op.State == gardencorev1beta1.LastOperationStateError || len(shoot.Status.LastErrors) > 0:
		return kaasv1alpha1.PhaseDegraded
	case op.State != gardencorev1beta1.LastOperationStateSucceeded || shoot.Status.ObservedGeneration != shoot.Generation:
		return kaasv1alpha1.PhaseUpdating
	default:
		return kaasv1alpha1.PhaseDegraded
	}
}

// apiServerURL is the external advertised address, the one users reach.
func apiServerURL(shoot *gardencorev1beta1.Shoot) string {
	for _, a := range shoot.Status.AdvertisedAddresses {
		if a.Name == "external" {
			return a.URL
		}
	}
	return ""
}

func nodePools(shoot *gardencorev1beta1.Shoot) []kaasv1alpha1.NodePoolStatus {
	out := make([]kaasv1alpha1.NodePoolStatus, 0, len(shoot.Spec.Provider.Workers))
	for _, w := range shoot.Spec.Provider.Workers {
		out = append(out, kaasv1alpha1.NodePoolStatus{
			Name:        w.Name,
			MachineType: w.Machine.Type,
			Zones:       slices.Clone(w.Zones),
			Min:         ptrTo(w.Minimum),
			Max:         ptrTo(w.Maximum),
		})
	}
	return out
}

func findCondition(cs []gardencorev1beta1.Condition, t gardencorev1beta1.ConditionType) *gardencorev1beta1.Condition {
	for i := range cs {
		if cs[i].Type == t {
			return &cs[i]
		}
	}
	return nil
}
