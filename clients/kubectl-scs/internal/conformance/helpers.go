package conformance

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
)

// ConnectKubeconfig reaches a new cluster with its delivered kubeconfig (its current
// context). The kubeconfig stays in memory; nothing of it is logged.
func ConnectKubeconfig(kubeconfig []byte) (Workload, error) {
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("the kubeconfig cannot be read: %w", err)
	}
	cfg.UserAgent = "kubectl-scs-conformance"
	d, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &workload{disco: d, dyn: dyn}, nil
}

type workload struct {
	disco discovery.DiscoveryInterface
	dyn   dynamic.Interface
}

func (w *workload) ServerVersion(context.Context) (string, error) {
	v, err := w.disco.ServerVersion()
	if err != nil {
		return "", err
	}
	return v.GitVersion, nil
}

var nodeGVR = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}

func (w *workload) NodeZones(ctx context.Context) (map[string]string, error) {
	list, err := w.dyn.Resource(nodeGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, n := range list.Items {
		out[n.GetName()] = n.GetLabels()[ZoneLabel]
	}
	return out, nil
}

// str reads a string field.
func str(obj *unstructured.Unstructured, path ...string) string {
	s, _, _ := unstructured.NestedString(obj.Object, path...)
	return s
}

// stringList reads a list of strings.
func stringList(obj *unstructured.Unstructured, path ...string) []string {
	l, _, _ := unstructured.NestedStringSlice(obj.Object, path...)
	return l
}

// condition is one status condition, as messages show it.
type condition struct {
	Status, Reason, Message string
	ObservedGeneration      int64
}

func (c condition) String() string {
	if c.Status == "" {
		return "not reported"
	}
	s := c.Status
	if c.Reason != "" {
		s += "/" + c.Reason
	}
	if c.Message != "" {
		s += " (" + c.Message + ")"
	}
	return s
}

func conditionOf(obj *unstructured.Unstructured, typ string) condition {
	list, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range list {
		m, _ := c.(map[string]any)
		if m["type"] == typ {
			s, _ := m["status"].(string)
			r, _ := m["reason"].(string)
			msg, _ := m["message"].(string)
			g, _ := m["observedGeneration"].(int64)
			return condition{Status: s, Reason: r, Message: msg, ObservedGeneration: g}
		}
	}
	return condition{}
}

// accessOf decodes an EnvironmentConfig's data.access; one that cannot be decoded admits
// nobody, as in the model.
func accessOf(cfg *unstructured.Unstructured) *envv1alpha1.Access {
	raw, found, _ := unstructured.NestedFieldNoCopy(cfg.Object, "data", "access")
	if !found {
		return nil
	}
	a := &envv1alpha1.Access{}
	data, err := json.Marshal(raw)
	if err != nil || json.Unmarshal(data, a) != nil {
		return &envv1alpha1.Access{}
	}
	return a
}

// reasonOf is an API error in a few words: its reason and message.
func reasonOf(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		s := status.Status()
		return fmt.Sprintf("%s: %s", s.Reason, s.Message)
	}
	return err.Error()
}

// statusMessage is the API server's message of an error.
func statusMessage(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return status.Status().Message
	}
	return err.Error()
}

func decodeBase64(s string) ([]byte, error) { return base64.StdEncoding.DecodeString(s) }

func orAny(l []string) string {
	if len(l) == 0 {
		return "any"
	}
	return strings.Join(l, ", ")
}

// stalled says why a cluster will not progress: Stalled True about its current generation,
// when the function refuses its spec. An older Stalled condition may be fixed already.
func stalled(obj *unstructured.Unstructured) string {
	s := conditionOf(obj, "Stalled")
	if s.Status != "True" || s.ObservedGeneration == 0 || s.ObservedGeneration != obj.GetGeneration() {
		return ""
	}
	return "Stalled " + s.String()
}

// refusal ends a wait at once: the cluster will not get there without a change.
type refusal struct{ msg string }

func (e *refusal) Error() string { return e.msg }
