package controlplane

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Cluster API runs for real: the core manager (with the topology controller), the kubeadm
// control plane manager (KCP) and the kubeadm bootstrap manager (CABPK), v1.14, as local
// processes with their conversion and admission webhooks wired into the API server, and
// the OpenStack provider's CRDs so that the Cluster Stack's templates exist. No OpenStack
// controller runs: tests write what it would (see test/e2e/capisim).

// capiComponent is one Cluster API manager and the CRDs and webhooks it serves.
type capiComponent struct {
	name    string // process suffix and webhook configuration prefix
	binary  string
	crdDir  string // under the cluster-api tool's crds/
	webhook string // under the cluster-api tool's webhooks/
	// contract labels its CRDs need: template references are resolved through them
	// (the core CRDs need none).
	contract map[string]string
	// provider is its name as clusterctl init labels its CRDs.
	provider string
}

var capiComponents = []capiComponent{
	{name: "capi-core", binary: "capi-manager", crdDir: "core", webhook: "core.yaml", provider: "cluster-api"},
	{name: "capi-kubeadm-control-plane", binary: "kubeadm-control-plane-manager", crdDir: "controlplane", webhook: "controlplane.yaml", provider: "control-plane-kubeadm",
		contract: map[string]string{"cluster.x-k8s.io/v1beta1": "v1beta1", "cluster.x-k8s.io/v1beta2": "v1beta2"}},
	{name: "capi-kubeadm-bootstrap", binary: "kubeadm-bootstrap-manager", crdDir: "bootstrap", webhook: "bootstrap.yaml", provider: "bootstrap-kubeadm",
		contract: map[string]string{"cluster.x-k8s.io/v1beta1": "v1beta1", "cluster.x-k8s.io/v1beta2": "v1beta2"}},
}

// capoContract is the label the OpenStack provider's CRDs need (it implements the v1beta1
// contract, which the v1beta2 core accepts).
var capoContract = map[string]string{"cluster.x-k8s.io/v1beta1": "v1beta1"}

// capiFeatureGates are the same for all three managers: the topology controller is still
// alpha in v1.14, and KCP's template webhook refuses templates without it; the Cluster
// Stacks environments propagate pool taints to Machines.
const capiFeatureGates = "ClusterTopology=true,MachineTaintPropagation=true"

// StartClusterAPI makes c a Cluster API management cluster: CRDs (with conversion webhooks
// and contract labels), the three managers, then their admission webhooks. It returns when
// every manager answers /readyz; from then on every write of a Cluster API kind goes through
// the managers' webhooks (failurePolicy Fail), so they must outlive what uses them.
func (e *Env) StartClusterAPI(ctx context.Context, c *Cluster) error {
	start := time.Now()
	ca, err := newCA("cluster-api-webhook-ca-" + c.Name)
	if err != nil {
		return err
	}
	kp, err := ca.issue(certSpec{cn: "cluster-api-webhook", server: true})
	if err != nil {
		return err
	}
	tlsDir := filepath.Join(e.RunDir, c.Name, "cluster-api", "tls")
	if err := writeTLSDir(tlsDir, ca, kp); err != nil {
		return err
	}
	ports, err := freePorts(2 * len(capiComponents))
	if err != nil {
		return err
	}
	webhookPort := func(i int) int { return ports[2*i] }
	healthPort := func(i int) int { return ports[2*i+1] }

	var crds []*unstructured.Unstructured
	for i, comp := range capiComponents {
		objs, err := ReadManifests(filepath.Join(e.tools.ClusterAPIDir, "crds", comp.crdDir))
		if err != nil {
			return err
		}
		url := "https://127.0.0.1:" + strconv.Itoa(webhookPort(i)) + "/convert"
		for _, o := range objs {
			if err := withConversionWebhook(o, url, ca.certPEM); err != nil {
				return err
			}
			addLabels(o, comp.contract)
			addLabels(o, clusterctlLabels(comp.provider))
		}
		crds = append(crds, objs...)
	}
	capo, err := ReadManifests(filepath.Join(e.tools.ClusterAPIOpenStackDir, "crds"))
	if err != nil {
		return err
	}
	for _, o := range capo {
		addLabels(o, capoContract)
		addLabels(o, clusterctlLabels("infrastructure-openstack"))
	}
	crds = append(crds, capo...)
	// Server-side: the CRDs are 3 MB, past client-side apply's annotation limit.
	if err := c.ApplyObjects(ctx, crds...); err != nil {
		return fmt.Errorf("Cluster API CRDs: %w", err)
	}
	if err := e.waitCRDsEstablished(ctx, c, crds); err != nil {
		return err
	}

	for i, comp := range capiComponents {
		name := c.Name + "-" + comp.name
		readyz := "http://127.0.0.1:" + strconv.Itoa(healthPort(i)) + "/readyz"
		err := e.StartProcess(ctx, name, filepath.Join(e.tools.ClusterAPIDir, comp.binary), []string{
			"--kubeconfig=" + c.Kubeconfig,
			"--leader-elect=false",
			"--webhook-port=" + strconv.Itoa(webhookPort(i)),
			"--webhook-cert-dir=" + tlsDir,
			"--health-addr=127.0.0.1:" + strconv.Itoa(healthPort(i)),
			"--diagnostics-address=0",
			"--feature-gates=" + capiFeatureGates,
		}, nil, 2*time.Minute, HTTPOK(nil, readyz))
		if err != nil {
			return err
		}
	}

	var webhooks []*unstructured.Unstructured
	for i, comp := range capiComponents {
		objs, err := ReadManifests(filepath.Join(e.tools.ClusterAPIDir, "webhooks", comp.webhook))
		if err != nil {
			return err
		}
		for _, o := range objs {
			if err := toLocalWebhooks(o, comp.name, "https://127.0.0.1:"+strconv.Itoa(webhookPort(i)), ca.certPEM); err != nil {
				return err
			}
		}
		webhooks = append(webhooks, objs...)
	}
	if err := c.ApplyObjects(ctx, webhooks...); err != nil {
		return fmt.Errorf("Cluster API webhooks: %w", err)
	}
	e.logf("Cluster API %s runs against %s (%d CRDs, %d webhook configurations) in %.1fs", CAPIVersion, c.Name, len(crds), len(webhooks), time.Since(start).Seconds())
	return nil
}

// startManagementCluster brings up a remote Cluster API management cluster: its own etcd
// and kube-apiserver, Cluster API, a kube-controller-manager (Cluster API's deletion relies
// on garbage collection), and provider-kubernetes' provider configs for it, named name.
func (e *Env) startManagementCluster(ctx context.Context, name string) error {
	c, err := e.startCluster(ctx, name, clusterOptions{})
	if err != nil {
		return err
	}
	e.Management = c
	if err := e.StartClusterAPI(ctx, c); err != nil {
		return err
	}
	return e.startControllerManager(ctx, c)
}

// withConversionWebhook points a multi-version CRD's conversion at a local manager: the
// shipped CRDs carry none (kustomize and cert-manager add a Service-based one).
func withConversionWebhook(crd *unstructured.Unstructured, url string, caPEM []byte) error {
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	if len(versions) < 2 {
		return nil
	}
	conv, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&apiextensionsv1.CustomResourceConversion{
		Strategy: apiextensionsv1.WebhookConverter,
		Webhook: &apiextensionsv1.WebhookConversion{
			ConversionReviewVersions: []string{"v1"},
			ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: caPEM},
		},
	})
	if err != nil {
		return err
	}
	return unstructured.SetNestedField(crd.Object, conv, "spec", "conversion")
}

// clusterctlLabels are the labels clusterctl init puts on a provider's CRDs: clusterctl
// move discovers the kinds it backs up and restores by them.
func clusterctlLabels(provider string) map[string]string {
	return map[string]string{"clusterctl.cluster.x-k8s.io": "", "cluster.x-k8s.io/provider": provider}
}

func addLabels(o *unstructured.Unstructured, labels map[string]string) {
	if len(labels) == 0 {
		return
	}
	l := o.GetLabels()
	if l == nil {
		l = map[string]string{}
	}
	for k, v := range labels {
		l[k] = v
	}
	o.SetLabels(l)
}

// toLocalWebhooks renames a manager's webhook configuration (all three call theirs
// mutating-/validating-webhook-configuration) and sends its webhooks to the local port
// instead of an in-cluster Service.
func toLocalWebhooks(o *unstructured.Unstructured, prefix, base string, caPEM []byte) error {
	kind := o.GetKind()
	if kind != "MutatingWebhookConfiguration" && kind != "ValidatingWebhookConfiguration" {
		return fmt.Errorf("unexpected %s %s among Cluster API's webhook manifests", kind, o.GetName())
	}
	o.SetName(prefix + "-" + o.GetName())
	hooks, _, _ := unstructured.NestedSlice(o.Object, "webhooks")
	for i, h := range hooks {
		hook := h.(map[string]any)
		path, _, _ := unstructured.NestedString(hook, "clientConfig", "service", "path")
		if path == "" || !strings.HasPrefix(path, "/") {
			return fmt.Errorf("%s %s: webhook %v has no service path", kind, o.GetName(), hook["name"])
		}
		url := base + path
		cc, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: caPEM})
		if err != nil {
			return err
		}
		hook["clientConfig"] = cc
		hooks[i] = hook
	}
	return unstructured.SetNestedSlice(o.Object, hooks, "webhooks")
}
