// Package magnum is the OpenStack Magnum backend: it renders provider-openstack's ClusterV1
// for the cluster and its first node pool and a NodegroupV1 per further pool and zone, and
// reads their status back. It refuses itself, naming the portable field, every change that
// Magnum could make only with a new cluster or node group (ForceNew; docs/environments.md).
package magnum

import (
	"encoding/json"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// Resource names. Each starts with the backend's type.
const (
	// ResourceCluster is the ClusterV1.
	ResourceCluster = "magnum-cluster"
	// resourceNodegroupPrefix prefixes the NodegroupV1 of a pool and zone.
	resourceNodegroupPrefix = "magnum-nodegroup-"
)

// provider-openstack facts the rendering depends on.
const (
	groupCluster    = "containerinfra.openstack.crossplane.io"
	groupNamespaced = "containerinfra.openstack.m.crossplane.io"
	version         = "v1alpha1"
	kindCluster     = "ClusterV1"
	kindNodegroup   = "NodegroupV1"

	// ConnectionKeyKubeconfig is where provider-openstack publishes the cluster's
	// kubeconfig: upjet names sensitive Terraform attributes attribute.<path>, and the
	// Terraform resource's kubeconfig attribute is a map with raw_config.
	ConnectionKeyKubeconfig = "attribute.kubeconfig.raw_config"

	// AnnotationDefaultPool names the node pool that is the ClusterV1's default node group.
	AnnotationDefaultPool = "kaas.scs.community/default-node-pool"
)

// Magnum labels the backend sets.
const (
	labelAutoscaling       = "auto_scaling_enabled"
	labelMinNodes          = "min_node_count"
	labelMaxNodes          = "max_node_count"
	labelAvailabilityZone  = "availability_zone"
	labelCalicoPool        = "calico_ipv4pool"
	labelServiceClusterIPs = "service_cluster_ip_range"
)

// Backend renders Magnum clusters through provider-openstack.
type Backend struct{}

var _ model.Backend = Backend{}

// New returns the Magnum backend.
func New() Backend { return Backend{} }

// Type is magnum.
func (Backend) Type() kaasv1alpha1.BackendType { return kaasv1alpha1.BackendMagnum }

// Requirements is empty: the managed resources carry everything the backend reads.
func (Backend) Requirements(*model.Request) map[string]model.Selector { return nil }

// Translate renders the ClusterV1 and NodegroupV1s, refusing a minor without a template and
// every ForceNew change.
func (Backend) Translate(req *model.Request) (*model.Translation, error) {
	s, err := read(req)
	if err != nil {
		return nil, model.Unreadable(err)
	}
	tpl, errs := validateTemplate(req)
	errs = append(errs, validateAccess(req)...)
	if len(errs) > 0 {
		return &model.Translation{Invalid: errs}, nil
	}
	r := render(req, s, tpl)
	if errs := validateUpdate(req, s, r); len(errs) > 0 {
		return &model.Translation{Invalid: errs}, nil
	}
	return &model.Translation{Rendering: r, Observation: observe(req, s)}, nil
}

// ValidateEnvironment checks data.magnum.
func (Backend) ValidateEnvironment(env *model.Environment) field.ErrorList {
	p := field.NewPath("data", "magnum")
	m := env.Magnum
	if m == nil {
		return field.ErrorList{field.Required(p, "an environment with backend magnum needs a magnum section")}
	}
	errs := model.RequireSettings(p,
		model.RequiredSetting{Name: "providerConfigName", Value: m.ProviderConfigName, What: "the provider-openstack ProviderConfig with the cloud credentials"},
	)
	switch m.Scope {
	case "", envv1alpha1.MagnumScopeCluster:
		if m.Namespace != "" || m.ProviderConfigKind != "" {
			errs = append(errs, field.Forbidden(p.Child("namespace"), "namespace and providerConfigKind apply to scope Namespaced only"))
		}
	case envv1alpha1.MagnumScopeNamespaced:
		if m.Namespace == "" {
			errs = append(errs, field.Required(p.Child("namespace"), "namespaced managed resources need a namespace"))
		}
		if k := m.ProviderConfigKind; k != "" && k != "ProviderConfig" && k != "ClusterProviderConfig" {
			errs = append(errs, field.NotSupported(p.Child("providerConfigKind"), k, []string{"ProviderConfig", "ClusterProviderConfig"}))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("scope"), m.Scope, []string{string(envv1alpha1.MagnumScopeCluster), string(envv1alpha1.MagnumScopeNamespaced)}))
	}
	seen := map[string]bool{}
	for i, t := range m.Templates {
		tp := p.Child("templates").Index(i)
		if v, err := model.ParseVersion(t.KubernetesVersion); err != nil || v.HasPatch() {
			errs = append(errs, field.Invalid(tp.Child("kubernetesVersion"), t.KubernetesVersion, "must be a Kubernetes minor such as 1.34"))
		}
		if seen[t.KubernetesVersion] {
			errs = append(errs, field.Duplicate(tp.Child("kubernetesVersion"), t.KubernetesVersion))
		}
		seen[t.KubernetesVersion] = true
		if t.ID == "" {
			errs = append(errs, field.Required(tp.Child("id"), "the cluster template's id"))
		}
	}
	for i, v := range env.Catalog.KubernetesVersions {
		if !seen[v] {
			errs = append(errs, field.Required(field.NewPath("data", "catalog", "kubernetesVersions").Index(i),
				fmt.Sprintf("minor %s is offered but data.magnum.templates has no cluster template for it", v)))
		}
	}
	return errs
}

// template is the environment's cluster template for the spec's minor.
func template(env *model.Environment, version string) (envv1alpha1.MagnumTemplate, bool) {
	v, err := model.ParseVersion(version)
	if err != nil {
		return envv1alpha1.MagnumTemplate{}, false
	}
	i := slices.IndexFunc(env.Magnum.Templates, func(t envv1alpha1.MagnumTemplate) bool { return t.KubernetesVersion == v.MinorString() })
	if i < 0 {
		return envv1alpha1.MagnumTemplate{}, false
	}
	return env.Magnum.Templates[i], true
}

// templatePatch says whether the environment's template of the minor (now) is a newer
// patch of the recorded one (was) and nothing else: the same minor and network driver, a
// newer kubeTag. A cluster with automatic patch updates moves to it in its maintenance
// window; another template (a new driver, the same patch) is kept until adopted, since it may
// be a change Magnum cannot make in place.
func templatePatch(was, now string) (string, string, bool) {
	var a, b envv1alpha1.MagnumTemplate
	if json.Unmarshal([]byte(was), &a) != nil || json.Unmarshal([]byte(now), &b) != nil {
		return "", "", false
	}
	va, errA := model.ParseVersion(a.KubeTag)
	vb, errB := model.ParseVersion(b.KubeTag)
	ok := errA == nil && errB == nil && va.HasPatch() && vb.HasPatch() && va.SameMinor(vb) && vb.Patch > va.Patch &&
		a.KubernetesVersion == b.KubernetesVersion && a.NetworkDriver == b.NetworkDriver
	return a.KubeTag, b.KubeTag, ok
}

// Settings are the settings of data.magnum that reach the managed resources, and the
// cluster template of the cluster's minor.
func (Backend) Settings() []model.Setting {
	elsewhere := model.ChangeEffect{Effect: model.EffectRefused, Note: "another cloud, project or namespace is another cluster"}
	forceNew := model.ChangeEffect{Effect: model.EffectRefused, Note: "Magnum cannot change it without a new cluster"}
	return []model.Setting{
		{Path: "data.magnum.scope", Change: elsewhere},
		{Path: "data.magnum.namespace", Change: elsewhere},
		{Path: "data.magnum.providerConfigName", Change: elsewhere},
		{Path: "data.magnum.providerConfigKind", Change: elsewhere},
		{Path: "data.magnum.templates[kubernetesVersion={minor}]", PatchUpdate: templatePatch, Change: model.ChangeEffect{Effect: model.EffectRollsControlPlane,
			Note: "Magnum moves the control plane and the default node group to the template, as in an upgrade"}},
		{Path: "data.magnum.keypair", Change: forceNew},
		{Path: "data.magnum.masterFlavor", Change: forceNew},
		{Path: "data.magnum.floatingIPEnabled", Change: forceNew},
		{Path: "data.magnum.masterLBEnabled", Change: forceNew},
		{Path: "data.magnum.fixedNetwork", Change: forceNew},
		{Path: "data.magnum.fixedSubnet", Change: forceNew},
		{Path: "data.magnum.labels", Change: forceNew},
		{Path: "data.apiServerAccess.alwaysAllowedSourceRanges", Change: model.ChangeEffect{Effect: model.EffectRefused,
			Note: "the label master_lb_allowed_cidrs is ForceNew"}},
	}
}

func namespaced(env *model.Environment) bool {
	return env.Magnum.Scope == envv1alpha1.MagnumScopeNamespaced
}

func apiVersion(env *model.Environment) string {
	if namespaced(env) {
		return groupNamespaced + "/" + version
	}
	return groupCluster + "/" + version
}

// clusterObjectName is derived from the cluster's name, which never changes.
func clusterObjectName(cluster string) string { return cluster + "-cluster" }

func ptrTo[T any](v T) *T { return &v }

// maxNameLength keeps the Magnum cluster's name, which OpenStack puts into the names of its
// servers (and so their host names, 63 characters at most, with suffixes such as
// -<hash>-node-12), short enough for all of them.
const maxNameLength = 40

// NameLength is the longest Magnum cluster name: maxNameLength.
func (Backend) NameLength(*model.Environment) int { return maxNameLength }
