package gardener

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// Gardener API facts the rendering depends on.
const (
	shootAPIVersion = "core.gardener.cloud/v1beta1"
	shootKind       = "Shoot"

	// AnnotationConfirmDeletion must be "true" on a Shoot before Gardener deletes it.
	AnnotationConfirmDeletion = "confirmation.gardener.cloud/deletion"

	openstackProviderType      = "openstack"
	openstackExtensionAPI      = "openstack.provider.extensions.gardener.cloud/v1alpha1"
	defaultCloudProfileKind    = "CloudProfile"
	zoneFailureToleranceMinAZs = 3
)

// infrastructureConfig is the OpenStack extension's InfrastructureConfig, reduced to what
// the portable API sets. Gardener's extension module is not imported: it would pull the
// extension's controllers into every program that renders a Shoot.
type infrastructureConfig struct {
	APIVersion       string          `json:"apiVersion"`
	Kind             string          `json:"kind"`
	FloatingPoolName string          `json:"floatingPoolName"`
	Networks         networksWorkers `json:"networks"`
}

type networksWorkers struct {
	Workers string `json:"workers"`
}

// controlPlaneConfig is the OpenStack extension's ControlPlaneConfig, reduced likewise.
type controlPlaneConfig struct {
	APIVersion           string `json:"apiVersion"`
	Kind                 string `json:"kind"`
	LoadBalancerProvider string `json:"loadBalancerProvider"`
}

// buildShoot translates the defaulted spec into a Shoot. observed is the Shoot as it
// exists, or nil: values Gardener chose for it (the patch version behind a minor, the
// failure tolerance type, machine image versions) are kept so that a re-render never
// moves the cluster on its own.
func buildShoot(req *model.Request, observed *gardencorev1beta1.Shoot) (*gardencorev1beta1.Shoot, error) {
	spec := &req.Cluster.Spec
	env := req.Environment
	g := env.Gardener

	infra, err := json.Marshal(infrastructureConfig{
		APIVersion: openstackExtensionAPI, Kind: "InfrastructureConfig",
		FloatingPoolName: g.FloatingPoolName,
		Networks:         networksWorkers{Workers: spec.Network.NodeCIDR},
	})
	if err != nil {
		return nil, err
	}
	cp, err := json.Marshal(controlPlaneConfig{
		APIVersion: openstackExtensionAPI, Kind: "ControlPlaneConfig",
		LoadBalancerProvider: g.LoadBalancerProvider,
	})
	if err != nil {
		return nil, err
	}

	purpose := gardencorev1beta1.ShootPurpose(spec.Purpose)

	shoot := &gardencorev1beta1.Shoot{}
	shoot.APIVersion = shootAPIVersion
	shoot.Kind = shootKind
	shoot.Name = req.NativeName
	shoot.Namespace = namespace(env)
	if !*spec.DeletionProtection {
		shoot.Annotations = map[string]string{AnnotationConfirmDeletion: "true"}
	}
	shoot.Spec = gardencorev1beta1.ShootSpec{
		CloudProfile:           &gardencorev1beta1.CloudProfileReference{Kind: cmp.Or(g.CloudProfileKind, defaultCloudProfileKind), Name: g.CloudProfile},
		CredentialsBindingName: &g.CredentialsBindingName,
		Region:                 env.Region,
		Purpose:                &purpose,
		Kubernetes:             gardencorev1beta1.Kubernetes{Version: kubernetesVersion(spec.Kubernetes.Version, observed)},
		Networking: &gardencorev1beta1.Networking{
			Type:     ptrTo(string(spec.Network.CNI)),
			Nodes:    optional(spec.Network.NodeCIDR),
			Pods:     optional(spec.Network.PodCIDR),
			Services: optional(spec.Network.ServiceCIDR),
		},
		ControlPlane: controlPlane(spec, env, observed),
		Maintenance:  maintenance(spec.Maintenance),
		Hibernation:  hibernation(spec.Hibernation),
		Provider: gardencorev1beta1.Provider{
			Type:                 openstackProviderType,
			InfrastructureConfig: &runtime.RawExtension{Raw: infra},
			ControlPlaneConfig:   &runtime.RawExtension{Raw: cp},
			Workers:              workers(spec.NodePools, env, observed),
		},
	}
	if err := applyAccess(req, shoot); err != nil {
		return nil, err
	}
	return shoot, nil
}

// kubernetesVersion keeps the patch Gardener runs while the spec asks for the same minor, so
// that applying the Shoot again is not read as a request for the newest patch.
func kubernetesVersion(desired string, observed *gardencorev1beta1.Shoot) string {
	want, err := model.ParseVersion(desired)
	if err != nil || want.HasPatch() || observed == nil {
		return desired
	}
	have, err := model.ParseVersion(observed.Spec.Kubernetes.Version)
	if err != nil || !have.SameMinor(want) {
		return desired
	}
	return observed.Spec.Kubernetes.Version
}

// controlPlane maps highAvailability. Gardener cannot change a failure tolerance type once
// set, so an observed type is kept; a new one is zone when the environment offers at
// least three zones (Gardener's requirement for zone tolerance) and node otherwise.
func controlPlane(spec *kaasv1alpha1.ClusterSpec, env *model.Environment, observed *gardencorev1beta1.Shoot) *gardencorev1beta1.ControlPlane {
	if !*spec.ControlPlane.HighAvailability {
		return nil
	}
	tolerance := gardencorev1beta1.FailureToleranceTypeNode
	if len(env.Catalog.Zones) >= zoneFailureToleranceMinAZs {
		tolerance = gardencorev1beta1.FailureToleranceTypeZone
	}
	if t := observedFailureTolerance(observed); t != "" {
		tolerance = t
	}
	return &gardencorev1beta1.ControlPlane{HighAvailability: &gardencorev1beta1.HighAvailability{
		FailureTolerance: gardencorev1beta1.FailureTolerance{Type: tolerance},
	}}
}

func observedFailureTolerance(observed *gardencorev1beta1.Shoot) gardencorev1beta1.FailureToleranceType {
	if observed == nil || observed.Spec.ControlPlane == nil || observed.Spec.ControlPlane.HighAvailability == nil {
		return ""
	}
	return observed.Spec.ControlPlane.HighAvailability.FailureTolerance.Type
}

func maintenance(m *kaasv1alpha1.MaintenanceSpec) *gardencorev1beta1.Maintenance {
	out := &gardencorev1beta1.Maintenance{AutoUpdate: &gardencorev1beta1.MaintenanceAutoUpdate{
		KubernetesVersion:   *m.AutoUpdate.KubernetesPatch,
		MachineImageVersion: m.AutoUpdate.MachineImage,
	}}
	if m.Window != nil {
		out.TimeWindow = &gardencorev1beta1.MaintenanceTimeWindow{Begin: m.Window.Begin, End: m.Window.End}
	}
	return out
}

func hibernation(h *kaasv1alpha1.HibernationSpec) *gardencorev1beta1.Hibernation {
	if h == nil || (h.Enabled == nil && len(h.Schedules) == 0) {
		return nil
	}
	out := &gardencorev1beta1.Hibernation{Enabled: h.Enabled}
	for _, s := range h.Schedules {
		out.Schedules = append(out.Schedules, gardencorev1beta1.HibernationSchedule{
			Start: optional(s.Start), End: optional(s.End), Location: optional(s.Location),
		})
	}
	return out
}

func workers(pools []kaasv1alpha1.NodePool, env *model.Environment, observed *gardencorev1beta1.Shoot) []gardencorev1beta1.Worker {
	out := make([]gardencorev1beta1.Worker, 0, len(pools))
	for _, p := range pools {
		min, max := poolBounds(&p)
		w := gardencorev1beta1.Worker{
			Name:           p.Name,
			Machine:        gardencorev1beta1.Machine{Type: p.MachineType, Image: machineImage(p.Name, env, observed)},
			Minimum:        min,
			Maximum:        max,
			MaxSurge:       p.MaxSurge,
			MaxUnavailable: p.MaxUnavailable,
			Zones:          slices.Clone(p.Zones),
			Labels:         p.Labels,
		}
		for _, t := range p.Taints {
			w.Taints = append(w.Taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)})
		}
		if p.RootDiskGiB != nil {
			w.Volume = &gardencorev1beta1.Volume{VolumeSize: resource.NewQuantity(int64(*p.RootDiskGiB)<<30, resource.BinarySI).String()}
		}
		out = append(out, w)
	}
	return out
}

// poolBounds maps count (a fixed size) and autoscaling onto Gardener's minimum and maximum.
func poolBounds(p *kaasv1alpha1.NodePool) (int32, int32) {
	if p.Count != nil {
		return *p.Count, *p.Count
	}
	return p.Autoscaling.Min, p.Autoscaling.Max
}

// machineImage keeps the image a worker runs, Gardener's pick or the environment's at the
// pool's creation: versions move only in the maintenance window (autoUpdate.machineImage).
// A new pool gets the environment's image, or none, and Gardener picks the default.
func machineImage(pool string, env *model.Environment, observed *gardencorev1beta1.Shoot) *gardencorev1beta1.ShootMachineImage {
	if w := observedWorker(observed, pool); w != nil && w.Machine.Image != nil {
		return &gardencorev1beta1.ShootMachineImage{Name: w.Machine.Image.Name, Version: w.Machine.Image.Version}
	}
	if img := env.Gardener.MachineImage; img != nil {
		return &gardencorev1beta1.ShootMachineImage{Name: img.Name, Version: optional(img.Version)}
	}
	return nil
}

// environmentChanges names the pools whose image differs from the one the environment
// names now: another image, or another version where nothing moves versions on its own.
func environmentChanges(spec *kaasv1alpha1.ClusterSpec, env *model.Environment, observed *gardencorev1beta1.Shoot) []string {
	img := env.Gardener.MachineImage
	if img == nil || observed == nil {
		return nil
	}
	autoUpdate := spec.Maintenance.AutoUpdate.MachineImage != nil && *spec.Maintenance.AutoUpdate.MachineImage
	var out []string
	for _, p := range spec.NodePools {
		w := observedWorker(observed, p.Name)
		if w == nil || w.Machine.Image == nil {
			continue
		}
		have := w.Machine.Image
		if have.Name != img.Name || (!autoUpdate && img.Version != "" && deref(have.Version) != img.Version) {
			out = append(out, fmt.Sprintf("data.gardener.machineImage: pool %s keeps %s; the environment now names %s",
				p.Name, imageString(have.Name, deref(have.Version)), imageString(img.Name, img.Version)))
		}
	}
	return out
}

func imageString(name, version string) string {
	if version == "" {
		return name
	}
	return name + " " + version
}

func observedWorker(observed *gardencorev1beta1.Shoot, name string) *gardencorev1beta1.Worker {
	if observed == nil {
		return nil
	}
	for i := range observed.Spec.Provider.Workers {
		if observed.Spec.Provider.Workers[i].Name == name {
			return &observed.Spec.Provider.Workers[i]
		}
	}
	return nil
}

// manifest turns the typed Shoot into the plain object Crossplane composes, without the
// empty status and null creationTimestamp every typed object carries.
func manifest(shoot *gardencorev1beta1.Shoot) (map[string]any, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(shoot)
	if err != nil {
		return nil, fmt.Errorf("cannot encode Shoot %s: %w", shoot.Name, err)
	}
	delete(m, "status")
	if meta, ok := m["metadata"].(map[string]any); ok {
		delete(meta, "creationTimestamp")
	}
	return m, nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func ptrTo[T any](v T) *T { return &v }
