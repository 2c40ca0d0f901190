package conformance

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/SovereignCloudStack/scs-kaas/model"
)

// kubeconfig-version-<minor>: the Secret named by writeConnectionSecretToRef holds the keys
// of the kubeconfig contract (kubeconfig, endpoint, ca.crt), and the cluster reached with
// that kubeconfig answers /version with the minor.
const kubeconfigVersionID = "kubeconfig-version"

// kubeconfigVersionInput is what kubeconfig-version needs.
type kubeconfigVersionInput struct {
	// Cluster is the Ready cluster whose delivered kubeconfig is used; Minor the minor it
	// must answer with.
	Cluster, Minor string
}

// kubeconfigVersion is kubeconfig-version-<minor>; the kubeconfig that reached the cluster
// is node-zones' input.
func (r *run) kubeconfigVersion(ctx context.Context, minor string) bool {
	in := kubeconfigVersionInput{Cluster: r.ready[minor], Minor: minor}
	r.step(ctx, kubeconfigVersionID+"-"+minor, "the delivered kubeconfig reaches the cluster, which answers with Kubernetes "+minor, func(ctx context.Context) (string, bool, error) {
		kubeconfig, msg, err := r.answersMinor(ctx, in)
		if err == nil {
			r.kubeconfigs[minor] = kubeconfig
		}
		return msg, false, err
	})
	return true
}

// answersMinor reads the delivered kubeconfig and asks the cluster for its version.
func (r *run) answersMinor(ctx context.Context, in kubeconfigVersionInput) ([]byte, string, error) {
	name := in.Cluster
	kubeconfig, err := r.kubeconfig(ctx, name)
	if err != nil {
		return nil, "", err
	}
	w, err := r.kit.Connect(kubeconfig)
	if err != nil {
		return nil, "", fmt.Errorf("the kubeconfig of %s cannot be used: %v", name, err)
	}
	v, err := w.ServerVersion(ctx)
	if err != nil {
		return nil, "", fmt.Errorf("the cluster %s does not answer over its kubeconfig: %v", name, err)
	}
	got, err := model.ParseVersion(strings.TrimPrefix(strings.SplitN(v, "-", 2)[0], "v"))
	if err != nil {
		return nil, "", fmt.Errorf("the cluster %s answers with version %q, which is not a Kubernetes version", name, v)
	}
	if got.MinorString() != in.Minor {
		return nil, "", fmt.Errorf("the cluster %s answers with Kubernetes %s, not %s", name, v, in.Minor)
	}
	return kubeconfig, fmt.Sprintf("the kubeconfig in Secret %s reaches the cluster, which answers with %s", name+"-kubeconfig", v), nil
}

// kubeconfig reads the delivered kubeconfig and checks the keys of the kubeconfig contract.
func (r *run) kubeconfig(ctx context.Context, name string) ([]byte, error) {
	secret := name + "-kubeconfig"
	s, err := r.kit.Dynamic.Resource(SecretGVR).Namespace(r.kit.Options.Namespace).Get(ctx, secret, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading Secret %s: %s", secret, reasonOf(err))
	}
	var missing []string
	for _, k := range []string{"kubeconfig", "endpoint", "ca.crt"} {
		if v, _, _ := unstructured.NestedString(s.Object, "data", k); v == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("Secret %s lacks the keys %s of the kubeconfig contract", secret, strings.Join(missing, ", "))
	}
	encoded, _, _ := unstructured.NestedString(s.Object, "data", "kubeconfig")
	data, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		return nil, fmt.Errorf("Secret %s: key kubeconfig is not base64", secret)
	}
	return data, nil
}
