package gardener

import (
	"testing"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/providerkubernetes"
)

func environment() *model.Environment {
	return &model.Environment{Name: "regionone", ConfigName: "gardener-regionone", Environment: envv1alpha1.Environment{
		Backend: kaasv1alpha1.BackendGardener,
		Region:  "RegionOne",
		Catalog: envv1alpha1.Catalog{KubernetesVersions: []string{"1.33", "1.34", "1.35"}, Zones: []string{"az1", "az2", "az3"}},
		Defaults: envv1alpha1.Defaults{
			Network:     kaasv1alpha1.NetworkSpec{NodeCIDR: "10.250.0.0/16", CNI: kaasv1alpha1.CNICalico},
			Maintenance: kaasv1alpha1.MaintenanceSpec{Window: &kaasv1alpha1.MaintenanceWindow{Begin: "220000+0000", End: "230000+0000"}},
		},
		Gardener: &envv1alpha1.Gardener{
			GardenCluster: "garden", Project: "team1", CloudProfile: "openstack",
			CredentialsBindingName: "openstack-credentials", FloatingPoolName: "ext-net", LoadBalancerProvider: "amphora",
		},
	}}
}

// fullSpec sets every portable field.
func fullSpec() kaasv1alpha1.ClusterSpec {
	return kaasv1alpha1.ClusterSpec{
		Purpose:            kaasv1alpha1.PurposeProduction,
		Kubernetes:         kaasv1alpha1.KubernetesSpec{Version: "1.34"},
		ControlPlane:       kaasv1alpha1.ControlPlaneSpec{HighAvailability: ptrTo(true)},
		DeletionProtection: ptrTo(false),
		Network:            &kaasv1alpha1.NetworkSpec{NodeCIDR: "10.250.0.0/16", PodCIDR: "100.64.0.0/12", ServiceCIDR: "100.80.0.0/13", CNI: kaasv1alpha1.CNICilium},
		Maintenance: &kaasv1alpha1.MaintenanceSpec{
			Window:     &kaasv1alpha1.MaintenanceWindow{Begin: "010000+0100", End: "040000+0100"},
			AutoUpdate: &kaasv1alpha1.AutoUpdate{KubernetesPatch: ptrTo(true), MachineImage: ptrTo(false)},
		},
		Hibernation: &kaasv1alpha1.HibernationSpec{
			Enabled:   ptrTo(false),
			Schedules: []kaasv1alpha1.HibernationSchedule{{Start: "0 20 * * 1-5", End: "0 7 * * 1-5", Location: "Europe/Berlin"}},
		},
		NodePools: []kaasv1alpha1.NodePool{
			{
				Name: "system", MachineType: "SCS-4V-8", Count: ptrTo[int32](3), Zones: []string{"az1", "az2", "az3"},
				Labels: map[string]string{"node.scs.community/pool": "system"},
				Taints: []kaasv1alpha1.Taint{{Key: "node.scs.community/system", Value: "true", Effect: "NoSchedule"}},
			},
			{
				Name: "general", MachineType: "SCS-8V-32", Autoscaling: &kaasv1alpha1.Autoscaling{Min: 1, Max: 9}, Zones: []string{"az1"},
				RootDiskGiB: ptrTo[int32](100), MaxSurge: ptrTo(intstr.FromString("25%")), MaxUnavailable: ptrTo(intstr.FromInt32(0)),
			},
		},
	}
}

func request(spec kaasv1alpha1.ClusterSpec, env *model.Environment, observed *gardencorev1beta1.Shoot) *model.Request {
	xr := &kaasv1alpha1.XSCSCluster{Spec: model.Default(spec, env, nil)}
	xr.Name = "shop-x7k2p"
	req := &model.Request{Cluster: xr, NativeName: xr.Name, Environment: env, Observed: map[string]model.ObservedResource{}}
	if observed != nil {
		req.Observed[ResourceShoot] = model.ObservedResource{Object: observedObject(observed)}
	}
	return req
}

// observedObject wraps a Shoot the way provider-kubernetes reports it: the Object with the
// Shoot as observed under status.atProvider.manifest.
func observedObject(shoot *gardencorev1beta1.Shoot) *unstructured.Unstructured {
	shoot.APIVersion, shoot.Kind = shootAPIVersion, shootKind
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(shoot)
	if err != nil {
		panic(err)
	}
	o := providerkubernetes.Wrap(map[string]any{}, providerkubernetes.WrapOptions{Name: "shop-x7k2p-shoot", ProviderConfigName: "garden"})
	o.Object["status"] = map[string]any{"atProvider": map[string]any{"manifest": m}}
	return o
}

// existingShoot is a Shoot as Gardener keeps it after creating fullSpec: patch version,
// failure tolerance, machine images and namespace filled in.
func existingShoot() *gardencorev1beta1.Shoot {
	s := &gardencorev1beta1.Shoot{}
	s.Name, s.Namespace, s.Generation = "shop-x7k2p", "garden-team1", 3
	s.Spec.Region = "RegionOne"
	s.Spec.Kubernetes.Version = "1.34.5"
	s.Spec.Networking = &gardencorev1beta1.Networking{Type: ptrTo("cilium"), Nodes: ptrTo("10.250.0.0/16"), Pods: ptrTo("100.64.0.0/12"), Services: ptrTo("100.80.0.0/13")}
	s.Spec.ControlPlane = &gardencorev1beta1.ControlPlane{HighAvailability: &gardencorev1beta1.HighAvailability{
		FailureTolerance: gardencorev1beta1.FailureTolerance{Type: gardencorev1beta1.FailureToleranceTypeNode}}}
	s.Spec.Provider.Workers = []gardencorev1beta1.Worker{
		{Name: "system", Minimum: 3, Maximum: 3, Zones: []string{"az1", "az2", "az3"},
			Machine: gardencorev1beta1.Machine{Type: "SCS-4V-8", Image: &gardencorev1beta1.ShootMachineImage{Name: "gardenlinux", Version: ptrTo("1877.3.0")}}},
		{Name: "general", Minimum: 1, Maximum: 9, Zones: []string{"az1"},
			Machine: gardencorev1beta1.Machine{Type: "SCS-8V-32", Image: &gardencorev1beta1.ShootMachineImage{Name: "gardenlinux", Version: ptrTo("1877.3.0")}}},
	}
	return s
}

// healthyStatus is the status Gardener writes once the Shoot is reconciled and healthy.
func healthyStatus(s *gardencorev1beta1.Shoot) {
	s.Status.ObservedGeneration = s.Generation
	s.Status.LastOperation = &gardencorev1beta1.LastOperation{Type: gardencorev1beta1.LastOperationTypeReconcile, State: gardencorev1beta1.LastOperationStateSucceeded, Progress: 100}
	for _, t := range healthConditions {
		s.Status.Conditions = append(s.Status.Conditions, gardencorev1beta1.Condition{Type: t, Status: gardencorev1beta1.ConditionTrue})
	}
	s.Status.AdvertisedAddresses = []gardencorev1beta1.ShootAdvertisedAddress{
		{Name: "internal", URL: "https://api.shop-x7k2p.team1.internal.example"},
		{Name: "external", URL: "https://api.shop-x7k2p.team1.example"},
	}
}

// renderedShoot renders and decodes the Shoot, inside its Object or not.
func renderedShoot(t *testing.T, req *model.Request) (*gardencorev1beta1.Shoot, *unstructured.Unstructured) {
	t.Helper()
	r, err := renderOf(req)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	// The AdminKubeconfig follows once the Shoot advertises its API server.
	if len(r.Resources) == 0 || r.Resources[0].Name != ResourceShoot ||
		len(r.Resources) > 2 || (len(r.Resources) == 2 && r.Resources[1].Name != ResourceKubeconfig) {
		t.Fatalf("want the resources %s (and %s), got %+v", ResourceShoot, ResourceKubeconfig, r.Resources)
	}
	obj := r.Resources[0].Object
	m := obj.Object
	if providerkubernetes.IsObject(obj) {
		m = obj.Object["spec"].(map[string]any)["forProvider"].(map[string]any)["manifest"].(map[string]any)
	}
	if _, ok := m["status"]; ok {
		t.Errorf("the rendered Shoot carries a status: %v", m["status"])
	}
	s := &gardencorev1beta1.Shoot{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(m, s, true); err != nil {
		t.Fatalf("the rendered manifest is not a valid Shoot: %v", err)
	}
	return s, obj
}

const testKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: shoot--team1--shop-x7k2p
  cluster: {server: "https://api.shop-x7k2p.team1.example", certificate-authority-data: Q0E=}
contexts:
- name: admin
  context: {cluster: shoot--team1--shop-x7k2p, user: admin}
current-context: admin
users:
- name: admin
  user: {token: not-a-real-token}
`

// withKubeconfig adds the connection details provider-gardener-kubeconfig publishes.
func withKubeconfig(req *model.Request) *model.Request {
	req.Observed[ResourceKubeconfig] = model.ObservedResource{
		Object:            adminKubeconfig(req, "garden-team1", req.Cluster.Name).Object,
		ConnectionDetails: map[string][]byte{"kubeconfig": []byte(testKubeconfig), "endpoint": []byte("https://api.shop-x7k2p.team1.example"), "ca.crt": []byte("CA")},
	}
	return req
}
