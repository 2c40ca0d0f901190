package e2e

import (
	"context"
	"encoding/base64"
	"fmt"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// Helpers for the tests that play a controller which cannot run here (Cluster API, the
// Cluster Stack operator, provider-openstack): they write what that controller would
// write, through the status subresource where the controller does, under a field manager
// that names the controller played.

// applyStatus writes status onto obj's status subresource as the controller that manager
// names would.
func applyStatus(ctx context.Context, t *testing.T, obj *unstructured.Unstructured, status map[string]any, manager string) *unstructured.Unstructured {
	t.Helper()
	got, err := cp.ApplyStatus(ctx, obj, status, manager)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// waitObject waits until the object exists and satisfies cond (which explains what it saw
// otherwise), and returns it.
func waitObject(ctx context.Context, t *testing.T, ri dynamic.ResourceInterface, name, what string, cond func(*unstructured.Unstructured) error) *unstructured.Unstructured {
	t.Helper()
	var obj *unstructured.Unstructured
	waitFor(ctx, t, deadline, what, func(ctx context.Context) (bool, error) {
		var err error
		if obj, err = ri.Get(ctx, name, metav1.GetOptions{}); err != nil {
			return false, err
		}
		if err := cond(obj); err != nil {
			return false, err
		}
		return true, nil
	})
	return obj
}

// waitRendered is waitObject for an object a claim renders: while it is missing, the
// error says what the claim reports, since the function may have refused the spec.
func waitRendered(ctx context.Context, t *testing.T, ri dynamic.ResourceInterface, claim, name, what string) *unstructured.Unstructured {
	t.Helper()
	var obj *unstructured.Unstructured
	waitFor(ctx, t, deadline, what, func(ctx context.Context) (bool, error) {
		var err error
		if obj, err = ri.Get(ctx, name, metav1.GetOptions{}); err == nil {
			return true, nil
		}
		if c, cerr := getClaim(ctx, claim); cerr == nil {
			return false, fmt.Errorf("%w; claim Rendered is %v, Synced is %v", err, model.ConditionOf(c, kaasv1alpha1.ConditionRendered), model.ConditionOf(c, "Synced"))
		}
		return false, err
	})
	return obj
}

// simulatedKubeconfig is a kubeconfig as a cluster's provider would issue it, for server.
// Its CA and token are made up: nothing here connects to the cluster.
func simulatedKubeconfig(t *testing.T, cluster, server string) []byte {
	t.Helper()
	ca := "-----BEGIN CERTIFICATE-----\nc2ltdWxhdGVkIENBLCBub3QgYSByZWFsIGNlcnRpZmljYXRl\n-----END CERTIFICATE-----\n"
	kc := map[string]any{
		"apiVersion": "v1",
		"kind":       "Config",
		"clusters": []any{map[string]any{"name": cluster, "cluster": map[string]any{
			"server":                     server,
			"certificate-authority-data": base64.StdEncoding.EncodeToString([]byte(ca)),
		}}},
		"users":           []any{map[string]any{"name": cluster + "-admin", "user": map[string]any{"token": "simulated-token"}}},
		"contexts":        []any{map[string]any{"name": cluster, "context": map[string]any{"cluster": cluster, "user": cluster + "-admin"}}},
		"current-context": cluster,
	}
	data, err := yaml.Marshal(kc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// condition of a managed resource or Cluster API object, as its controller writes it.
func simulatedCondition(typ, status, reason, message string, observedGeneration int64) map[string]any {
	// Cluster API's conditions (metav1.Condition) require a message, even an empty one.
	c := map[string]any{
		"type": typ, "status": status, "reason": reason, "message": message,
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
	}
	if observedGeneration > 0 {
		c["observedGeneration"] = observedGeneration
	}
	return c
}

// assertConnectionSecret fails unless the claim's connection secret carries a kubeconfig
// pointing at server, and the endpoint.
func assertConnectionSecret(ctx context.Context, t *testing.T, secretName, server string) {
	t.Helper()
	var data map[string][]byte
	waitFor(ctx, t, deadline, "connection secret "+claimNamespace+"/"+secretName+" with kubeconfig and endpoint", func(ctx context.Context) (bool, error) {
		s, err := cp.Client.CoreV1().Secrets(claimNamespace).Get(ctx, secretName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		data = s.Data
		if len(data["kubeconfig"]) == 0 || len(data["endpoint"]) == 0 {
			return false, fmt.Errorf("keys %v", keys(data))
		}
		return true, nil
	})
	if got := string(data["endpoint"]); got != server {
		t.Errorf("connection secret endpoint = %q, want %q", got, server)
	}
	kc := map[string]any{}
	if err := yaml.Unmarshal(data["kubeconfig"], &kc); err != nil {
		t.Fatalf("connection secret kubeconfig does not parse (content not shown)")
	}
	clusters, _, _ := unstructured.NestedSlice(kc, "clusters")
	if len(clusters) != 1 || str(&unstructured.Unstructured{Object: clusters[0].(map[string]any)}, "cluster", "server") != server {
		t.Errorf("connection secret kubeconfig does not point at %s", server)
	}
	if len(data["ca.crt"]) == 0 {
		t.Errorf("connection secret has no ca.crt")
	}
}

func keys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
