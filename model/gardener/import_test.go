package gardener

import (
	stdcmp "cmp"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/input"
	"github.com/SovereignCloudStack/scs-kaas/model/providerkubernetes"
)

// importedShootName is the Shoot name the model derives for the composite named shop.
const importedShootName = "shop-rwiadu"

// minimalSpec leaves everything to the defaults that can be left.
func minimalSpec() kaasv1alpha1.ClusterSpec {
	return kaasv1alpha1.ClusterSpec{
		Kubernetes: kaasv1alpha1.KubernetesSpec{Version: "1.33"},
		NodePools:  []kaasv1alpha1.NodePool{{Name: "default", MachineType: "SCS-2V-4", Count: ptrTo[int32](1)}},
	}
}

// teamIssuer is an issuer a team names itself, publicly trusted.
func teamIssuer() *kaasv1alpha1.AccessSpec {
	return &kaasv1alpha1.AccessSpec{OIDC: &kaasv1alpha1.OIDCSpec{OIDCClaims: kaasv1alpha1.OIDCClaims{
		IssuerURL: "https://login.example.com/realms/team", ClientID: "kubectl",
		UsernameClaim: "email", UsernamePrefix: ptrTo(""), GroupsClaim: "groups"}}}
}

// editedEnvironment is env after the platform team changed every setting a Shoot shows and
// the defaults: what Import reads must come from the Shoot, not from it.
func editedEnvironment(env *model.Environment) *model.Environment {
	out := *env
	out.Environment = *env.DeepCopy()
	out.Region = "RegionTwo"
	g := out.Gardener
	g.CloudProfile, g.CloudProfileKind = "openstack-2026", "NamespacedCloudProfile"
	g.FloatingPoolName, g.LoadBalancerProvider = "ext-net-2", "ovn"
	g.MachineImage = &envv1alpha1.MachineImage{Name: "ubuntu", Version: "24.4.0"}
	d := &out.Defaults
	d.Network.NodeCIDR = "10.251.0.0/16"
	d.Network.CNI = map[kaasv1alpha1.CNI]kaasv1alpha1.CNI{kaasv1alpha1.CNICalico: kaasv1alpha1.CNICilium, kaasv1alpha1.CNICilium: kaasv1alpha1.CNICalico}[d.Network.CNI]
	d.Maintenance = kaasv1alpha1.MaintenanceSpec{
		Window:     &kaasv1alpha1.MaintenanceWindow{Begin: "030000+0000", End: "050000+0000"},
		AutoUpdate: &kaasv1alpha1.AutoUpdate{KubernetesPatch: ptrTo(false), MachineImage: ptrTo(false)},
	}
	if a := out.APIServerAccess; a != nil {
		a.AlwaysAllowedSourceRanges = []string{"198.51.100.0/24"}
	}
	return &out
}

// environmentConfig is env as Crossplane serves its EnvironmentConfig, the default one.
func environmentConfig(t *testing.T, env *model.Environment) *unstructured.Unstructured {
	t.Helper()
	data, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&env.Environment)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": model.EnvironmentConfigAPIVersion, "kind": model.EnvironmentConfigKind,
		"metadata": map[string]any{"name": env.ConfigName, "labels": map[string]any{
			envv1alpha1.LabelEnvironment: env.Name, envv1alpha1.LabelDefault: "true"}},
		"data": data,
	}}
}

// reconciledNatives renders spec in env as the model does for a new composite named shop:
// defaulted, validated, its access resolved. It returns the native objects by resource name,
// unwrapped from their Objects.
func reconciledNatives(t *testing.T, spec kaasv1alpha1.ClusterSpec, env *model.Environment) map[string]map[string]any {
	t.Helper()
	xr := &kaasv1alpha1.XSCSCluster{Spec: spec}
	xr.Name = "shop"
	// Resolved as an offline render is: the lookout finds nothing, a new cluster.
	out, err := input.Resolve(model.NewRegistry(New()), model.Input{Cluster: xr,
		Required: map[string][]*unstructured.Unstructured{model.EnvironmentsRequirement: {environmentConfig(t, env)}}},
		func(string, model.Selector) ([]*unstructured.Unstructured, error) { return nil, nil })
	if err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	if !out.Complete {
		t.Fatalf("Reconcile wants more: %v", out.Requirements)
	}
	natives := map[string]map[string]any{}
	for _, r := range out.Rendering.Resources {
		if r.Name != ResourceShoot && r.Name != ResourceAuthentication {
			continue
		}
		m := r.Object.Object
		if providerkubernetes.IsObject(r.Object) {
			m, _, _ = unstructured.NestedMap(m, "spec", "forProvider", "manifest")
		}
		natives[r.Name] = m
	}
	return natives
}

// asExistingShoot turns a rendered Shoot into the Shoot as the garden returns it: with the
// metadata the API server sets, and the status of a healthy cluster.
func asExistingShoot(t *testing.T, m map[string]any) *gardencorev1beta1.Shoot {
	t.Helper()
	s := &gardencorev1beta1.Shoot{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(m, s, true); err != nil {
		t.Fatalf("the rendered manifest is not a valid Shoot: %v", err)
	}
	s.UID, s.ResourceVersion, s.Generation = types.UID("7d5c1f0e-6a8b-4c1e-9f3a-2b7d9e0c4a11"), "48213", 4
	s.CreationTimestamp = metav1.NewTime(time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC))
	if s.Annotations == nil {
		s.Annotations = map[string]string{}
	}
	s.Annotations["gardener.cloud/created-by"] = "system:serviceaccount:crossplane-system:crossplane"
	healthyStatus(s)
	s.Status.TechnicalID = "shoot--team1--" + s.Name
	s.Status.Gardener = gardencorev1beta1.Gardener{ID: "gardener-apiserver", Name: "gardener-apiserver", Version: "v1.149.3"}
	return s
}

// asExistingConfigMap adds the metadata the API server sets.
func asExistingConfigMap(m map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(m)}
	u.SetUID("0b7e3c52-91d4-4f7a-8c2e-5a6d1e9f3b20")
	u.SetResourceVersion("48190")
	u.SetCreationTimestamp(metav1.NewTime(time.Date(2026, 3, 1, 9, 29, 58, 0, time.UTC)))
	return u
}

// nativesOf are the Shoot and its ConfigMap (nil: none) as Import takes them.
func nativesOf(t *testing.T, shoot *gardencorev1beta1.Shoot, cm *unstructured.Unstructured) []*unstructured.Unstructured {
	t.Helper()
	s := shoot.DeepCopy()
	s.APIVersion, s.Kind = shootAPIVersion, shootKind
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(s)
	if err != nil {
		t.Fatal(err)
	}
	out := []*unstructured.Unstructured{{Object: m}}
	if cm != nil {
		out = append(out, cm)
	}
	return out
}

// existingNatives renders spec in env and returns the natives as they exist.
func existingNatives(t *testing.T, spec kaasv1alpha1.ClusterSpec, env *model.Environment) (*gardencorev1beta1.Shoot, *unstructured.Unstructured) {
	t.Helper()
	return asExisting(t, reconciledNatives(t, spec, env))
}

// asExisting are the rendered natives as the garden returns them: the Shoot, and its
// ConfigMap or nil.
func asExisting(t *testing.T, rendered map[string]map[string]any) (*gardencorev1beta1.Shoot, *unstructured.Unstructured) {
	t.Helper()
	var cm *unstructured.Unstructured
	if m, ok := rendered[ResourceAuthentication]; ok {
		cm = asExistingConfigMap(m)
	}
	return asExistingShoot(t, rendered[ResourceShoot]), cm
}

// testCA is a PEM CA the model accepts for an issuer.
func testCA(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "login.example.com CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// TestImportRoundTrip: a Shoot imported and rendered again, in an environment whose settings
// and defaults changed since, is the Shoot (and ConfigMap) it was rendered as, and the model
// accepts the imported spec.
func TestImportRoundTrip(t *testing.T) {
	ca := testCA(t)
	cases := map[string]struct {
		spec func() kaasv1alpha1.ClusterSpec
		env  func(e *model.Environment)
	}{
		"FullSpec": {spec: fullSpec},
		"Minimal":  {spec: minimalSpec},
		"HighAvailabilityOffAndProtected": {spec: func() kaasv1alpha1.ClusterSpec {
			s := fullSpec()
			s.ControlPlane.HighAvailability, s.DeletionProtection = ptrTo(false), ptrTo(true)
			return s
		}},
		"AutoscalingPoolOverDefaultedZones": {spec: func() kaasv1alpha1.ClusterSpec {
			s := minimalSpec()
			s.NodePools[0].Count, s.NodePools[0].Autoscaling = nil, &kaasv1alpha1.Autoscaling{Min: 2, Max: 6}
			return s
		}},
		"Hibernated": {spec: func() kaasv1alpha1.ClusterSpec {
			s := minimalSpec()
			s.Hibernation = &kaasv1alpha1.HibernationSpec{Enabled: ptrTo(true)}
			return s
		}},
		"PinnedPatch": {spec: func() kaasv1alpha1.ClusterSpec {
			s := fullSpec()
			s.Kubernetes.Version = "1.34.2"
			return s
		}},
		"MinorWithoutPatchUpdates": {spec: func() kaasv1alpha1.ClusterSpec {
			s := fullSpec()
			s.Maintenance.AutoUpdate.KubernetesPatch = ptrTo(false)
			return s
		}},
		"MachineImageAndNamespacedCloudProfile": {spec: fullSpec, env: func(e *model.Environment) {
			e.Gardener.MachineImage = &envv1alpha1.MachineImage{Name: "gardenlinux", Version: "1877.3.0"}
			e.Gardener.CloudProfileKind = "NamespacedCloudProfile"
		}},
		"IssuerOfTheTeam": {spec: func() kaasv1alpha1.ClusterSpec {
			s := fullSpec()
			s.Access = teamIssuer()
			return s
		}},
		"IssuerOfTheEnvironmentWithItsCA": {spec: minimalSpec, env: func(e *model.Environment) {
			e.Defaults.Access = &envv1alpha1.AccessDefaults{OIDC: &kaasv1alpha1.OIDCIssuer{CertificateAuthority: ca,
				OIDCClaims: kaasv1alpha1.OIDCClaims{IssuerURL: "https://login.example.com/realms/platform", ClientID: "kubernetes"}}}
		}},
		"SourceRanges": {
			spec: func() kaasv1alpha1.ClusterSpec {
				s := fullSpec()
				s.Access = &kaasv1alpha1.AccessSpec{AllowedSourceRanges: []string{"203.0.113.0/24"}}
				return s
			},
			env: func(e *model.Environment) {
				e.APIServerAccess = &envv1alpha1.APIServerAccess{RestrictSourceRanges: true, AlwaysAllowedSourceRanges: []string{"192.0.2.10/32"}}
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			env := environment()
			if tc.env != nil {
				tc.env(env)
			}
			original := reconciledNatives(t, tc.spec(), env)
			edited := editedEnvironment(env)
			shoot, cm := asExisting(t, original)
			imported, err := New().Import(nativesOf(t, shoot, cm), edited)
			if err != nil {
				t.Fatalf("Import: %v", err)
			}
			if imported.Name != importedShootName {
				t.Errorf("Name = %q, want %q", imported.Name, importedShootName)
			}
			if imported.Spec.Environment != "" {
				t.Errorf("spec.environment = %q, want it left to the caller", imported.Spec.Environment)
			}
			if len(imported.Unportable) > 0 {
				t.Errorf("Unportable = %+v, want none: the Shoot carries only what the rendering writes", imported.Unportable)
			}
			kept, err := model.WithSettings(edited, imported.Settings)
			if err != nil {
				t.Fatalf("WithSettings: %v", err)
			}
			defaulted := model.Default(imported.Spec, kept, nil)
			if errs := model.Validate(&defaulted, kept, nil); len(errs) > 0 {
				t.Errorf("the imported spec is refused: %v", errs)
			}
			if diff := cmp.Diff(original, reconciledNatives(t, imported.Spec, kept)); diff != "" {
				t.Errorf("natives rendered from the imported spec: -original, +again:\n%s", diff)
			}
		})
	}
}

// TestImportSettingsAreTheBackendsSettings: Import reports settings by the paths the model
// keeps (status.backend.pinned), and none that every cluster follows.
func TestImportSettingsAreTheBackendsSettings(t *testing.T) {
	env := environment()
	env.APIServerAccess = &envv1alpha1.APIServerAccess{RestrictSourceRanges: true, AlwaysAllowedSourceRanges: []string{"192.0.2.10/32"}}
	spec := fullSpec()
	spec.Access = &kaasv1alpha1.AccessSpec{AllowedSourceRanges: []string{"203.0.113.0/24"}}
	shoot, cm := existingNatives(t, spec, env)
	imported, err := New().Import(nativesOf(t, shoot, cm), env)
	if err != nil {
		t.Fatal(err)
	}
	kept := map[string]bool{}
	for _, s := range model.SettingsOf(New()) {
		kept[s.Path] = !s.Follows
	}
	for path := range imported.Settings {
		if !kept[path] {
			t.Errorf("setting %s is not one the model keeps for a cluster", path)
		}
	}
}

// TestImportFullSpec writes down what Import makes of the Shoot rendered for fullSpec, read
// in an environment edited since.
func TestImportFullSpec(t *testing.T) {
	env := environment()
	env.Gardener.MachineImage = &envv1alpha1.MachineImage{Name: "gardenlinux", Version: "1877.3.0"}
	shoot, cm := existingNatives(t, fullSpec(), env)
	got, err := New().Import(nativesOf(t, shoot, cm), editedEnvironment(env))
	if err != nil {
		t.Fatal(err)
	}
	want := &model.Imported{
		Name: "shop-rwiadu",
		Spec: kaasv1alpha1.ClusterSpec{
			Purpose:            kaasv1alpha1.PurposeProduction,
			Kubernetes:         kaasv1alpha1.KubernetesSpec{Version: "1.34"},
			ControlPlane:       kaasv1alpha1.ControlPlaneSpec{HighAvailability: ptrTo(true)},
			DeletionProtection: ptrTo(false),
			Network:            &kaasv1alpha1.NetworkSpec{NodeCIDR: "10.250.0.0/16", PodCIDR: "100.64.0.0/12", ServiceCIDR: "100.80.0.0/13", CNI: "cilium"},
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
		},
		Settings: map[string]string{
			"data.region":                        "RegionOne",
			"data.gardener.cloudProfile":         "openstack",
			"data.gardener.cloudProfileKind":     "",
			"data.gardener.floatingPoolName":     "ext-net",
			"data.gardener.loadBalancerProvider": "amphora",
			"data.gardener.machineImage":         `{"name":"gardenlinux","version":"1877.3.0"}`,
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Import: -want, +got:\n%s", diff)
	}
}

// aclExtensionOf is the ACL extension the rendering makes of ranges.
func aclExtensionOf(t *testing.T, ranges ...string) gardencorev1beta1.Extension {
	t.Helper()
	e, err := aclExtension(ranges)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// withIssuer makes the Shoot sign people in through the issuer in config, from its ConfigMap.
func withIssuer(s *gardencorev1beta1.Shoot, config string) *unstructured.Unstructured {
	s.Spec.Kubernetes.KubeAPIServer = &gardencorev1beta1.KubeAPIServerConfig{StructuredAuthentication: &gardencorev1beta1.StructuredAuthentication{
		ConfigMapName: authenticationConfigMapName(s.Name)}}
	return asExistingConfigMap(map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": authenticationConfigMapName(s.Name), "namespace": s.Namespace},
		"data":     map[string]any{AuthenticationConfigKey: config},
	})
}

// publicIssuerConfig is an AuthenticationConfiguration of a publicly trusted issuer.
const publicIssuerConfig = `apiVersion: apiserver.config.k8s.io/v1beta1
jwt:
- claimMappings:
    username:
      claim: email
      prefix: ""
  issuer:
    audiences:
    - kubectl
    url: https://login.example.com/realms/team
kind: AuthenticationConfiguration
`

// TestImportRefusals: a Shoot the API cannot manage is refused, and the error names the
// field of the Shoot (or its ConfigMap) and why.
func TestImportRefusals(t *testing.T) {
	restricting := func(e *model.Environment) {
		e.APIServerAccess = &envv1alpha1.APIServerAccess{RestrictSourceRanges: true}
	}
	cases := map[string]struct {
		shoot func(t *testing.T, s *gardencorev1beta1.Shoot) *unstructured.Unstructured // returns the ConfigMap, if any
		env   func(e *model.Environment)
		want  []string
	}{
		"AnotherProvider": {
			shoot: func(_ *testing.T, s *gardencorev1beta1.Shoot) *unstructured.Unstructured {
				s.Spec.Provider.Type = "aws"
				return nil
			},
			want: []string{`spec.provider.type: Unsupported value: "aws": supported values: "openstack"`},
		},
		"AnotherProject": {
			shoot: func(_ *testing.T, s *gardencorev1beta1.Shoot) *unstructured.Unstructured {
				s.Namespace = "garden-team2"
				return nil
			},
			want: []string{"metadata.namespace: Forbidden: the Shoot lives in garden namespace garden-team2, environment regionone makes clusters in garden-team1 (project team1)"},
		},
		"BeingDeleted": {
			shoot: func(_ *testing.T, s *gardencorev1beta1.Shoot) *unstructured.Unstructured {
				s.DeletionTimestamp = ptrTo(metav1.NewTime(time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)))
				return nil
			},
			want: []string{"metadata.deletionTimestamp: Forbidden: the Shoot is being deleted"},
		},
		"SecretBinding": {
			shoot: func(_ *testing.T, s *gardencorev1beta1.Shoot) *unstructured.Unstructured {
				s.Spec.CredentialsBindingName, s.Spec.SecretBindingName = nil, ptrTo("openstack") //nolint:staticcheck // a Shoot of an older Gardener
				return nil
			},
			want: []string{"spec.secretBindingName: Forbidden: the Shoot takes its credentials from SecretBinding openstack"},
		},
		"TestingPurpose": {
			shoot: func(_ *testing.T, s *gardencorev1beta1.Shoot) *unstructured.Unstructured {
				s.Spec.Purpose = ptrTo(gardencorev1beta1.ShootPurposeTesting)
				return nil
			},
			want: []string{`spec.purpose: Unsupported value: "testing": supported values: "evaluation", "development", "production"`},
		},
		"NetworkingTypeWithoutPortableCNI": {
			shoot: func(_ *testing.T, s *gardencorev1beta1.Shoot) *unstructured.Unstructured {
				s.Spec.Networking.Type = ptrTo("flannel")
				return nil
			},
			want: []string{`spec.networking.type: Unsupported value: "flannel": supported values: "calico", "cilium"`},
		},
		"VolumeNotInWholeGiB": {
			shoot: func(_ *testing.T, s *gardencorev1beta1.Shoot) *unstructured.Unstructured {
				s.Spec.Provider.Workers[1].Volume.VolumeSize = "100G"
				return nil
			},
			want: []string{`spec.provider.workers[name=general].volume.size: Invalid value: "100G": the portable API sizes root disks in whole GiB (spec.nodePools[].rootDiskGiB)`},
		},
		"RootDiskTheEnvironmentWouldAdd": {
			shoot: func(*testing.T, *gardencorev1beta1.Shoot) *unstructured.Unstructured { return nil },
			env:   func(e *model.Environment) { e.Defaults.RootDiskGiB = ptrTo[int32](50) },
			want:  []string{`spec.provider.workers[name=system].volume: Forbidden: the Shoot has none, the rendering of the imported spec makes it {"size":"50Gi"}`},
		},
		"PodCIDRTheEnvironmentWouldAdd": {
			shoot: func(_ *testing.T, s *gardencorev1beta1.Shoot) *unstructured.Unstructured {
				s.Spec.Networking.Pods = nil
				return nil
			},
			env:  func(e *model.Environment) { e.Defaults.Network.PodCIDR = "100.96.0.0/11" },
			want: []string{`spec.networking.pods: Forbidden: the Shoot has none, the rendering of the imported spec makes it "100.96.0.0/11"`},
		},
		"WorkersNetworkOtherThanTheNodes": {
			shoot: func(_ *testing.T, s *gardencorev1beta1.Shoot) *unstructured.Unstructured {
				s.Spec.Provider.InfrastructureConfig.Raw = []byte(`{"apiVersion":"openstack.provider.extensions.gardener.cloud/v1alpha1","kind":"InfrastructureConfig","floatingPoolName":"ext-net","networks":{"workers":"10.250.0.0/17"}}`)
				return nil
			},
			want: []string{`spec.provider.infrastructureConfig.networks.workers: Forbidden: the Shoot has "10.250.0.0/17", the rendering of the imported spec makes it "10.250.0.0/16"`},
		},
		"AnExtensionBesideTheACL": {
			shoot: func(t *testing.T, s *gardencorev1beta1.Shoot) *unstructured.Unstructured {
				s.Spec.Extensions = []gardencorev1beta1.Extension{{Type: "shoot-dns-service"}, aclExtensionOf(t, "203.0.113.0/24")}
				return nil
			},
			env:  restricting,
			want: []string{`spec.extensions[type=shoot-dns-service]: Forbidden: the Shoot has {"type":"shoot-dns-service"}, the rendering of the imported spec makes it none`},
		},
		"RangesTheEnvironmentCannotRestrict": {
			shoot: func(t *testing.T, s *gardencorev1beta1.Shoot) *unstructured.Unstructured {
				s.Spec.Extensions = []gardencorev1beta1.Extension{aclExtensionOf(t, "203.0.113.0/24")}
				return nil
			},
			want: []string{"spec.access.allowedSourceRanges: Forbidden: environment regionone cannot restrict who reaches an API server"},
		},
		"IssuerWithACAOfItsOwn": {
			shoot: func(_ *testing.T, s *gardencorev1beta1.Shoot) *unstructured.Unstructured {
				return withIssuer(s, teamConfig)
			},
			want: []string{"configmap/shop-rwiadu-authn.data[config.yaml].jwt[0].issuer.certificateAuthority: Forbidden: the Shoot trusts issuer https://login.example.com/realms/team through a CA of its own, which environment regionone does not give that issuer"},
		},
		"TwoIssuers": {
			shoot: func(_ *testing.T, s *gardencorev1beta1.Shoot) *unstructured.Unstructured {
				return withIssuer(s, publicIssuerConfig+`jwt:
- issuer: {url: "https://login.example.com/realms/team", audiences: [kubectl]}
  claimMappings: {username: {claim: email, prefix: ""}}
- issuer: {url: "https://login.example.org", audiences: [kubectl]}
  claimMappings: {username: {claim: sub, prefix: "org:"}}
`)
			},
			want: []string{"configmap/shop-rwiadu-authn.data[config.yaml].jwt: Too many: 2: must have at most 1 item"},
		},
		"IssuerRulesTheRenderingDrops": {
			shoot: func(_ *testing.T, s *gardencorev1beta1.Shoot) *unstructured.Unstructured {
				return withIssuer(s, strings.Replace(publicIssuerConfig, "  issuer:", "  claimValidationRules:\n    - claim: hd\n      requiredValue: example.com\n  issuer:", 1))
			},
			want: []string{"configmap/shop-rwiadu-authn.data[config.yaml]: Forbidden: the AuthenticationConfiguration carries more or other than the rendering writes"},
		},
		"AuthenticationConfigMapMissing": {
			shoot: func(_ *testing.T, s *gardencorev1beta1.Shoot) *unstructured.Unstructured {
				withIssuer(s, publicIssuerConfig)
				return nil
			},
			want: []string{"spec.kubernetes.kubeAPIServer.structuredAuthentication.configMapName: Required value: ConfigMap garden-team1/shop-rwiadu-authn, which the Shoot references, is not among the natives"},
		},
		"AnotherAuthenticationConfigMap": {
			shoot: func(_ *testing.T, s *gardencorev1beta1.Shoot) *unstructured.Unstructured {
				s.Spec.Kubernetes.KubeAPIServer = &gardencorev1beta1.KubeAPIServerConfig{StructuredAuthentication: &gardencorev1beta1.StructuredAuthentication{ConfigMapName: "team-authn"}}
				return nil
			},
			want: []string{"spec.kubernetes.kubeAPIServer.structuredAuthentication.configMapName: Forbidden: the Shoot reads its authentication from ConfigMap team-authn"},
		},
		"IssuerTheEnvironmentWouldAdd": {
			shoot: func(*testing.T, *gardencorev1beta1.Shoot) *unstructured.Unstructured { return nil },
			env: func(e *model.Environment) {
				e.Defaults.Access = &envv1alpha1.AccessDefaults{OIDC: &kaasv1alpha1.OIDCIssuer{
					OIDCClaims: kaasv1alpha1.OIDCClaims{IssuerURL: "https://login.example.com/realms/platform", ClientID: "kubernetes"}}}
			},
			want: []string{`spec.kubernetes.kubeAPIServer.structuredAuthentication: Forbidden: the Shoot has none, the rendering of the imported spec makes it {"configMapName":"shop-rwiadu-authn"}`},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			env := environment()
			if tc.env != nil {
				tc.env(env)
			}
			shoot, _ := existingNatives(t, fullSpec(), environment())
			cm := tc.shoot(t, shoot)
			_, err := New().Import(nativesOf(t, shoot, cm), env)
			if err == nil {
				t.Fatalf("Import succeeded, want a refusal saying %q", tc.want)
			}
			if !strings.HasPrefix(err.Error(), "cannot import Shoot "+shoot.Namespace+"/shop-rwiadu: ") {
				t.Errorf("the error %q does not name the Shoot", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestImportNatives: Import takes the natives of one cluster, and says what else it got.
func TestImportNatives(t *testing.T) {
	shoot, _ := existingNatives(t, fullSpec(), environment())
	cm := withIssuer(shoot.DeepCopy(), publicIssuerConfig)
	other := cm.DeepCopy()
	other.SetName("someone-elses-authn")
	secret := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "x"}}}
	cases := map[string]struct {
		natives []*unstructured.Unstructured
		want    string
	}{
		"NoShoot":             {natives: []*unstructured.Unstructured{cm}, want: "natives hold no Shoot (core.gardener.cloud/v1beta1)"},
		"TwoShoots":           {natives: append(nativesOf(t, shoot, nil), nativesOf(t, shoot, nil)...), want: "natives hold two Shoots, shop-rwiadu and shop-rwiadu: a cluster has one"},
		"AnotherConfigMap":    {natives: nativesOf(t, shoot, other), want: "ConfigMap garden-team1/someone-elses-authn is not the authentication ConfigMap of Shoot garden-team1/shop-rwiadu, which is named shop-rwiadu-authn"},
		"SomethingElseBeside": {natives: append(nativesOf(t, shoot, nil), secret), want: "natives[1] is a v1 Secret: a Gardener cluster is a Shoot (core.gardener.cloud/v1beta1) and its authentication ConfigMap"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := New().Import(tc.natives, environment())
			if err == nil || err.Error() != tc.want {
				t.Errorf("Import: %v, want %q", err, tc.want)
			}
		})
	}
}

// TestImportUnportable: what the Shoot carries beyond the rendering and Gardener's own
// choices is imported and listed, by the Shoot's field path.
func TestImportUnportable(t *testing.T) {
	cases := map[string]struct {
		shoot       func(t *testing.T, s *gardencorev1beta1.Shoot)
		want        []model.Unsupported
		wantVersion string // empty: fullSpec's 1.34
	}{
		"AnExtensionTheAPIDoesNotMake": {
			shoot: func(_ *testing.T, s *gardencorev1beta1.Shoot) {
				s.Spec.Extensions = []gardencorev1beta1.Extension{{Type: "shoot-dns-service"}}
			},
			want: []model.Unsupported{{Field: "spec.extensions[type=shoot-dns-service]", Reason: "an extension the API does not make"}},
		},
		"ADisabledACL": {
			shoot: func(t *testing.T, s *gardencorev1beta1.Shoot) {
				acl := aclExtensionOf(t, "203.0.113.0/24")
				acl.Disabled = ptrTo(true)
				s.Spec.Extensions = []gardencorev1beta1.Extension{acl}
			},
			want: []model.Unsupported{{Field: "spec.extensions[type=acl]", Reason: "an extension the API does not make"}},
		},
		"AddonsAuditPolicyAndKubeProxyMode": {
			shoot: func(_ *testing.T, s *gardencorev1beta1.Shoot) {
				s.Spec.Addons = &gardencorev1beta1.Addons{NginxIngress: &gardencorev1beta1.NginxIngress{Addon: gardencorev1beta1.Addon{Enabled: true}}} //nolint:staticcheck // Shoots made before 1.35 may have them
				s.Spec.Kubernetes.KubeAPIServer = &gardencorev1beta1.KubeAPIServerConfig{AuditConfig: &gardencorev1beta1.AuditConfig{
					AuditPolicy: &gardencorev1beta1.AuditPolicy{ConfigMapRef: &corev1.ObjectReference{Name: "audit-policy"}}}}
				s.Spec.Kubernetes.KubeProxy = &gardencorev1beta1.KubeProxyConfig{Mode: ptrTo(gardencorev1beta1.ProxyModeIPVS)}
			},
			want: []model.Unsupported{
				{Field: "spec.addons", Reason: "Gardener's add-ons have no portable field"},
				{Field: "spec.kubernetes.kubeAPIServer.auditConfig", Reason: "a kube-apiserver setting the portable API has no field for"},
				{Field: "spec.kubernetes.kubeProxy.mode", Reason: "a Kubernetes component setting the portable API has no field for"},
			},
		},
		"ARouterAndAVolumeType": {
			shoot: func(_ *testing.T, s *gardencorev1beta1.Shoot) {
				s.Spec.Provider.InfrastructureConfig.Raw = []byte(`{"apiVersion":"openstack.provider.extensions.gardener.cloud/v1alpha1","kind":"InfrastructureConfig","floatingPoolName":"ext-net","networks":{"workers":"10.250.0.0/16","router":{"id":"9c1d2a"}}}`)
				s.Spec.Provider.Workers[1].Volume.Type = ptrTo("ssd")
			},
			want: []model.Unsupported{
				{Field: "spec.provider.infrastructureConfig.networks.router", Reason: "an OpenStack setting the portable API has no field for"},
				{Field: "spec.provider.workers[name=general].volume.type", Reason: "a worker setting the portable API has no field for"},
			},
		},
		"WhatGardenerFillsIn": {
			shoot: func(_ *testing.T, s *gardencorev1beta1.Shoot) {
				gardencorev1beta1.SetObjectDefaults_Shoot(s)
				s.Spec.SeedName = ptrTo("openstack-regionone")
				s.Spec.CloudProfileName = ptrTo("openstack") //nolint:staticcheck // Gardener sets it on Shoots before 1.34
				s.Spec.DNS = &gardencorev1beta1.DNS{Domain: ptrTo("shop-rwiadu.team1.gardener.example")}
				s.Spec.Kubernetes.Version = "1.34.5"
				for i := range s.Spec.Provider.Workers {
					w := &s.Spec.Provider.Workers[i]
					w.Machine.Image = &gardencorev1beta1.ShootMachineImage{Name: "gardenlinux", Version: ptrTo("1877.3.0")}
					w.Machine.Architecture = ptrTo("amd64")
				}
			},
			// The patch is Gardener's to move: the spec names the minor, Translate keeps the patch.
			wantVersion: "1.34",
		},
		"APatchPinnedWithoutUpdates": {
			shoot: func(_ *testing.T, s *gardencorev1beta1.Shoot) {
				s.Spec.Kubernetes.Version = "1.34.5"
				s.Spec.Maintenance.AutoUpdate.KubernetesVersion = false
			},
			wantVersion: "1.34.5",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			shoot, _ := existingNatives(t, fullSpec(), environment())
			tc.shoot(t, shoot)
			imported, err := New().Import(nativesOf(t, shoot, nil), environment())
			if err != nil {
				t.Fatalf("Import: %v", err)
			}
			if diff := cmp.Diff(tc.want, imported.Unportable); diff != "" {
				t.Errorf("Unportable: -want, +got:\n%s", diff)
			}
			if imported.Spec.Access != nil {
				t.Errorf("spec.access = %+v, want none: the Shoot restricts nothing", imported.Spec.Access)
			}
			if want := stdcmp.Or(tc.wantVersion, "1.34"); imported.Spec.Kubernetes.Version != want {
				t.Errorf("spec.kubernetes.version = %s, want %s", imported.Spec.Kubernetes.Version, want)
			}
		})
	}
}

// TestImportSourceRanges: the environment's always-allowed ranges among the ACL's are its
// setting, the rest the cluster's own; all of them when none is the cluster's own.
func TestImportSourceRanges(t *testing.T) {
	cases := map[string]struct {
		always      []string
		acl         []string // nil: no ACL extension
		wantRanges  []string
		wantSetting *string // nil: absent
	}{
		"OwnAndAlwaysAllowed": {
			always: []string{"192.0.2.10/32"}, acl: []string{"192.0.2.10/32", "203.0.113.0/24"},
			wantRanges: []string{"203.0.113.0/24"}, wantSetting: ptrTo(`["192.0.2.10/32"]`),
		},
		"AlwaysAllowedChangedSince": {
			always: []string{"198.51.100.0/24"}, acl: []string{"192.0.2.10/32", "203.0.113.0/24"},
			wantRanges: []string{"192.0.2.10/32", "203.0.113.0/24"}, wantSetting: ptrTo(""),
		},
		"OnlyAlwaysAllowed": {
			always: []string{"192.0.2.10/32"}, acl: []string{"192.0.2.10/32"},
			wantRanges: []string{"192.0.2.10/32"}, wantSetting: ptrTo(`["192.0.2.10/32"]`),
		},
		"NoACL": {always: []string{"192.0.2.10/32"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			env := environment()
			env.APIServerAccess = &envv1alpha1.APIServerAccess{RestrictSourceRanges: true, AlwaysAllowedSourceRanges: tc.always}
			shoot, _ := existingNatives(t, fullSpec(), environment())
			if tc.acl != nil {
				shoot.Spec.Extensions = []gardencorev1beta1.Extension{aclExtensionOf(t, tc.acl...)}
			}
			imported, err := New().Import(nativesOf(t, shoot, nil), env)
			if err != nil {
				t.Fatalf("Import: %v", err)
			}
			var gotRanges []string
			if a := imported.Spec.Access; a != nil {
				gotRanges = a.AllowedSourceRanges
			}
			if diff := cmp.Diff(tc.wantRanges, gotRanges); diff != "" {
				t.Errorf("spec.access.allowedSourceRanges: -want, +got:\n%s", diff)
			}
			var gotSetting *string
			if v, ok := imported.Settings["data.apiServerAccess.alwaysAllowedSourceRanges"]; ok {
				gotSetting = &v
			}
			if diff := cmp.Diff(tc.wantSetting, gotSetting); diff != "" {
				t.Errorf("data.apiServerAccess.alwaysAllowedSourceRanges: -want, +got:\n%s", diff)
			}
		})
	}
}

// TestImportFollowsTheEnvironmentsCredentials: a Shoot on other credentials than its
// environment gives every cluster is imported; managing it moves it to the environment's,
// as a rotation does for every cluster, and Follows says so.
func TestImportFollowsTheEnvironmentsCredentials(t *testing.T) {
	env := environment()
	shoot, cm := existingNatives(t, fullSpec(), env)
	shoot.Spec.CredentialsBindingName = ptrTo("team1-own")
	got, err := New().Import(nativesOf(t, shoot, cm), env)
	if err != nil {
		t.Fatal(err)
	}
	want := []model.Unsupported{{Field: "spec.credentialsBindingName", Reason: "the Shoot uses CredentialsBinding team1-own; environment regionone gives every cluster openstack-credentials (data.gardener.credentialsBindingName, which every cluster follows), so managing it moves the Shoot to those credentials in place"}}
	if diff := cmp.Diff(want, got.Follows); diff != "" {
		t.Errorf("Follows: -want, +got:\n%s", diff)
	}
	if got.Spec.NodePools[0].Name != "system" {
		t.Errorf("the imported spec lost its pools: %+v", got.Spec.NodePools)
	}
}
