package gardener

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"

	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// Import describes a Shoot that exists in the portable API: the reverse of buildShoot and
// applyAccess. It reads from the Shoot every value the rendering writes, the settings the
// Shoot was made with from where it shows them, and the issuer from its authentication
// ConfigMap. Then it renders the result as Translate does for this Shoot and applies it to
// the Shoot (checkRendering): what would come out different cannot be managed, what only the
// Shoot carries is Unportable.
//
// Refused, because the API cannot manage such a Shoot whatever its spec says:
//   - another provider than openstack, a Shoot being deleted, or one in another namespace
//     than the environment's project: the rendering would make a second cluster;
//   - a SecretBinding: the API names a CredentialsBinding (another CredentialsBinding than
//     the environment's is not refused: credentials follow the environment, a setting no
//     cluster keeps, so managing the Shoot moves it to the environment's, in Follows);
//   - a purpose or networking type the portable API has no value for;
//   - an issuer the spec cannot describe: a CA the environment does not give that issuer
//     (the spec names a CA only by a ConfigMap in the team's namespace, which an import
//     cannot create), several issuers, or a ConfigMap other than <shoot>-authn;
//   - a spec the model or Translate would refuse in env, such as source ranges where the
//     environment cannot restrict them;
//   - anything else the rendering would change, such as a default of the environment for
//     a value the Shoot leaves out (a root disk for a worker without a volume, an issuer or
//     source ranges), a volume size that is not whole GiB, or an extension beside the ACL
//     (the rendering writes spec.extensions whole).
//
// The rendering is taken to be applied as server-side apply does it for a first manager:
// what it does not write stays, maps merge, workers merge by name and tolerations by key,
// every other list is replaced whole (Gardener's schema gives extensions no merge key). The
// Shoot's metadata is not compared: the rendering adds its labels, and of the annotations
// writes only the deletion confirmation, which Import reads.
func (Backend) Import(natives []*unstructured.Unstructured, env *model.Environment) (*model.Imported, error) {
	if env.Gardener == nil {
		return nil, fmt.Errorf("environment %s has no gardener section: it cannot describe a Shoot", env.Name)
	}
	found, err := readNatives(natives)
	if err != nil {
		return nil, err
	}
	shoot := found.shoot
	if errs := checkImportable(shoot, env); len(errs) > 0 {
		return nil, refusal(shoot, errs)
	}
	// Credentials follow the environment: managing the Shoot moves it to the environment's
	// CredentialsBinding at once, as every cluster there (a rotation reaches them all).
	var follows []model.Unsupported
	if have, want := deref(shoot.Spec.CredentialsBindingName), env.Gardener.CredentialsBindingName; have != want {
		follows = append(follows, model.Unsupported{Field: "spec.credentialsBindingName", Reason: fmt.Sprintf(
			"the Shoot uses CredentialsBinding %s; environment %s gives every cluster %s (data.gardener.credentialsBindingName, which every cluster follows), so managing it moves the Shoot to those credentials in place",
			have, env.Name, want)})
		shoot = shoot.DeepCopy()
		shoot.Spec.CredentialsBindingName = ptrTo(want)
		found = &importedNatives{shoot: shoot, authentication: found.authentication}
	}
	imported, errs, err := importShoot(found, env)
	if err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return nil, refusal(shoot, errs)
	}
	req, err := importRequest(imported, shoot, env)
	if err != nil {
		return nil, err
	}
	if errs := refusedSpec(req, shoot); len(errs) > 0 {
		return nil, fmt.Errorf("cannot import Shoot %s/%s: environment %s refuses the portable spec it makes: %w",
			shoot.Namespace, shoot.Name, env.Name, errs.ToAggregate())
	}
	unportable, errs, err := checkRendering(req, found)
	if err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return nil, refusal(shoot, errs)
	}
	imported.Unportable, imported.Follows = unportable, follows
	return imported, nil
}

// refusal says which Shoot cannot be imported, and every reason at once.
func refusal(shoot *gardencorev1beta1.Shoot, errs field.ErrorList) error {
	return fmt.Errorf("cannot import Shoot %s/%s: %w", shoot.Namespace, shoot.Name, errs.ToAggregate())
}

// importedNatives are the objects of one Gardener cluster.
type importedNatives struct {
	shoot *gardencorev1beta1.Shoot
	// authentication is the ConfigMap <shoot>-authn; nil when there is none.
	authentication *unstructured.Unstructured
}

// readNatives finds the Shoot and its authentication ConfigMap. An AdminKubeconfig is
// passed over: it says nothing of the cluster, its settings are the environment's.
func readNatives(natives []*unstructured.Unstructured) (*importedNatives, error) {
	out := &importedNatives{}
	var configMaps []*unstructured.Unstructured
	for i, u := range natives {
		switch {
		case u == nil:
			return nil, fmt.Errorf("natives[%d] is empty", i)
		case u.GetAPIVersion() == shootAPIVersion && u.GetKind() == shootKind:
			if out.shoot != nil {
				return nil, fmt.Errorf("natives hold two Shoots, %s and %s: a cluster has one", out.shoot.Name, u.GetName())
			}
			out.shoot = &gardencorev1beta1.Shoot{}
			if err := model.DecodeObserved(u.Object, out.shoot); err != nil {
				return nil, fmt.Errorf("cannot decode Shoot %s/%s: %w", u.GetNamespace(), u.GetName(), err)
			}
		case u.GetAPIVersion() == "v1" && u.GetKind() == "ConfigMap":
			configMaps = append(configMaps, u)
		case u.GetKind() == adminKubeconfigKind:
			// Passed over: see above.
		default:
			return nil, fmt.Errorf("natives[%d] is a %s %s: a Gardener cluster is a Shoot (%s) and its authentication ConfigMap",
				i, u.GetAPIVersion(), u.GetKind(), shootAPIVersion)
		}
	}
	if out.shoot == nil {
		return nil, fmt.Errorf("natives hold no Shoot (%s)", shootAPIVersion)
	}
	for _, cm := range configMaps {
		want := authenticationConfigMapName(out.shoot.Name)
		if cm.GetName() != want || cm.GetNamespace() != out.shoot.Namespace {
			return nil, fmt.Errorf("ConfigMap %s/%s is not the authentication ConfigMap of Shoot %s/%s, which is named %s",
				cm.GetNamespace(), cm.GetName(), out.shoot.Namespace, out.shoot.Name, want)
		}
		out.authentication = cm
	}
	return out, nil
}

// checkImportable refuses what no spec can make manageable in env.
func checkImportable(shoot *gardencorev1beta1.Shoot, env *model.Environment) field.ErrorList {
	var errs field.ErrorList
	sp := field.NewPath("spec")
	if shoot.DeletionTimestamp != nil {
		errs = append(errs, field.Forbidden(field.NewPath("metadata", "deletionTimestamp"), "the Shoot is being deleted"))
	}
	if t := shoot.Spec.Provider.Type; t != openstackProviderType {
		errs = append(errs, field.NotSupported(sp.Child("provider", "type"), t, []string{openstackProviderType}))
	}
	if ns := namespace(env); shoot.Namespace != ns {
		errs = append(errs, field.Forbidden(field.NewPath("metadata", "namespace"), fmt.Sprintf(
			"the Shoot lives in garden namespace %s, environment %s makes clusters in %s (project %s): import it through an environment of its project",
			shoot.Namespace, env.Name, ns, env.Gardener.Project)))
	}
	if s := shoot.Spec.SecretBindingName; s != nil { //nolint:staticcheck // read on purpose: a Shoot of an older Gardener may still name one, which the API cannot manage
		errs = append(errs, field.Forbidden(sp.Child("secretBindingName"), fmt.Sprintf(
			"the Shoot takes its credentials from SecretBinding %s; the API names a CredentialsBinding (data.gardener.credentialsBindingName): move the Shoot to a CredentialsBinding first", *s)))
	}
	if _, err := purposeOf(shoot); err != nil {
		errs = append(errs, err)
	}
	if _, err := cniOf(shoot); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// importShoot reads the spec and the settings; errs are what the portable API cannot say.
func importShoot(found *importedNatives, env *model.Environment) (*model.Imported, field.ErrorList, error) {
	shoot := found.shoot
	configs, errs := readProviderConfigs(shoot)
	pools, poolErrs := importNodePools(shoot.Spec.Provider.Workers)
	access, accessSettings, accessErrs := importAccess(shoot, found.authentication, env)
	if errs = slices.Concat(errs, poolErrs, accessErrs); len(errs) > 0 {
		return nil, errs, nil
	}
	settings, err := importSettings(shoot, configs, env)
	if err != nil {
		return nil, nil, err
	}
	maps.Copy(settings, accessSettings)
	// checkImportable refused what these cannot map.
	purpose, _ := purposeOf(shoot)
	cni, _ := cniOf(shoot)
	maintenance := importMaintenance(shoot.Spec.Maintenance)
	return &model.Imported{
		Name: shoot.Name,
		Spec: kaasv1alpha1.ClusterSpec{
			Purpose:    purpose,
			Kubernetes: kaasv1alpha1.KubernetesSpec{Version: importVersion(shoot.Spec.Kubernetes.Version, maintenance.AutoUpdate)},
			// The failure tolerance type is not the spec's: Translate keeps the one a
			// Shoot has, as Gardener cannot change it.
			ControlPlane: kaasv1alpha1.ControlPlaneSpec{HighAvailability: ptrTo(observedFailureTolerance(shoot) != "")},
			// The rendering confirms deletion exactly while protection is off.
			DeletionProtection: ptrTo(shoot.Annotations[AnnotationConfirmDeletion] != "true"),
			Network:            importNetwork(shoot.Spec.Networking, cni),
			Maintenance:        maintenance,
			Hibernation:        importHibernation(shoot.Spec.Hibernation),
			NodePools:          pools,
			Access:             access,
		},
		Settings: settings,
	}, nil, nil
}

// purposeOf maps Gardener's purpose, evaluation when unset as Gardener defaults it; testing
// and infrastructure have no portable purpose, and the rendering would replace them.
func purposeOf(shoot *gardencorev1beta1.Shoot) (kaasv1alpha1.Purpose, *field.Error) {
	p := kaasv1alpha1.Purpose(cmp.Or(deref((*string)(shoot.Spec.Purpose)), string(gardencorev1beta1.ShootPurposeEvaluation)))
	portable := []string{string(kaasv1alpha1.PurposeEvaluation), string(kaasv1alpha1.PurposeDevelopment), string(kaasv1alpha1.PurposeProduction)}
	if !slices.Contains(portable, string(p)) {
		return "", field.NotSupported(field.NewPath("spec", "purpose"), p, portable)
	}
	return p, nil
}

// cniOf maps the networking type to the CNIs the portable API offers.
func cniOf(shoot *gardencorev1beta1.Shoot) (kaasv1alpha1.CNI, *field.Error) {
	var t string
	if n := shoot.Spec.Networking; n != nil {
		t = deref(n.Type)
	}
	portable := []string{string(kaasv1alpha1.CNICalico), string(kaasv1alpha1.CNICilium)}
	if !slices.Contains(portable, t) {
		return "", field.NotSupported(field.NewPath("spec", "networking", "type"), t, portable)
	}
	return kaasv1alpha1.CNI(t), nil
}

// importVersion names the minor while Gardener moves the patch (the rendering keeps the patch
// a Shoot runs), and pins the patch the Shoot runs otherwise.
func importVersion(version string, autoUpdate *kaasv1alpha1.AutoUpdate) string {
	v, err := model.ParseVersion(version)
	if err != nil || !v.HasPatch() || !*autoUpdate.KubernetesPatch {
		return version
	}
	return v.MinorString()
}

func importNetwork(n *gardencorev1beta1.Networking, cni kaasv1alpha1.CNI) *kaasv1alpha1.NetworkSpec {
	out := &kaasv1alpha1.NetworkSpec{CNI: cni}
	if n != nil {
		out.NodeCIDR, out.PodCIDR, out.ServiceCIDR = deref(n.Nodes), deref(n.Pods), deref(n.Services)
	}
	return out
}

// importMaintenance reads the window and auto-updates; what the Shoot leaves unset takes
// Gardener's defaults, both on.
func importMaintenance(m *gardencorev1beta1.Maintenance) *kaasv1alpha1.MaintenanceSpec {
	out := &kaasv1alpha1.MaintenanceSpec{AutoUpdate: &kaasv1alpha1.AutoUpdate{KubernetesPatch: ptrTo(true), MachineImage: ptrTo(true)}}
	if m == nil {
		return out
	}
	if w := m.TimeWindow; w != nil {
		out.Window = &kaasv1alpha1.MaintenanceWindow{Begin: w.Begin, End: w.End}
	}
	if a := m.AutoUpdate; a != nil {
		out.AutoUpdate.KubernetesPatch = ptrTo(a.KubernetesVersion)
		if a.MachineImageVersion != nil {
			out.AutoUpdate.MachineImage = ptrTo(*a.MachineImageVersion)
		}
	}
	return out
}

func importHibernation(h *gardencorev1beta1.Hibernation) *kaasv1alpha1.HibernationSpec {
	if h == nil || (h.Enabled == nil && len(h.Schedules) == 0) {
		return nil
	}
	out := &kaasv1alpha1.HibernationSpec{}
	if h.Enabled != nil {
		out.Enabled = ptrTo(*h.Enabled)
	}
	for _, s := range h.Schedules {
		out.Schedules = append(out.Schedules, kaasv1alpha1.HibernationSchedule{Start: deref(s.Start), End: deref(s.End), Location: deref(s.Location)})
	}
	return out
}

// importNodePools makes a pool of every worker.
func importNodePools(workers []gardencorev1beta1.Worker) ([]kaasv1alpha1.NodePool, field.ErrorList) {
	var errs field.ErrorList
	out := make([]kaasv1alpha1.NodePool, 0, len(workers))
	for _, w := range workers {
		p, err := importNodePool(&w)
		if err != nil {
			errs = append(errs, err)
		}
		out = append(out, p)
	}
	return out, errs
}

// importNodePool sizes the pool by a fixed count where minimum and maximum agree, which
// renders the same as autoscaling between equal bounds. The machine image is not the
// pool's: Translate keeps the one the worker runs.
func importNodePool(w *gardencorev1beta1.Worker) (kaasv1alpha1.NodePool, *field.Error) {
	p := kaasv1alpha1.NodePool{
		Name:        w.Name,
		MachineType: w.Machine.Type,
		Zones:       slices.Clone(w.Zones),
		Labels:      maps.Clone(w.Labels),
		Taints:      importTaints(w.Taints),
	}
	if w.Minimum == w.Maximum {
		p.Count = ptrTo(w.Minimum)
	} else {
		p.Autoscaling = &kaasv1alpha1.Autoscaling{Min: w.Minimum, Max: w.Maximum}
	}
	if w.MaxSurge != nil {
		p.MaxSurge = ptrTo(*w.MaxSurge)
	}
	if w.MaxUnavailable != nil {
		p.MaxUnavailable = ptrTo(*w.MaxUnavailable)
	}
	var err *field.Error
	p.RootDiskGiB, err = rootDiskGiB(workerPath(w.Name).Child("volume", "size"), w.Volume)
	return p, err
}

func importTaints(taints []corev1.Taint) []kaasv1alpha1.Taint {
	var out []kaasv1alpha1.Taint
	for _, t := range taints {
		out = append(out, kaasv1alpha1.Taint{Key: t.Key, Value: t.Value, Effect: kaasv1alpha1.TaintEffect(t.Effect)})
	}
	return out
}

// rootDiskGiB reads a worker's volume size; the portable API has whole GiB only.
func rootDiskGiB(p *field.Path, v *gardencorev1beta1.Volume) (*int32, *field.Error) {
	if v == nil || v.VolumeSize == "" {
		return nil, nil
	}
	q, err := resource.ParseQuantity(v.VolumeSize)
	if err != nil {
		return nil, field.Invalid(p, v.VolumeSize, err.Error())
	}
	bytes := q.Value()
	if bytes <= 0 || bytes%(1<<30) != 0 || bytes>>30 > math.MaxInt32 {
		return nil, field.Invalid(p, v.VolumeSize, "the portable API sizes root disks in whole GiB (spec.nodePools[].rootDiskGiB)")
	}
	return ptrTo(int32(bytes >> 30)), nil
}

func workerPath(name string) *field.Path {
	return field.NewPath("spec", "provider", "workers").Key("name=" + name)
}

// providerConfigs are the OpenStack extension's configurations, reduced to what the
// rendering writes.
type providerConfigs struct {
	infrastructure infrastructureConfig
	controlPlane   controlPlaneConfig
}

func readProviderConfigs(shoot *gardencorev1beta1.Shoot) (providerConfigs, field.ErrorList) {
	p := field.NewPath("spec", "provider")
	var out providerConfigs
	errs := decodeProviderConfig(p.Child("infrastructureConfig"), shoot.Spec.Provider.InfrastructureConfig, &out.infrastructure)
	return out, append(errs, decodeProviderConfig(p.Child("controlPlaneConfig"), shoot.Spec.Provider.ControlPlaneConfig, &out.controlPlane)...)
}

// decodeProviderConfig leaves into empty for a missing configuration: the rendering writes
// one, and checkRendering says so.
func decodeProviderConfig(p *field.Path, raw *runtime.RawExtension, into any) field.ErrorList {
	if raw == nil || len(raw.Raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw.Raw, into); err != nil {
		return field.ErrorList{field.Invalid(p, string(raw.Raw), err.Error())}
	}
	return nil
}

// The settings Import reads, by path (Backend.Settings, model.SettingsOf).
const (
	settingRegion               = "data.region"
	settingCloudProfile         = "data.gardener.cloudProfile"
	settingCloudProfileKind     = "data.gardener.cloudProfileKind"
	settingFloatingPoolName     = "data.gardener.floatingPoolName"
	settingLoadBalancerProvider = "data.gardener.loadBalancerProvider"
	settingMachineImage         = "data.gardener.machineImage"
	settingAlwaysAllowed        = "data.apiServerAccess.alwaysAllowedSourceRanges"
)

// importSettings are the settings the Shoot shows. Where it was made with a setting unset
// (no machine image) the value is "", which unsets it. The garden, project and admin
// kubeconfig settings do not show in a Shoot, and the credentials are followed, not kept:
// checkImportable compares the namespace and credentials with env instead.
func importSettings(shoot *gardencorev1beta1.Shoot, configs providerConfigs, env *model.Environment) (map[string]string, error) {
	image, err := machineImageSetting(shoot.Spec.Provider.Workers)
	if err != nil {
		return nil, err
	}
	profile, kind := cloudProfileOf(shoot)
	return map[string]string{
		settingRegion:               shoot.Spec.Region,
		settingCloudProfile:         profile,
		settingCloudProfileKind:     cloudProfileKindSetting(kind, env),
		settingFloatingPoolName:     configs.infrastructure.FloatingPoolName,
		settingLoadBalancerProvider: configs.controlPlane.LoadBalancerProvider,
		settingMachineImage:         image,
	}, nil
}

// cloudProfileOf reads spec.cloudProfile, or the older spec.cloudProfileName.
func cloudProfileOf(shoot *gardencorev1beta1.Shoot) (name, kind string) {
	if r := shoot.Spec.CloudProfile; r != nil {
		return r.Name, cmp.Or(r.Kind, defaultCloudProfileKind)
	}
	return deref(shoot.Spec.CloudProfileName), defaultCloudProfileKind //nolint:staticcheck // read on purpose: Shoots made before cloudProfile carry only it
}

// cloudProfileKindSetting spells the default kind as env does ("" or CloudProfile): both
// render the same, and the environment's spelling is no change to report.
func cloudProfileKindSetting(kind string, env *model.Environment) string {
	if kind == defaultCloudProfileKind && env.Gardener.CloudProfileKind != defaultCloudProfileKind {
		return ""
	}
	return kind
}

// machineImageSetting is the image of the first worker that names one: the environment's at
// the Shoot's creation, as the rendering gives it to new pools. Translate keeps every
// existing worker's own image.
func machineImageSetting(workers []gardencorev1beta1.Worker) (string, error) {
	for _, w := range workers {
		if img := w.Machine.Image; img != nil {
			raw, err := json.Marshal(envv1alpha1.MachineImage{Name: img.Name, Version: deref(img.Version)})
			return string(raw), err
		}
	}
	return "", nil
}

// importAccess reads spec.access: the issuer of the authentication ConfigMap the Shoot
// references, and the ranges of the ACL extension with the always-allowed setting among them.
func importAccess(shoot *gardencorev1beta1.Shoot, cm *unstructured.Unstructured, env *model.Environment) (*kaasv1alpha1.AccessSpec, map[string]string, field.ErrorList) {
	oidc, errs := importOIDC(shoot, cm, env)
	ranges, settings, err := importSourceRanges(shoot, env)
	if err != nil {
		errs = append(errs, err)
	}
	if oidc == nil && len(ranges) == 0 {
		return nil, settings, errs
	}
	return &kaasv1alpha1.AccessSpec{OIDC: oidc, AllowedSourceRanges: ranges}, settings, errs
}

// importOIDC reads the first issuer with every claim and prefix explicit.
func importOIDC(shoot *gardencorev1beta1.Shoot, cm *unstructured.Unstructured, env *model.Environment) (*kaasv1alpha1.OIDCSpec, field.ErrorList) {
	k := shoot.Spec.Kubernetes.KubeAPIServer
	if k == nil || k.StructuredAuthentication == nil {
		return nil, nil
	}
	p := field.NewPath("spec", "kubernetes", "kubeAPIServer", "structuredAuthentication", "configMapName")
	name := authenticationConfigMapName(shoot.Name)
	switch {
	case k.StructuredAuthentication.ConfigMapName != name:
		return nil, field.ErrorList{field.Forbidden(p, fmt.Sprintf(
			"the Shoot reads its authentication from ConfigMap %s; the API renders spec.access.oidc into %s only", k.StructuredAuthentication.ConfigMapName, name))}
	case cm == nil:
		return nil, field.ErrorList{field.Required(p, fmt.Sprintf(
			"ConfigMap %s/%s, which the Shoot references, is not among the natives: its issuer is part of the cluster", shoot.Namespace, name))}
	}
	raw, _, _ := unstructured.NestedString(cm.Object, "data", AuthenticationConfigKey)
	issuer, ca, err := readIssuer(authenticationPath(name), []byte(raw))
	switch {
	case err != nil:
		return nil, field.ErrorList{err}
	case issuer == nil:
		// An empty configuration: the Shoot signs nobody in, and its reference stays.
		return nil, nil
	}
	if err := checkIssuerCA(authenticationPath(name), issuer.IssuerURL, ca, env); err != nil {
		return nil, field.ErrorList{err}
	}
	claims := kaasv1alpha1.OIDCClaims{IssuerURL: issuer.IssuerURL, ClientID: issuer.ClientID, UsernameClaim: issuer.UsernameClaim}
	if issuer.UsernameClaim != "" {
		claims.UsernamePrefix = ptrTo(issuer.UsernamePrefix)
	}
	if issuer.GroupsClaim != "" {
		claims.GroupsClaim, claims.GroupsPrefix = issuer.GroupsClaim, ptrTo(issuer.GroupsPrefix)
	}
	return &kaasv1alpha1.OIDCSpec{OIDCClaims: claims}, nil
}

// authenticationPath is the configuration in the ConfigMap, for messages.
func authenticationPath(configMap string) *field.Path {
	return field.NewPath("configmap/" + configMap).Child("data").Key(AuthenticationConfigKey)
}

// readIssuer reads the one issuer of an AuthenticationConfiguration and its CA; nil for an
// empty configuration, which a cluster that stopped signing people in keeps.
func readIssuer(p *field.Path, raw []byte) (*kaasv1alpha1.OIDCStatus, string, *field.Error) {
	var cfg struct {
		JWT []struct {
			Issuer struct {
				CertificateAuthority string `json:"certificateAuthority"`
			} `json:"issuer"`
		} `json:"jwt"`
	}
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		return nil, "", field.Invalid(p, "(AuthenticationConfiguration)", err.Error())
	}
	if n := len(cfg.JWT); n > 1 {
		return nil, "", field.TooMany(p.Child("jwt"), n, 1)
	}
	issuer, err := issuerOf(raw)
	if err != nil {
		return nil, "", field.Invalid(p, "(AuthenticationConfiguration)", err.Error())
	}
	if issuer == nil {
		return nil, "", nil
	}
	return issuer, cfg.JWT[0].Issuer.CertificateAuthority, nil
}

// checkIssuerCA refuses a CA other than the one the rendering would give the issuer: the
// environment's for its own issuer (defaults.access.oidc), none for any other. The spec
// could name another only by a ConfigMap in the team's namespace, which an import cannot
// create.
func checkIssuerCA(p *field.Path, issuerURL, ca string, env *model.Environment) *field.Error {
	envCA := environmentCA(issuerURL, env)
	switch {
	case ca == envCA:
		return nil
	case envCA == "":
		return field.Forbidden(p.Child("jwt").Index(0).Child("issuer", "certificateAuthority"), fmt.Sprintf(
			"the Shoot trusts issuer %s through a CA of its own, which environment %s does not give that issuer: the portable spec names a CA only by a ConfigMap in the cluster's namespace (spec.access.oidc.certificateAuthorityRef), which an import cannot create",
			issuerURL, env.Name))
	default:
		return field.Forbidden(p.Child("jwt").Index(0).Child("issuer", "certificateAuthority"), fmt.Sprintf(
			"the Shoot trusts issuer %s through another CA than environment %s gives it (data.defaults.access.oidc.certificateAuthority), which the rendering would put in its place",
			issuerURL, env.Name))
	}
}

// environmentCA is the CA the environment gives an issuer: its own issuer's, else none.
func environmentCA(issuerURL string, env *model.Environment) string {
	if d := env.Defaults.Access; d != nil && d.OIDC != nil && d.OIDC.IssuerURL == issuerURL {
		return d.OIDC.CertificateAuthority
	}
	return ""
}

// importSourceRanges reads the ranges of the enabled ACL extension. The environment's
// always-allowed ranges among them are its setting (data.apiServerAccess.alwaysAllowedSourceRanges,
// "" when none is), the rest the cluster's own; all of them when they are all always-allowed,
// as a cluster needs ranges of its own for the rendering to make the extension. A disabled
// extension restricts nothing and stays as it is: Unportable.
func importSourceRanges(shoot *gardencorev1beta1.Shoot, env *model.Environment) ([]string, map[string]string, *field.Error) {
	for _, e := range shoot.Spec.Extensions {
		if e.Type != ACLExtensionType || e.ProviderConfig == nil || (e.Disabled != nil && *e.Disabled) {
			continue
		}
		ranges, err := aclRanges(e.ProviderConfig.Raw)
		if err != nil {
			return nil, nil, field.Invalid(field.NewPath("spec", "extensions").Key("type="+ACLExtensionType).Child("providerConfig"), string(e.ProviderConfig.Raw), err.Error())
		}
		if len(ranges) == 0 {
			return nil, nil, nil
		}
		always, own := splitAlwaysAllowed(ranges, env)
		return own, map[string]string{settingAlwaysAllowed: rangesSetting(always)}, nil
	}
	return nil, nil, nil
}

// aclRanges are the ranges of the ACL extension's rule.
func aclRanges(raw []byte) ([]string, error) {
	var cfg struct {
		Rule struct {
			CIDRs []string `json:"cidrs"`
		} `json:"rule"`
	}
	err := json.Unmarshal(raw, &cfg)
	return cfg.Rule.CIDRs, err
}

// rangesSetting is ranges as status.backend.pinned writes the setting: JSON, "" for none.
func rangesSetting(ranges []string) string {
	if len(ranges) == 0 {
		return ""
	}
	raw, _ := json.Marshal(ranges) // a list of strings always marshals
	return string(raw)
}

// splitAlwaysAllowed parts the ranges into the environment's always-allowed ones, in its
// order, and the cluster's own.
func splitAlwaysAllowed(ranges []string, env *model.Environment) (always, own []string) {
	var offered []string
	if a := env.APIServerAccess; a != nil {
		offered = a.AlwaysAllowedSourceRanges
	}
	for _, r := range offered {
		if slices.Contains(ranges, r) && !slices.Contains(always, r) {
			always = append(always, r)
		}
	}
	for _, r := range ranges {
		if !slices.Contains(always, r) {
			own = append(own, r)
		}
	}
	if len(own) == 0 {
		own = slices.Clone(ranges)
	}
	return always, own
}

// checkRendering renders the imported cluster as Translate does for the Shoot (req, in env
// with the imported settings) and applies the rendering to the Shoot. Every value it would
// change is an error: the portable API cannot say otherwise. What the Shoot carries beyond
// the rendering and Gardener's defaults is unportable.
func checkRendering(req *model.Request, found *importedNatives) ([]model.Unsupported, field.ErrorList, error) {
	rendered, err := buildShoot(req, found.shoot)
	if err != nil {
		return nil, nil, err
	}
	changes, err := shootChanges(found.shoot, rendered)
	if err != nil {
		return nil, nil, err
	}
	if cm := found.authentication; cm != nil {
		configChange, err := authenticationChange(cm, req.Access)
		if err != nil {
			return nil, nil, err
		}
		changes = append(changes, configChange...)
	}
	if len(changes) > 0 {
		return nil, changes, nil
	}
	unportable, err := unportableOf(found.shoot, rendered)
	return unportable, nil, err
}

// authenticationChange refuses a configuration the rendering would replace: the ConfigMap
// holds one value, written whole.
func authenticationChange(cm *unstructured.Unstructured, access model.Access) (field.ErrorList, error) {
	want, err := authenticationConfiguration(access.OIDC)
	if err != nil {
		return nil, err
	}
	raw, _, _ := unstructured.NestedString(cm.Object, "data", AuthenticationConfigKey)
	var w, h any
	if err := yaml.Unmarshal(want, &w); err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal([]byte(raw), &h); err != nil || !reflect.DeepEqual(w, h) {
		return field.ErrorList{field.Forbidden(authenticationPath(cm.GetName()),
			"the AuthenticationConfiguration carries more or other than the rendering writes from spec.access.oidc (one issuer: its URL, audience, CA, username and groups claims and prefixes), and the rendering replaces it whole")}, nil
	}
	return nil, nil
}

// importRequest is the request Translate would get for the imported cluster.
func importRequest(imported *model.Imported, shoot *gardencorev1beta1.Shoot, env *model.Environment) (*model.Request, error) {
	kept, err := model.WithSettings(env, imported.Settings)
	if err != nil {
		return nil, err
	}
	xr := &kaasv1alpha1.XSCSCluster{Spec: model.Default(imported.Spec, kept, nil)}
	xr.Name = shoot.Name
	req := &model.Request{Cluster: xr, NativeName: shoot.Name, Environment: kept, Observed: map[string]model.ObservedResource{}}
	// Import writes no certificateAuthorityRef: nothing is required.
	if req.Access, err = model.ResolveAccess(req, nil); err != nil {
		return nil, err
	}
	return req, nil
}

// refusedSpec is what the model and Translate would refuse of the imported spec; the values
// the Shoot has stay accepted where the catalog no longer offers them.
func refusedSpec(req *model.Request, shoot *gardencorev1beta1.Shoot) field.ErrorList {
	spec := &req.Cluster.Spec
	current := &kaasv1alpha1.ClusterStatus{Kubernetes: &kaasv1alpha1.KubernetesStatus{Version: shoot.Spec.Kubernetes.Version}, NodePools: nodePools(shoot)}
	return slices.Concat(
		model.Validate(spec, req.Environment, current),
		model.ValidateAccess(spec, nil, req.Environment, true),
		validate(req, shoot),
	)
}

// shootChanges are the values of the Shoot that applying the rendering would change, both
// taken after Gardener's defaulting.
func shootChanges(shoot, rendered *gardencorev1beta1.Shoot) (field.ErrorList, error) {
	applied, err := appliedShoot(shoot, rendered)
	if err != nil {
		return nil, err
	}
	before, err := gardenerDefaulted(shoot)
	if err != nil {
		return nil, err
	}
	after, err := gardenerDefaulted(applied)
	if err != nil {
		return nil, err
	}
	var errs field.ErrorList
	walk("spec", before, after, func(path string, have, want any) {
		errs = append(errs, field.Forbidden(field.NewPath(path), fmt.Sprintf(
			"the Shoot has %s, the rendering of the imported spec makes it %s: the portable API cannot keep it (a default of the environment fills in what the Shoot leaves out, or the spec has no field for it)",
			shown(have), shown(want))))
	})
	return errs, nil
}

// appliedShoot is the Shoot after the rendering is applied to it (applyOnto).
func appliedShoot(shoot, rendered *gardencorev1beta1.Shoot) (*gardencorev1beta1.Shoot, error) {
	have, err := plainSpec(shoot)
	if err != nil {
		return nil, err
	}
	want, err := plainSpec(rendered)
	if err != nil {
		return nil, err
	}
	out := &gardencorev1beta1.Shoot{}
	if err := model.DecodeObserved(map[string]any{"spec": applyOnto("spec", have, want)}, out); err != nil {
		return nil, fmt.Errorf("cannot decode Shoot %s/%s with the rendering applied: %w", shoot.Namespace, shoot.Name, err)
	}
	out.ObjectMeta = *shoot.ObjectMeta.DeepCopy()
	return out, nil
}

// gardenerDefaulted is the Shoot's spec as a plain object after Gardener's own defaulting,
// which the garden applies to every Shoot it stores: a value Gardener fills in is neither a
// change nor unportable. Gardener's default maintenance window is random: an unset one
// stays unset.
func gardenerDefaulted(s *gardencorev1beta1.Shoot) (map[string]any, error) {
	d := s.DeepCopy()
	window := d.Spec.Maintenance != nil && d.Spec.Maintenance.TimeWindow != nil
	gardencorev1beta1.SetObjectDefaults_Shoot(d)
	if !window {
		d.Spec.Maintenance.TimeWindow = nil
	}
	return plainSpec(d)
}

// plainSpec is the Shoot's spec as a plain object, undefaulted.
func plainSpec(s *gardencorev1beta1.Shoot) (map[string]any, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(s)
	if err != nil {
		return nil, err
	}
	spec, _ := m["spec"].(map[string]any)
	return spec, nil
}

// mergeKeys are the lists that server-side apply merges by a key: those Gardener's schema
// gives a patch merge key. Every other list is atomic.
var mergeKeys = map[string]string{
	"spec.provider.workers":                          "name",
	"spec.tolerations":                               "key",
	"spec.kubernetes.kubeAPIServer.admissionPlugins": "name",
}

// reportKeys name the elements of lists in messages.
var reportKeys = map[string]string{
	"spec.provider.workers": "name",
	"spec.tolerations":      "key",
	"spec.extensions":       "type",
	"spec.resources":        "name",
	"spec.kubernetes.kubeAPIServer.admissionPlugins": "name",
}

var indices = regexp.MustCompile(`\[[^\]]*\]`)

// schemaPath is path without list keys, as the tables name it.
func schemaPath(path string) string { return indices.ReplaceAllString(path, "") }

// applyOnto is have after applying want: maps merge, keyed lists merge by key, anything else
// is want's.
func applyOnto(path string, have, want any) any {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return w
		}
		out := maps.Clone(h)
		for k, v := range w {
			out[k] = applyOnto(path+"."+k, h[k], v)
		}
		return out
	case []any:
		key := mergeKeys[schemaPath(path)]
		h, ok := have.([]any)
		if key == "" || !ok {
			return w
		}
		out := slices.Clone(h)
		for _, we := range w {
			id := elementKey(we, key)
			if i := slices.IndexFunc(out, func(he any) bool { return elementKey(he, key) == id }); i >= 0 {
				out[i] = applyOnto(path+"[]", out[i], we)
			} else {
				out = append(out, we)
			}
		}
		return out
	}
	return want
}

func elementKey(e any, key string) string {
	m, _ := e.(map[string]any)
	s, _ := m[key].(string)
	return s
}

// unportableOf are the fields of the Shoot the rendering does not write, where they differ
// from what Gardener gives the rendering by default; what Gardener chooses by itself is not
// the Shoot's to carry.
func unportableOf(shoot, rendered *gardencorev1beta1.Shoot) ([]model.Unsupported, error) {
	have, err := gardenerDefaulted(shoot)
	if err != nil {
		return nil, err
	}
	dropGardenerDecided(have)
	want, err := gardenerDefaulted(rendered)
	if err != nil {
		return nil, err
	}
	var out []model.Unsupported
	walk("spec", have, want, func(path string, h, _ any) {
		if !isEmpty(h) {
			out = append(out, model.Unsupported{Field: path, Reason: unportableReason(path)})
		}
	})
	return out, nil
}

// dropGardenerDecided removes what Gardener fills in from its seeds, CloudProfile and garden
// by itself, beyond its defaulting: the seed, the default domain, the older name of the
// CloudProfile reference, the machine architecture.
func dropGardenerDecided(spec map[string]any) {
	delete(spec, "seedName")
	delete(spec, "cloudProfileName")
	unstructured.RemoveNestedField(spec, "dns", "domain")
	workers, _, _ := unstructured.NestedSlice(spec, "provider", "workers")
	for _, w := range workers {
		if m, ok := w.(map[string]any); ok {
			unstructured.RemoveNestedField(m, "machine", "architecture")
		}
	}
	if len(workers) > 0 {
		_ = unstructured.SetNestedSlice(spec, workers, "provider", "workers")
	}
}

// unportableReasons say why a field is unportable, by the first schema path it lies under.
var unportableReasons = []struct{ prefix, reason string }{
	{"spec.extensions", "an extension the API does not make"},
	{"spec.addons", "Gardener's add-ons have no portable field"},
	{"spec.kubernetes.kubeAPIServer", "a kube-apiserver setting the portable API has no field for"},
	{"spec.kubernetes", "a Kubernetes component setting the portable API has no field for"},
	{"spec.provider.workers", "a worker setting the portable API has no field for"},
	{"spec.provider", "an OpenStack setting the portable API has no field for"},
	{"spec", "a Shoot setting the portable API has no field for"},
}

func unportableReason(path string) string {
	p := schemaPath(path)
	for _, r := range unportableReasons {
		if p == r.prefix || strings.HasPrefix(p, r.prefix+".") {
			return r.reason
		}
	}
	return unportableReasons[len(unportableReasons)-1].reason
}

// walk calls visit where two plain objects differ, at the outermost field that does: a
// field only one has, a value, or an element of a list with reportKeys (by its key); other
// lists are compared whole. Empty values equal absent ones.
func walk(path string, have, want any, visit func(path string, have, want any)) {
	if isEmpty(have) && isEmpty(want) {
		return
	}
	if h, ok := have.(map[string]any); ok {
		if w, ok := want.(map[string]any); ok {
			for _, k := range slices.Sorted(maps.Keys(union(h, w))) {
				walk(path+"."+k, h[k], w[k], visit)
			}
			return
		}
	}
	if h, w, ok := lists(have, want); ok && walkKeyed(path, h, w, visit) {
		return
	}
	if !reflect.DeepEqual(have, want) {
		visit(path, have, want)
	}
}

// walkKeyed walks the elements of two lists by their key; false when the list has no key,
// or an element lacks it.
func walkKeyed(path string, have, want []any, visit func(path string, have, want any)) bool {
	key := reportKeys[schemaPath(path)]
	if key == "" {
		return false
	}
	var ids []string
	byID := map[string][2]any{}
	for side, list := range [][]any{have, want} {
		for _, e := range list {
			id := elementKey(e, key)
			if id == "" {
				return false
			}
			pair, seen := byID[id]
			if !seen {
				ids = append(ids, id)
			}
			pair[side] = e
			byID[id] = pair
		}
	}
	for _, id := range ids {
		walk(fmt.Sprintf("%s[%s=%s]", path, key, id), byID[id][0], byID[id][1], visit)
	}
	return true
}

// lists are two lists, either of them possibly absent.
func lists(a, b any) ([]any, []any, bool) {
	al, aok := a.([]any)
	bl, bok := b.([]any)
	return al, bl, (aok || a == nil) && (bok || b == nil)
}

func union(a, b map[string]any) map[string]any {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}

func isEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string:
		return t == ""
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	}
	return false
}

// shown is a value for a message: JSON, shortened; none for an absent one.
func shown(v any) string {
	if isEmpty(v) {
		return "none"
	}
	raw, err := json.Marshal(v)
	if err != nil {
		raw = []byte(fmt.Sprint(v))
	}
	if len(raw) > maxShown {
		return string(raw[:maxShown-3]) + "..."
	}
	return string(raw)
}

// maxShown keeps a message with several values readable.
const maxShown = 200
