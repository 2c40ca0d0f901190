package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/SovereignCloudStack/scs-kaas/model"
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

// shown is a condition as the kit's messages show it: "Status/Reason (Message)", the parts
// that are set, or "not reported".
func shown(c model.ObservedCondition) string {
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

func orAny(l []string) string {
	if len(l) == 0 {
		return "any"
	}
	return strings.Join(l, ", ")
}
