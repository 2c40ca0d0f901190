package backendsim

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// labelCluster is the label every native object carries with its composite's name.
const labelCluster = "kaas.scs.community/cluster"

// magnum plays provider-openstack and Magnum for the ClusterV1 ref names and its
// NodegroupV1s: each gets the status provider-openstack writes for a created Magnum
// cluster or node group, with the Kubernetes version of the cluster template it asks for
// and the workload's address; the ClusterV1 its connection secret with a kubeconfig.
func (s *Simulator) magnum(ctx context.Context, ref map[string]string) error {
	w := s.Workloads[BackendMagnum]
	if w == nil {
		return nil
	}
	gv, err := schema.ParseGroupVersion(ref["apiVersion"])
	if err != nil {
		return err
	}
	// The legacy kinds are cluster-scoped, the Crossplane v2 (.m.) kinds namespaced.
	scoped := func(r string) dynamic.ResourceInterface {
		ri := s.Crossplane.Dynamic.Resource(gv.WithResource(r))
		if ref["namespace"] != "" {
			return ri.Namespace(ref["namespace"])
		}
		return ri
	}
	clusters := scoped("clusterv1s")
	c, err := clusters.Get(ctx, ref["name"], metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil || c.GetDeletionTimestamp() != nil {
		return err
	}
	id, running, err := s.openStack.observe(ctx, clusters, c)
	if err != nil || id == "" {
		return err // not created yet, or observed and not there
	}
	s.recordSignIn(w, "clusterv1/"+ref["namespace"]+"/"+ref["name"], s.magnumSignIn(running))
	template := str(running, "spec", "forProvider", "clusterTemplateId")
	tags, err := s.magnumTemplates(ctx)
	if err != nil {
		return err
	}
	kubeTag, ok := tags[template]
	if !ok {
		return fmt.Errorf("ClusterV1 %s asks for cluster template %q, which no Magnum environment offers (templates: %s)", c.GetName(), template, sortedKeys(tags))
	}
	masters, found, _ := unstructured.NestedInt64(running.Object, "spec", "forProvider", "masterCount")
	if !found {
		masters = 1
	}
	atProvider := reported(running)
	for k, v := range map[string]any{"id": id, "apiAddress": w.URL, "coeVersion": kubeTag, "clusterTemplateId": template,
		"masterCount": masters, "nodeCount": nodeCount(running)} {
		atProvider[k] = v
	}
	if err := s.managedReady(ctx, clusters, c, atProvider); err != nil {
		return err
	}
	if err := s.connectionSecret(ctx, w, c); err != nil {
		return err
	}
	groups, err := scoped("nodegroupv1s").List(ctx, metav1.ListOptions{LabelSelector: labelCluster + "=" + c.GetLabels()[labelCluster]})
	if err != nil {
		return err
	}
	for i := range groups.Items {
		g := &groups.Items[i]
		if g.GetDeletionTimestamp() != nil {
			continue
		}
		id, running, err := s.openStack.observe(ctx, scoped("nodegroupv1s"), g)
		if err != nil {
			return err
		}
		if id == "" {
			continue
		}
		atProvider := reported(running)
		atProvider["id"], atProvider["nodeCount"] = id, nodeCount(running)
		err = s.managedReady(ctx, scoped("nodegroupv1s"), g, atProvider)
		if err != nil {
			return err
		}
	}
	return nil
}

// reported is what provider-openstack reports in status.atProvider of what runs: every
// parameter Magnum holds (its Terraform state), which the computed fields join.
func reported(running *unstructured.Unstructured) map[string]any {
	params, _, _ := unstructured.NestedMap(running.Object, "spec", "forProvider")
	if params == nil {
		params = map[string]any{}
	}
	return params
}

// StepMagnum plays provider-openstack once for a ClusterV1 that no SCSCluster names, such as
// one a platform made outside this API: apiVersion is the legacy or the namespaced group's,
// namespace empty for the legacy kind.
func (s *Simulator) StepMagnum(ctx context.Context, apiVersion, namespace, name string) error {
	return s.magnum(ctx, map[string]string{"apiVersion": apiVersion, "namespace": namespace, "name": name})
}

// managedReady writes atProvider and the Ready and Synced conditions of a managed resource
// whose observed state differs from them.
func (s *Simulator) managedReady(ctx context.Context, ri dynamic.ResourceInterface, mr *unstructured.Unstructured, atProvider map[string]any) error {
	current, _, _ := unstructured.NestedMap(mr.Object, "status", "atProvider")
	same := true
	for k, v := range atProvider {
		if fmt.Sprint(current[k]) != fmt.Sprint(v) {
			same = false
		}
	}
	if ready := conditionEntry(mr, "Ready"); same && ready != nil && ready["status"] == "True" {
		return nil
	}
	return applyStatus(ctx, ri, mr, map[string]any{
		"atProvider": atProvider,
		"conditions": []any{
			condition("Ready", "True", "Available", 0),
			condition("Synced", "True", "ReconcileSuccess", 0),
		},
	}, managerOpenStack)
}

// nodeCount is the size Magnum gives a cluster or node group: the fixed size asked for,
// else the autoscaler's starting size.
func nodeCount(mr *unstructured.Unstructured) int64 {
	for _, path := range [][]string{{"spec", "forProvider", "nodeCount"}, {"spec", "initProvider", "nodeCount"}, {"spec", "forProvider", "minNodeCount"}} {
		if n, found, _ := unstructured.NestedInt64(mr.Object, path...); found && n > 0 {
			return n
		}
	}
	return 1
}

// connectionSecret publishes the ClusterV1's connection secret as provider-openstack does:
// the kubeconfig Magnum returned, under the Terraform attribute's key.
func (s *Simulator) connectionSecret(ctx context.Context, w *Workload, c *unstructured.Unstructured) error {
	name := str(c, "spec", "writeConnectionSecretToRef", "name")
	if name == "" {
		return nil
	}
	namespace := str(c, "spec", "writeConnectionSecretToRef", "namespace")
	if namespace == "" {
		namespace = c.GetNamespace()
	}
	controller := true
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: namespace,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: c.GetAPIVersion(), Kind: c.GetKind(), Name: c.GetName(), UID: c.GetUID(), Controller: &controller}},
		},
		Type: "connection.crossplane.io/v1alpha1",
		Data: map[string][]byte{"attribute.kubeconfig.raw_config": w.AdminKubeconfig},
	}
	_, err := s.Crossplane.Kube.CoreV1().Secrets(namespace).Create(ctx, secret, metav1.CreateOptions{FieldManager: managerOpenStack})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// magnumTemplates maps the id of every cluster template the Magnum environments name to
// its Kubernetes version (kubeTag): what Magnum reports as a cluster's coeVersion.
func (s *Simulator) magnumTemplates(ctx context.Context) (map[string]string, error) {
	list, err := s.Crossplane.Dynamic.Resource(environmentGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	tags := map[string]string{}
	for _, e := range list.Items {
		templates, _, _ := unstructured.NestedSlice(e.Object, "data", "magnum", "templates")
		for _, t := range templates {
			m, _ := t.(map[string]any)
			id, _ := m["id"].(string)
			tag, _ := m["kubeTag"].(string)
			if id != "" && tag != "" {
				tags[id] = tag
			}
		}
	}
	return tags, nil
}

// openStack is what the stand-in's OpenStack holds: the Magnum clusters and node groups
// provider-openstack created, by UUID, and how many it was asked to create, so that a test
// sees a second cluster made for one that exists (docs/recovery.md).
type openStack struct {
	mu sync.Mutex
	// objects are what runs, by UUID: the managed resource as it was last applied (its
	// spec is what Magnum runs), which an observe-only resource reports.
	objects map[string]*unstructured.Unstructured
	creates map[string]int // kind -> creates
}

// externalNameAnnotation is where provider-openstack keeps the UUID of what it created.
const externalNameAnnotation = "crossplane.io/external-name"

// observe plays provider-openstack's reconcile of a ClusterV1 or NodegroupV1 and returns the
// UUID of what it manages ("" while there is none) and what runs, whose spec says what
// Magnum runs. Like the provider it finds a Magnum object by its external name only: one
// without (or with its own name, crossplane-runtime's default) is created, and the UUID
// written as its external name; one whose external name OpenStack does not hold is not
// there, and an observe-only one is not created, and changes nothing.
func (o *openStack) observe(ctx context.Context, ri dynamic.ResourceInterface, mr *unstructured.Unstructured) (string, *unstructured.Unstructured, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.objects == nil {
		o.objects, o.creates = map[string]*unstructured.Unstructured{}, map[string]int{}
	}
	id := mr.GetAnnotations()[externalNameAnnotation]
	switch {
	case id != "" && id != mr.GetName():
		running, exists := o.objects[id]
		if !exists {
			return "", nil, notThere(ctx, ri, mr)
		}
		if !observeOnly(mr) {
			o.objects[id] = mr.DeepCopy() // an update reaches Magnum
			running = o.objects[id]
		}
		return id, running, nil
	case observeOnly(mr):
		return "", nil, notThere(ctx, ri, mr)
	}
	id = string(mr.GetUID())
	patch := []byte(`{"metadata":{"annotations":{"` + externalNameAnnotation + `":"` + id + `"}}}`)
	if _, err := ri.Patch(ctx, mr.GetName(), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: managerOpenStack}); err != nil {
		return "", nil, err
	}
	o.objects[id] = mr.DeepCopy()
	o.creates[mr.GetKind()]++
	return id, o.objects[id], nil
}

// observeOnly says whether a managed resource's only management policy is Observe.
func observeOnly(mr *unstructured.Unstructured) bool {
	p, _, _ := unstructured.NestedStringSlice(mr.Object, "spec", "managementPolicies")
	return len(p) == 1 && p[0] == "Observe"
}

// notThere writes what crossplane-runtime writes of an observe-only resource whose external
// resource does not exist (errExternalResourceNotExist).
func notThere(ctx context.Context, ri dynamic.ResourceInterface, mr *unstructured.Unstructured) error {
	if c := conditionEntry(mr, "Synced"); c != nil && c["status"] == "False" {
		return nil
	}
	c := condition("Synced", "False", "ReconcileError", 0)
	c["message"] = "observe failed: external resource does not exist"
	return applyStatus(ctx, ri, mr, map[string]any{"conditions": []any{c}}, managerOpenStack)
}

// MagnumRunning is what the stand-in's OpenStack runs under UUID id, as its last ClusterV1
// or NodegroupV1 asked for it, with the UUID as its external name; nil if nothing runs
// under id. A test reads a Magnum cluster by it while no ClusterV1 names it.
func (s *Simulator) MagnumRunning(id string) *unstructured.Unstructured {
	s.openStack.mu.Lock()
	defer s.openStack.mu.Unlock()
	o := s.openStack.objects[id]
	if o == nil {
		return nil
	}
	out := o.DeepCopy()
	annotations := out.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[externalNameAnnotation] = id
	out.SetAnnotations(annotations)
	return out
}

// MagnumCreates is how many Magnum clusters (kind ClusterV1) or node groups (NodegroupV1)
// the stand-in's provider-openstack was asked to create so far.
func (s *Simulator) MagnumCreates(kind string) int {
	s.openStack.mu.Lock()
	defer s.openStack.mu.Unlock()
	return s.openStack.creates[kind]
}
