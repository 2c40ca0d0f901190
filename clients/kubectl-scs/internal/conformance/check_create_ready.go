package conformance

import (
	"context"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/clients/kubectl-scs/internal/fields"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// create-ready-<minor>: a small cluster of the minor (purpose evaluation, no deletion
// protection, pools default and scale) is created and becomes Ready within the timeout; a
// spec the function refuses (Stalled) fails at once, with the function's words.
const createReadyID = "create-ready"

// createReadyInput is what create-ready needs: the cluster to create and what it asks for.
type createReadyInput struct {
	// Name is the cluster's name, Minor its Kubernetes minor.
	Name, Minor string
	// Pools name its node pools, each of Machine, autoscaling from 1 to PoolMax nodes.
	Pools   []string
	Machine string
	PoolMax int
}

// machineType chooses the machine type of the clusters' pools: --machine-type, else the
// first the environment offers. Without either no cluster can be created: the run ends.
func (r *run) machineType(context.Context) bool {
	r.machine = r.kit.Options.MachineType
	if r.machine != "" {
		return true
	}
	if len(r.out.Offered.MachineTypes) == 0 {
		r.skip(createReadyID, "clusters are created", "the environment names no machine type: give one with --machine-type")
		return false
	}
	r.machine = r.out.Offered.MachineTypes[0]
	return true
}

// createReady is create-ready-<minor>. The other checks of the minor run only when it
// passed.
func (r *run) createReady(ctx context.Context, minor string) bool {
	in := createReadyInput{Name: r.clusterName(strings.ReplaceAll(minor, ".", "-")), Minor: minor,
		Pools: []string{pool, scalePool}, Machine: r.machine, PoolMax: r.poolMax()}
	if !r.step(ctx, createReadyID+"-"+minor, "a cluster of Kubernetes "+minor+" is created and becomes Ready with its kubeconfig delivered", func(ctx context.Context) (string, bool, error) {
		return r.createReadyCluster(ctx, in)
	}) {
		return false
	}
	r.ready[minor] = in.Name
	return true
}

// createReadyCluster creates the cluster and waits until it is Ready.
func (r *run) createReadyCluster(ctx context.Context, in createReadyInput) (string, bool, error) {
	o := &r.kit.Options
	spec := clusterSpec(o.Environment, in)
	spec["writeConnectionSecretToRef"] = map[string]any{"name": in.Name + "-kubeconfig"}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": kaasv1alpha1.APIVersion,
		"kind":       kaasv1alpha1.ClaimKind,
		"metadata":   map[string]any{"name": in.Name, "namespace": o.Namespace, "labels": map[string]any{LabelRun: o.RunID}},
		"spec":       spec,
	}}
	start := o.Now()
	if _, err := r.clusters().Create(ctx, obj, metav1.CreateOptions{FieldManager: fieldManager}); err != nil {
		return "", false, fmt.Errorf("creating SCSCluster %s: %s", in.Name, reasonOf(err))
	}
	r.kit.created = append(r.kit.created, in.Name)
	if _, err := r.waitCluster(ctx, in.Name, "Ready", func(c *unstructured.Unstructured) error {
		if s := stalled(c); s != "" {
			return &refusal{fmt.Sprintf("SCSCluster %s will not become Ready: %s", in.Name, s)}
		}
		if s := model.ConditionOf(c, model.ManagedConditionReady); s.Status != "True" {
			return fmt.Errorf("Ready is %s; phase %s, BackendReady %s", shown(s), orNone(fields.String(c, "status", "phase")),
				shown(model.ConditionOf(c, kaasv1alpha1.ConditionBackendReady)))
		}
		return nil
	}); err != nil {
		return "", false, err
	}
	what := "pool " + in.Pools[0]
	if len(in.Pools) > 1 {
		what = "pools " + strings.Join(in.Pools, ", ") + ", each"
	}
	return fmt.Sprintf("SCSCluster %s (Kubernetes %s, %s of 1 to %d %s) Ready after %s", in.Name, in.Minor, what, in.PoolMax, in.Machine, o.Now().Sub(start).Round(time.Second)), false, nil
}

// clusterSpec is a small cluster without protection, with pools that the autoscaler each
// keeps at one node and may grow to PoolMax.
func clusterSpec(environment string, in createReadyInput) map[string]any {
	nodePools := make([]any, 0, len(in.Pools))
	for _, p := range in.Pools {
		nodePools = append(nodePools, map[string]any{"name": p, "machineType": in.Machine,
			"autoscaling": map[string]any{"min": int64(1), "max": int64(in.PoolMax)}})
	}
	return map[string]any{
		"environment":        environment,
		"purpose":            "evaluation",
		"deletionProtection": false,
		"kubernetes":         map[string]any{"version": in.Minor},
		"nodePools":          nodePools,
	}
}
