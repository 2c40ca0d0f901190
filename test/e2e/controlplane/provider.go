package controlplane

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// GardenKubeconfigSecret holds the garden cluster's kubeconfig (key
// "kubeconfig") in CrossplaneNamespace, for provider-kubernetes.
const GardenKubeconfigSecret = "garden-kubeconfig"

// installProviderCRDs installs provider-kubernetes' CRDs. The Object CRD
// converts v1alpha1 <-> v1alpha2 through the provider's webhook, which the
// shipped CRD reaches through an in-cluster Service; here it is a local port.
func (e *Env) installProviderCRDs(ctx context.Context) error {
	objs, err := ReadManifests(filepath.Join(e.tools.ProviderKubernetesDir, "crds"))
	if err != nil {
		return err
	}
	webhookURL := "https://127.0.0.1:" + strconv.Itoa(e.providerWebhookPort) + "/convert"
	for _, o := range objs {
		strategy, _, _ := unstructured.NestedString(o.Object, "spec", "conversion", "strategy")
		if strategy != string(apiextensionsv1.WebhookConverter) {
			continue
		}
		// Converted from the typed API so that caBundle ([]byte) is base64 encoded.
		cc, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&apiextensionsv1.WebhookClientConfig{
			URL: &webhookURL, CABundle: e.providerCA.certPEM,
		})
		if err != nil {
			return err
		}
		if err := unstructured.SetNestedField(o.Object, cc, "spec", "conversion", "webhook", "clientConfig"); err != nil {
			return err
		}
	}
	if err := e.Crossplane.ApplyObjects(ctx, objs...); err != nil {
		return err
	}
	return e.waitCRDsEstablished(ctx, e.Crossplane, objs)
}

// waitCRDsEstablished waits for the Established condition of the CRDs among objs and then
// for the API server's discovery to list each of their served versions. Established comes
// a moment before the group list controllers map kinds with (/apis, filled in
// asynchronously): a controller started in between fails at once with "no matches for
// kind" (Flux's source-controller did so in CI).
func (e *Env) waitCRDsEstablished(ctx context.Context, c *Cluster, objs []*unstructured.Unstructured) error {
	var crds []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() != "CustomResourceDefinition" {
			continue
		}
		name := o.GetName()
		err := waitFor(ctx, 60*time.Second, "CRD "+name+" Established", nil, func(ctx context.Context) (bool, error) {
			crd, err := c.Get(ctx, "apiextensions.k8s.io/v1", "CustomResourceDefinition", "", name)
			if err != nil {
				return false, err
			}
			if !conditionTrue(crd, "Established") {
				return false, nil
			}
			crds = append(crds, crd)
			return true, nil
		})
		if err != nil {
			return err
		}
	}
	if len(crds) > 0 {
		err := waitFor(ctx, 60*time.Second, fmt.Sprintf("%d CRDs in the API server's discovery", len(crds)), nil, func(context.Context) (bool, error) {
			missing, err := undiscovered(c, crds)
			if len(missing) == 0 {
				return true, nil
			}
			return false, fmt.Errorf("not listed yet: %s (%v)", strings.Join(missing, ", "), err)
		})
		if err != nil {
			return err
		}
	}
	c.Mapper.Reset()
	return nil
}

// undiscovered lists the served versions of crds (group/version/plural) that the API
// server's discovery does not list yet, as a controller's REST mapper reads it.
func undiscovered(c *Cluster, crds []*unstructured.Unstructured) ([]string, error) {
	// A group some other server fails to serve is reported in err; the lists still hold
	// every group that was discovered.
	_, lists, err := c.Client.Discovery().ServerGroupsAndResources()
	listed := map[string]bool{}
	for _, l := range lists {
		for _, r := range l.APIResources {
			listed[l.GroupVersion+"/"+r.Name] = true
		}
	}
	var missing []string
	for _, crd := range crds {
		group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
		plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
		versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
		for _, v := range versions {
			version, _ := v.(map[string]any)
			if served, _ := version["served"].(bool); !served {
				continue
			}
			if key := group + "/" + fmt.Sprint(version["name"]) + "/" + plural; !listed[key] {
				missing = append(missing, key)
			}
		}
	}
	return missing, err
}

// startProvider runs provider-kubernetes as a local process against the
// Crossplane cluster. It always serves its conversion webhook (and exits
// without a certificate); leader election needs an in-cluster namespace, so
// it runs alone without it. Watches make Objects Ready ~0.1 s after the
// garden object changes instead of on the 30 s recheck.
func (e *Env) startProvider(ctx context.Context) error {
	ports, err := freePorts(2)
	if err != nil {
		return err
	}
	p, err := e.startProcess("provider-kubernetes", e.tools.provider(), []string{
		"--debug",
		"--enable-watches",
		"--poll=" + e.opts.PollInterval.String(),
		"--webhook-port=" + strconv.Itoa(e.providerWebhookPort),
		"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(ports[0]),
		"--health-probe-bind-addr=127.0.0.1:" + strconv.Itoa(ports[1]),
	}, []string{
		"KUBECONFIG=" + e.Crossplane.Kubeconfig,
		"TLS_SERVER_CERTS_DIR=" + e.providerTLSDir(),
		"LEADER_ELECTION=false",
	})
	if err != nil {
		return err
	}
	url := "http://127.0.0.1:" + strconv.Itoa(ports[1]) + "/readyz"
	return waitFor(ctx, 120*time.Second, "provider-kubernetes /readyz", p.exited, HTTPOK(nil, url))
}

func (e *Env) providerTLSDir() string { return filepath.Join(e.RunDir, "provider-kubernetes", "tls") }

// setupProviderTLS makes the webhook serving certificate; its CA goes into
// the CRD's caBundle.
func (e *Env) setupProviderTLS() error {
	var err error
	if e.providerCA, err = newCA("provider-kubernetes-webhook-ca"); err != nil {
		return err
	}
	kp, err := e.providerCA.issue(certSpec{cn: "provider-kubernetes-webhook", server: true})
	if err != nil {
		return err
	}
	return writeTLSDir(e.providerTLSDir(), e.providerCA, kp)
}

// configureProvider stores the garden kubeconfig in a Secret and points both
// kinds of provider config at it: ProviderConfig (kubernetes.crossplane.io,
// for cluster-scoped Objects) and ClusterProviderConfig
// (kubernetes.m.crossplane.io, for namespaced Objects), both named
// Options.ProviderConfigName.
func (e *Env) configureProvider(ctx context.Context) error {
	return e.providerConfigsFor(ctx, e.Garden, e.opts.ProviderConfigName, GardenKubeconfigSecret)
}

// providerConfigsFor lets provider-kubernetes reach cluster c: its admin kubeconfig in the
// Secret secretName of CrossplaneNamespace, and a ProviderConfig and a
// ClusterProviderConfig named name that use it.
func (e *Env) providerConfigsFor(ctx context.Context, c *Cluster, name, secretName string) error {
	kubeconfig, err := os.ReadFile(c.Kubeconfig)
	if err != nil {
		return err
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: secretName, Namespace: CrossplaneNamespace},
		Data:       map[string][]byte{"kubeconfig": kubeconfig},
	}
	secrets := e.Crossplane.Client.CoreV1().Secrets(CrossplaneNamespace)
	if _, err := secrets.Create(ctx, secret, metav1.CreateOptions{}); apierrors.IsAlreadyExists(err) {
		_, err = secrets.Update(ctx, secret, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	creds := map[string]any{
		"source": "Secret",
		"secretRef": map[string]any{
			"namespace": CrossplaneNamespace, "name": secretName, "key": "kubeconfig",
		},
	}
	var objs []*unstructured.Unstructured
	for _, gvk := range [][2]string{
		{"kubernetes.crossplane.io/v1alpha1", "ProviderConfig"},
		{"kubernetes.m.crossplane.io/v1alpha1", "ClusterProviderConfig"},
	} {
		objs = append(objs, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": gvk[0], "kind": gvk[1],
			"metadata": map[string]any{"name": name},
			"spec":     map[string]any{"credentials": creds},
		}})
	}
	return e.Crossplane.ApplyObjects(ctx, objs...)
}
