package backendsim

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
	s.recordSignIn(w, "clusterv1/"+ref["namespace"]+"/"+ref["name"], s.magnumSignIn(c))
	template := str(c, "spec", "forProvider", "clusterTemplateId")
	tags, err := s.magnumTemplates(ctx)
	if err != nil {
		return err
	}
	kubeTag, ok := tags[template]
	if !ok {
		return fmt.Errorf("ClusterV1 %s asks for cluster template %q, which no Magnum environment offers (templates: %s)", c.GetName(), template, sortedKeys(tags))
	}
	masters, found, _ := unstructured.NestedInt64(c.Object, "spec", "forProvider", "masterCount")
	if !found {
		masters = 1
	}
	if err := s.managedReady(ctx, clusters, c, map[string]any{
		"id": string(c.GetUID()), "apiAddress": w.URL, "coeVersion": kubeTag, "clusterTemplateId": template,
		"masterCount": masters, "nodeCount": nodeCount(c),
	}); err != nil {
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
		err := s.managedReady(ctx, scoped("nodegroupv1s"), g, map[string]any{
			"id": string(g.GetUID()), "clusterId": str(g, "spec", "forProvider", "clusterId"), "nodeCount": nodeCount(g),
		})
		if err != nil {
			return err
		}
	}
	return nil
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
