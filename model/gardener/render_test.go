package gardener

import (
	"encoding/json"
	"strings"
	"testing"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// TestRenderMapsEveryPortableField writes down, field by field, the Shoot the backend
// must render for a spec that sets every portable field (docs/capabilities.md).
func TestRenderMapsEveryPortableField(t *testing.T) {
	got, _ := renderedShoot(t, request(fullSpec(), environment(), nil))

	purpose := gardencorev1beta1.ShootPurposeProduction
	want := &gardencorev1beta1.Shoot{}
	want.APIVersion, want.Kind = "core.gardener.cloud/v1beta1", "Shoot"
	want.Name, want.Namespace = "shop-x7k2p", "garden-team1"
	want.Labels = map[string]string{"kaas.scs.community/cluster": "shop-x7k2p"}
	want.Annotations = map[string]string{"confirmation.gardener.cloud/deletion": "true"}
	want.Spec = gardencorev1beta1.ShootSpec{
		CloudProfile:           &gardencorev1beta1.CloudProfileReference{Kind: "CloudProfile", Name: "openstack"},
		CredentialsBindingName: ptrTo("openstack-credentials"),
		Region:                 "RegionOne",
		Purpose:                &purpose,
		Kubernetes:             gardencorev1beta1.Kubernetes{Version: "1.34"},
		Networking: &gardencorev1beta1.Networking{
			Type: ptrTo("cilium"), Nodes: ptrTo("10.250.0.0/16"), Pods: ptrTo("100.64.0.0/12"), Services: ptrTo("100.80.0.0/13"),
		},
		ControlPlane: &gardencorev1beta1.ControlPlane{HighAvailability: &gardencorev1beta1.HighAvailability{
			FailureTolerance: gardencorev1beta1.FailureTolerance{Type: gardencorev1beta1.FailureToleranceTypeZone},
		}},
		Maintenance: &gardencorev1beta1.Maintenance{
			AutoUpdate: &gardencorev1beta1.MaintenanceAutoUpdate{KubernetesVersion: true, MachineImageVersion: ptrTo(false)},
			TimeWindow: &gardencorev1beta1.MaintenanceTimeWindow{Begin: "010000+0100", End: "040000+0100"},
		},
		Hibernation: &gardencorev1beta1.Hibernation{
			Enabled: ptrTo(false),
			Schedules: []gardencorev1beta1.HibernationSchedule{
				{Start: ptrTo("0 20 * * 1-5"), End: ptrTo("0 7 * * 1-5"), Location: ptrTo("Europe/Berlin")},
			},
		},
		Provider: gardencorev1beta1.Provider{
			Type: "openstack",
			InfrastructureConfig: &runtime.RawExtension{Raw: []byte(
				`{"apiVersion":"openstack.provider.extensions.gardener.cloud/v1alpha1","floatingPoolName":"ext-net","kind":"InfrastructureConfig","networks":{"workers":"10.250.0.0/16"}}`)},
			ControlPlaneConfig: &runtime.RawExtension{Raw: []byte(
				`{"apiVersion":"openstack.provider.extensions.gardener.cloud/v1alpha1","kind":"ControlPlaneConfig","loadBalancerProvider":"amphora"}`)},
			Workers: []gardencorev1beta1.Worker{
				{
					Name:    "system",
					Machine: gardencorev1beta1.Machine{Type: "SCS-4V-8"},
					Minimum: 3, Maximum: 3,
					Zones:  []string{"az1", "az2", "az3"},
					Labels: map[string]string{"node.scs.community/pool": "system"},
					Taints: []corev1.Taint{{Key: "node.scs.community/system", Value: "true", Effect: corev1.TaintEffectNoSchedule}},
				},
				{
					Name:    "general",
					Machine: gardencorev1beta1.Machine{Type: "SCS-8V-32"},
					Minimum: 1, Maximum: 9,
					Zones:          []string{"az1"},
					MaxSurge:       ptrTo(intstr.FromString("25%")),
					MaxUnavailable: ptrTo(intstr.FromInt32(0)),
					Volume:         &gardencorev1beta1.Volume{VolumeSize: "100Gi"},
				},
			},
		},
	}
	if diff := cmp.Diff(want, got, cmpRawJSON); diff != "" {
		t.Errorf("rendered Shoot: -want, +got:\n%s", diff)
	}
}

// cmpRawJSON compares provider configs by content, not by key order.
var cmpRawJSON = cmp.Transformer("rawJSON", func(r runtime.RawExtension) map[string]any {
	m := map[string]any{}
	_ = json.Unmarshal(r.Raw, &m)
	return m
})

func TestRenderWrapsTheShootForTheGardenCluster(t *testing.T) {
	spec := fullSpec()
	cases := map[string]struct {
		protect      bool
		wantPolicy   string
		wantConfirm  bool
		wantReadyCEL bool
	}{
		"Unprotected": {protect: false, wantPolicy: "Delete", wantConfirm: true},
		"Protected":   {protect: true, wantPolicy: "Orphan", wantConfirm: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec.DeletionProtection = &tc.protect
			shoot, obj := renderedShoot(t, request(spec, environment(), nil))
			if obj.GetName() != "shop-x7k2p-shoot" {
				t.Errorf("Object name = %q, want shop-x7k2p-shoot (derived from the immutable XR name)", obj.GetName())
			}
			s := obj.Object["spec"].(map[string]any)
			if got := s["providerConfigRef"].(map[string]any)["name"]; got != "garden" {
				t.Errorf("providerConfigRef.name = %v, want garden", got)
			}
			if s["deletionPolicy"] != tc.wantPolicy {
				t.Errorf("deletionPolicy = %v, want %s", s["deletionPolicy"], tc.wantPolicy)
			}
			if s["watch"] != true {
				t.Errorf("watch = %v, want true so Shoot status changes arrive promptly", s["watch"])
			}
			if r := s["readiness"].(map[string]any); r["policy"] != "DeriveFromCelQuery" || r["celQuery"] != readinessQuery {
				t.Errorf("readiness = %v", r)
			}
			_, confirmed := shoot.Annotations[AnnotationConfirmDeletion]
			if confirmed != tc.wantConfirm {
				t.Errorf("deletion confirmation annotation present = %v, want %v", confirmed, tc.wantConfirm)
			}
		})
	}
}

func TestRenderLocalGardenComposesTheShootDirectly(t *testing.T) {
	env := environment()
	env.Gardener.GardenCluster = envv1alpha1.LocalCluster
	shoot, obj := renderedShoot(t, request(fullSpec(), env, nil))
	if obj.GetKind() != "Shoot" || obj.GetAPIVersion() != "core.gardener.cloud/v1beta1" {
		t.Fatalf("want the Shoot itself, got %s %s", obj.GetAPIVersion(), obj.GetKind())
	}
	if shoot.Namespace != "garden-team1" {
		t.Errorf("namespace = %q", shoot.Namespace)
	}
}

func TestRenderNamespaceOverride(t *testing.T) {
	env := environment()
	env.Gardener.Namespace = "garden-shared"
	shoot, _ := renderedShoot(t, request(fullSpec(), env, nil))
	if shoot.Namespace != "garden-shared" {
		t.Errorf("namespace = %q, want garden-shared", shoot.Namespace)
	}
}

// TestRenderMachineImage: the environment's image goes to pools that are new; a worker that
// exists keeps its image when the platform names another one later, because an environment
// edit must not roll every node of every cluster, and the claim is told.
func TestRenderMachineImage(t *testing.T) {
	env := environment()
	env.Gardener.MachineImage = &envv1alpha1.MachineImage{Name: "ubuntu", Version: "24.4.0"}
	spec := fullSpec()
	spec.NodePools = append(spec.NodePools, kaasv1alpha1.NodePool{Name: "new", MachineType: "SCS-4V-8", Count: ptrTo[int32](1)})
	req := request(spec, env, existingShoot())
	shoot, _ := renderedShoot(t, req)
	want := map[string]string{"system": "gardenlinux 1877.3.0", "general": "gardenlinux 1877.3.0", "new": "ubuntu 24.4.0"}
	for _, w := range shoot.Spec.Provider.Workers {
		if got := imageString(w.Machine.Image.Name, deref(w.Machine.Image.Version)); got != want[w.Name] {
			t.Errorf("worker %s image = %s, want %s", w.Name, got, want[w.Name])
		}
	}
	r, err := renderOf(req)
	if err != nil {
		t.Fatal(err)
	}
	wantChanges := []string{
		"data.gardener.machineImage: pool system keeps gardenlinux 1877.3.0; the environment now names ubuntu 24.4.0",
		"data.gardener.machineImage: pool general keeps gardenlinux 1877.3.0; the environment now names ubuntu 24.4.0",
	}
	if diff := cmp.Diff(wantChanges, r.EnvironmentChanges); diff != "" {
		t.Errorf("environment changes: -want, +got:\n%s", diff)
	}
}

// TestRenderKeepsWhatGardenerChose: applying the same claim again must not move the
// cluster: the patch behind a minor, the failure tolerance type and the machine images
// that Gardener picked stay as they are.
func TestRenderKeepsWhatGardenerChose(t *testing.T) {
	cases := map[string]struct {
		version     string
		wantVersion string
	}{
		"SameMinorKeepsThePatch":   {version: "1.34", wantVersion: "1.34.5"},
		"NextMinorAsksForTheMinor": {version: "1.35", wantVersion: "1.35"},
		"PinnedPatchIsRespected":   {version: "1.34.6", wantVersion: "1.34.6"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := fullSpec()
			spec.Kubernetes.Version = tc.version
			shoot, _ := renderedShoot(t, request(spec, environment(), existingShoot()))
			if shoot.Spec.Kubernetes.Version != tc.wantVersion {
				t.Errorf("version = %q, want %q", shoot.Spec.Kubernetes.Version, tc.wantVersion)
			}
			if got := shoot.Spec.ControlPlane.HighAvailability.FailureTolerance.Type; got != gardencorev1beta1.FailureToleranceTypeNode {
				t.Errorf("failure tolerance = %q, want the observed node (Gardener cannot change it)", got)
			}
			for _, w := range shoot.Spec.Provider.Workers {
				if w.Machine.Image == nil || *w.Machine.Image.Version != "1877.3.0" {
					t.Errorf("worker %s image = %+v, want the observed gardenlinux 1877.3.0", w.Name, w.Machine.Image)
				}
			}
		})
	}
}

func TestRenderWithoutHAOrHibernation(t *testing.T) {
	spec := fullSpec()
	spec.ControlPlane.HighAvailability = ptrTo(false)
	spec.Hibernation = nil
	env := environment()
	env.Catalog.Zones = []string{"az1"}
	spec.NodePools[0].Zones = []string{"az1"}
	shoot, _ := renderedShoot(t, request(spec, env, nil))
	if shoot.Spec.ControlPlane != nil {
		t.Errorf("controlPlane = %+v, want none without HA", shoot.Spec.ControlPlane)
	}
	if shoot.Spec.Hibernation != nil {
		t.Errorf("hibernation = %+v, want none", shoot.Spec.Hibernation)
	}
}

func TestRenderNodeToleranceWithFewZones(t *testing.T) {
	env := environment()
	env.Catalog.Zones = []string{"az1", "az2"}
	spec := fullSpec()
	spec.NodePools[0].Zones = []string{"az1", "az2"}
	shoot, _ := renderedShoot(t, request(spec, env, nil))
	if got := shoot.Spec.ControlPlane.HighAvailability.FailureTolerance.Type; got != gardencorev1beta1.FailureToleranceTypeNode {
		t.Errorf("failure tolerance = %q, want node: zone tolerance needs three zones", got)
	}
}

func TestRenderIsDeterministic(t *testing.T) {
	req := request(fullSpec(), environment(), existingShoot())
	first, err := renderOf(req)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(first.Resources[0].Object.Object)
	for range 20 {
		again, err := renderOf(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(again.Resources[0].Object.Object)
		if string(got) != string(want) {
			t.Fatalf("two renders of the same request differ:\n%s\n%s", want, got)
		}
	}
}

func TestRenderAdminKubeconfig(t *testing.T) {
	env := environment()
	env.Gardener.AdminKubeconfig = &envv1alpha1.GardenerAdminKubeconfig{ProviderConfigName: "garden-auth", ExpirationSeconds: ptrTo[int64](3600), RenewBefore: "20m"}
	advertised := existingShoot()
	healthyStatus(advertised)
	req := request(fullSpec(), env, advertised)
	req.Options.ConnectionSecretNamespace = "crossplane-system"
	r, err := renderOf(req)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"apiVersion": "gardener.kaas.scs.community/v1alpha1",
		"kind":       "AdminKubeconfig",
		"metadata":   map[string]any{"name": "shop-x7k2p-kubeconfig", "labels": map[string]any{"kaas.scs.community/cluster": "shop-x7k2p"}},
		"spec": map[string]any{
			"forProvider":                map[string]any{"namespace": "garden-team1", "shootName": "shop-x7k2p", "expirationSeconds": int64(3600), "renewBefore": "20m"},
			"providerConfigRef":          map[string]any{"name": "garden-auth"},
			"writeConnectionSecretToRef": map[string]any{"name": "shop-x7k2p-kubeconfig", "namespace": "crossplane-system"},
			"deletionPolicy":             "Delete",
		},
	}
	if diff := cmp.Diff(want, r.Resources[1].Object.Object); diff != "" {
		t.Errorf("AdminKubeconfig: -want, +got:\n%s", diff)
	}
	env.Gardener.AdminKubeconfig = nil
	r, _ = renderOf(request(fullSpec(), env, advertised))
	if got := r.Resources[1].Object.Object["spec"].(map[string]any)["providerConfigRef"]; !cmp.Equal(got, map[string]any{"name": "garden"}) {
		t.Errorf("default providerConfigRef = %v, want the garden cluster's name", got)
	}
}

// TestAdminKubeconfigWaitsForAnAdvertisedAddress: gardener-apiserver issues admin kubeconfigs
// only for a Shoot that advertises its API server, so the AdminKubeconfig is composed from
// then on, and kept once it exists, whatever the Shoot says later.
func TestAdminKubeconfigWaitsForAnAdvertisedAddress(t *testing.T) {
	progressing := existingShoot()
	progressing.Status.LastOperation = &gardencorev1beta1.LastOperation{Type: gardencorev1beta1.LastOperationTypeCreate, State: gardencorev1beta1.LastOperationStateProcessing, Progress: 40}
	advertised := existingShoot()
	healthyStatus(advertised)
	internalOnly := existingShoot()
	internalOnly.Status.AdvertisedAddresses = []gardencorev1beta1.ShootAdvertisedAddress{{Name: "internal", URL: "https://api.internal.example"}}
	serviceAccountIssuerOnly := existingShoot()
	serviceAccountIssuerOnly.Status.AdvertisedAddresses = []gardencorev1beta1.ShootAdvertisedAddress{{Name: "service-account-issuer", URL: "https://issuer.example"}}

	cases := map[string]struct {
		shoot          *gardencorev1beta1.Shoot
		kubeconfigSeen bool
		want           []string
		wantMessage    string
	}{
		"NoShootYet":                    {want: []string{ResourceShoot}, wantMessage: "waiting for Gardener to advertise the Shoot's API server"},
		"ShootWithoutAddress":           {shoot: progressing, want: []string{ResourceShoot}, wantMessage: "waiting for Gardener to advertise the Shoot's API server"},
		"OnlyTheServiceAccountIssuer":   {shoot: serviceAccountIssuerOnly, want: []string{ResourceShoot}, wantMessage: "waiting for Gardener to advertise"},
		"InternalAddress":               {shoot: internalOnly, want: []string{ResourceShoot, ResourceKubeconfig}, wantMessage: "has not delivered an admin kubeconfig yet"},
		"ExternalAddress":               {shoot: advertised, want: []string{ResourceShoot, ResourceKubeconfig}, wantMessage: "has not delivered an admin kubeconfig yet"},
		"ComposedStaysWithoutAnAddress": {shoot: progressing, kubeconfigSeen: true, want: []string{ResourceShoot, ResourceKubeconfig}, wantMessage: "has not delivered an admin kubeconfig yet"},
		"ComposedStaysWithoutTheShoot":  {kubeconfigSeen: true, want: []string{ResourceShoot, ResourceKubeconfig}, wantMessage: "has not delivered an admin kubeconfig yet"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var shoot *gardencorev1beta1.Shoot
			if tc.shoot != nil {
				shoot = tc.shoot.DeepCopy()
			}
			req := request(fullSpec(), environment(), shoot)
			if tc.kubeconfigSeen {
				req.Observed[ResourceKubeconfig] = model.ObservedResource{Object: &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": adminKubeconfigAPIVersion, "kind": adminKubeconfigKind,
					"metadata": map[string]any{"name": kubeconfigObjectName(req.NativeName)},
				}}}
			}
			r, err := renderOf(req)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, res := range r.Resources {
				got = append(got, res.Name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("resources: -want, +got:\n%s", diff)
			}
			obs, err := observeOf(req)
			if err != nil {
				t.Fatal(err)
			}
			var kubeconfig *model.Condition
			for i := range obs.Conditions {
				if obs.Conditions[i].Type == kaasv1alpha1.ConditionKubeconfigReady {
					kubeconfig = &obs.Conditions[i]
				}
			}
			if kubeconfig == nil || kubeconfig.Status != model.ConditionFalse || kubeconfig.Reason != kaasv1alpha1.ReasonKubeconfigPending ||
				!strings.Contains(kubeconfig.Message, tc.wantMessage) {
				t.Errorf("KubeconfigReady = %+v, want False/%s saying %q", kubeconfig, kaasv1alpha1.ReasonKubeconfigPending, tc.wantMessage)
			}
		})
	}
}
