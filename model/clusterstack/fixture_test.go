package clusterstack

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/providerkubernetes"
)

func environment(managementCluster string) *model.Environment {
	return &model.Environment{Name: "capi", ConfigName: "clusterstack-regionone", Environment: envv1alpha1.Environment{
		Backend: kaasv1alpha1.BackendClusterStack,
		Region:  "RegionOne",
		Catalog: envv1alpha1.Catalog{KubernetesVersions: []string{"1.33", "1.34", "1.35"}, Zones: []string{"az1", "az2", "az3"}},
		Defaults: envv1alpha1.Defaults{
			Network: kaasv1alpha1.NetworkSpec{NodeCIDR: "10.8.0.0/20"},
		},
		ClusterStack: &envv1alpha1.ClusterStack{
			ManagementCluster: managementCluster, Namespace: "kaas-team1", Provider: "openstack", Stack: "scs2",
			VariableNames: map[string]string{
				"workerFlavor": "workerFlavor", "workerRootDisk": "workerRootDisk",
				"nodeCIDR": "nodeCIDR", "controlPlaneAvailabilityZones": "controlPlaneAvailabilityZones",
			},
			Variables: map[string]json.RawMessage{
				"networkExternalID": json.RawMessage(`"ebfe5546-f09f-4f42-ab54-094e457d42ec"`),
				"identityRef":       json.RawMessage(`{"name":"openstack","cloudName":"openstack"}`),
			},
			ClusterLabels:    map[string]string{"managed-secret": "clouds-yaml"},
			TaintPropagation: true,
		},
	}}
}

func spec() kaasv1alpha1.ClusterSpec {
	return kaasv1alpha1.ClusterSpec{
		Purpose:    kaasv1alpha1.PurposeProduction,
		Kubernetes: kaasv1alpha1.KubernetesSpec{Version: "1.34"},
		Network:    &kaasv1alpha1.NetworkSpec{PodCIDR: "192.168.0.0/16", ServiceCIDR: "10.96.0.0/12"},
		NodePools: []kaasv1alpha1.NodePool{
			{
				Name: "system", MachineType: "SCS-4V-8", Count: ptrTo[int32](4),
				Labels: map[string]string{"node-role.kubernetes.io/system": "", "node.scs.community/pool": "system"},
				Taints: []kaasv1alpha1.Taint{{Key: "node.scs.community/system", Value: "true", Effect: "NoSchedule"}},
			},
			{
				Name: "general", MachineType: "SCS-8V-32", Autoscaling: &kaasv1alpha1.Autoscaling{Min: 1, Max: 5},
				Zones: []string{"az1", "az2"}, RootDiskGiB: ptrTo[int32](100),
			},
		},
	}
}

func releaseObject(name, version string, ready bool) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": releaseAPIVersion, "kind": releaseKind,
		"metadata": map[string]any{"name": name, "namespace": "kaas-team1"},
		"status":   map[string]any{"kubernetesVersion": version, "ready": ready},
	}}
}

// standardReleases are what the Cluster Stack operator offers in the tests.
func standardReleases() []*unstructured.Unstructured {
	return []*unstructured.Unstructured{
		releaseObject("openstack-scs2-1-33-v4", "v1.33.9", true),
		releaseObject("openstack-scs2-1-34-v2", "v1.34.6", true),
		releaseObject("openstack-scs2-1-34-v10", "v1.34.8", true),
		releaseObject("openstack-scs2-1-34-v3", "v1.34.7", true),
		releaseObject("openstack-scs2-1-35-v1", "v1.35.1", false),
		releaseObject("openstack-scs-1-34-v1", "v1.34.2", true),
	}
}

// request builds a request as Reconcile would: defaulted spec, releases fetched; for a
// remote management cluster the releases arrive wrapped in observe-only Objects.
func request(s kaasv1alpha1.ClusterSpec, env *model.Environment, releases []*unstructured.Unstructured, observed *clusterv1.Cluster) *model.Request {
	xr := &kaasv1alpha1.XSCSCluster{Spec: model.Default(s, env, nil)}
	xr.Name = "shop-9q8rz"
	req := &model.Request{Cluster: xr, NativeName: xr.Name, Environment: env, Observed: map[string]model.ObservedResource{},
		Required: map[string][]*unstructured.Unstructured{}, Options: model.Options{ConnectionSecretNamespace: "crossplane-system"}}
	for _, r := range releases {
		if env.ClusterStack.ManagementCluster != "local" {
			o := providerkubernetes.Wrap(map[string]any{}, providerkubernetes.WrapOptions{Name: r.GetName(), ProviderConfigName: "capi-mgmt", ObserveOnly: true})
			o.Object["status"] = map[string]any{"atProvider": map[string]any{"manifest": r.Object}}
			r = o
		}
		req.Required[RequirementReleases] = append(req.Required[RequirementReleases], r)
	}
	if releases != nil && req.Required[RequirementReleases] == nil {
		req.Required[RequirementReleases] = []*unstructured.Unstructured{}
	}
	if observed != nil {
		observed.APIVersion, observed.Kind = clusterAPIVersion, clusterKind
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(observed)
		if err != nil {
			panic(err)
		}
		u := &unstructured.Unstructured{Object: m}
		if env.ClusterStack.ManagementCluster != "local" {
			u = providerkubernetes.Wrap(map[string]any{}, providerkubernetes.WrapOptions{Name: "shop-9q8rz-cluster", ProviderConfigName: env.ClusterStack.ManagementCluster})
			u.Object["status"] = map[string]any{"atProvider": map[string]any{"manifest": m}}
		}
		req.Observed[ResourceCluster] = model.ObservedResource{Object: u}
	}
	return req
}

// existingCluster is a Cluster as Cluster API keeps it on release openstack-scs2-1-34-v2.
func existingCluster() *clusterv1.Cluster {
	c := &clusterv1.Cluster{}
	c.Name, c.Namespace, c.Generation = "shop-9q8rz", "kaas-team1", 2
	c.Spec.Topology.ClassRef.Name = "openstack-scs2-1-34-v2"
	c.Spec.Topology.Version = "v1.34.6"
	c.Spec.Topology.ControlPlane.Replicas = ptrTo[int32](3)
	c.Spec.ClusterNetwork.Pods.CIDRBlocks = []string{"192.168.0.0/16"}
	c.Spec.ClusterNetwork.Services.CIDRBlocks = []string{"10.96.0.0/12"}
	return c
}

const testKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: shop
  cluster:
    server: https://203.0.113.10:6443
    certificate-authority-data: ` + "Q0EtUEVN" + `
contexts:
- name: admin@shop
  context: {cluster: shop, user: admin}
current-context: admin@shop
users:
- name: admin
  user: {token: not-a-real-token}
`

func kubeconfigSecret() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "shop-9q8rz-kubeconfig", "namespace": "kaas-team1"},
		"data":     map[string]any{"value": base64.StdEncoding.EncodeToString([]byte(testKubeconfig))},
	}}
}

// renderedCluster renders and decodes the Cluster, inside its Object or not.
func renderedCluster(t *testing.T, req *model.Request) (*clusterv1.Cluster, *model.Rendering) {
	t.Helper()
	r, err := renderOf(req)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	for _, res := range r.Resources {
		if res.Name != ResourceCluster {
			continue
		}
		m := res.Object.Object
		if providerkubernetes.IsObject(res.Object) {
			m, _, _ = unstructured.NestedMap(m, "spec", "forProvider", "manifest")
		}
		if _, ok := m["status"]; ok {
			t.Errorf("the rendered Cluster carries a status")
		}
		c := &clusterv1.Cluster{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(m, c, true); err != nil {
			t.Fatalf("the rendered Cluster does not decode: %v", err)
		}
		return c, r
	}
	t.Fatalf("no %s rendered: %+v", ResourceCluster, r.Resources)
	return nil, nil
}
