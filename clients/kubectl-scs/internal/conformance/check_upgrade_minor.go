package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/SovereignCloudStack/scs-kaas/clients/kubectl-scs/internal/fields"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// upgrade-minor: a cluster is upgraded by one minor, to the newest tested minor whose
// predecessor is offered: the Ready cluster of the predecessor, or a cluster made for it
// when the predecessor is not tested. It must report the new version, be Ready, and answer
// with the new minor over its kubeconfig. Skipped when no tested minor has an offered
// predecessor.
const (
	upgradeMinorID          = "upgrade-minor"
	upgradeMinorDescription = "a cluster is upgraded by one minor and then answers with the new minor"
)

// upgradeMinorInput is what upgrade-minor needs.
type upgradeMinorInput struct {
	// Offered are the minors the environment offers, Tested the minors under test in order,
	// Ready the Ready cluster of each tested minor (create-ready).
	Offered []string
	Tested  []string
	Ready   map[string]string
	// Machine and PoolMax shape the cluster made for a predecessor that is not tested.
	Machine string
	PoolMax int
}

// upgradeMinor is upgrade-minor.
func (r *run) upgradeMinor(ctx context.Context) bool {
	in := upgradeMinorInput{Offered: r.out.Offered.KubernetesVersions, Tested: r.out.Minors, Ready: r.ready,
		Machine: r.machine, PoolMax: r.poolMax()}
	r.step(ctx, upgradeMinorID, upgradeMinorDescription, func(ctx context.Context) (string, bool, error) { return r.upgrade(ctx, in) })
	return true
}

// upgrade moves a cluster one minor up to the newest tested minor that has its predecessor
// offered: the tested cluster of the predecessor when there is one, else a cluster created
// for it. Then the cluster must run and answer with the new minor.
func (r *run) upgrade(ctx context.Context, in upgradeMinorInput) (string, bool, error) {
	from, to := upgradePath(in)
	if to == "" {
		return fmt.Sprintf("no tested minor has its predecessor offered and Ready (offered %s, tested %s)", strings.Join(in.Offered, ", "), strings.Join(in.Tested, ", ")), true, nil
	}
	name := in.Ready[from]
	start := r.kit.Options.Now()
	if name == "" {
		name = r.clusterName("upgrade")
		if _, _, err := r.createReadyCluster(ctx, createReadyInput{Name: name, Minor: from, Pools: []string{pool}, Machine: in.Machine, PoolMax: in.PoolMax}); err != nil {
			return "", false, fmt.Errorf("creating the cluster to upgrade at %s: %v", from, err)
		}
	}
	patch, _ := json.Marshal([]map[string]any{
		{"op": "test", "path": "/spec/kubernetes/version", "value": from},
		{"op": "replace", "path": "/spec/kubernetes/version", "value": to},
	})
	if _, err := r.clusters().Patch(ctx, name, types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: fieldManager}); err != nil {
		return "", false, fmt.Errorf("upgrading %s from %s to %s: %s", name, from, to, reasonOf(err))
	}
	if _, err := r.waitCluster(ctx, name, "running "+to+" and Ready", func(c *unstructured.Unstructured) error {
		runs := fields.String(c, "status", "kubernetes", "version")
		if v, err := model.ParseVersion(strings.TrimPrefix(runs, "v")); err != nil || v.MinorString() != to {
			return fmt.Errorf("status.kubernetes.version is %s", orNone(runs))
		}
		if s := model.ConditionOf(c, model.ManagedConditionReady); s.Status != "True" {
			return fmt.Errorf("Ready is %s", shown(s))
		}
		return nil
	}); err != nil {
		return "", false, err
	}
	_, answer, err := r.answersMinor(ctx, kubeconfigVersionInput{Cluster: name, Minor: to})
	if err != nil {
		return "", false, err
	}
	return fmt.Sprintf("%s upgraded from %s to %s in %s; %s", name, from, to, r.kit.Options.Now().Sub(start).Round(time.Second), answer), false, nil
}

// upgradePath is the upgrade the check makes: to the newest tested minor whose predecessor
// is offered and either Ready or not tested (then a cluster is made for it); "" when there
// is none.
func upgradePath(in upgradeMinorInput) (from, to string) {
	for i := len(in.Tested) - 1; i >= 0; i-- {
		t, err := model.ParseVersion(in.Tested[i])
		if err != nil {
			continue
		}
		prev := model.Version{Major: t.Major, Minor: t.Minor - 1, Patch: -1}.MinorString()
		if slices.Contains(in.Offered, prev) && (in.Ready[prev] != "" || !slices.Contains(in.Tested, prev)) {
			return prev, in.Tested[i]
		}
	}
	return "", ""
}
