// Package clusterstack is the Cluster API backend for SCS Cluster Stacks: it renders a
// Cluster (cluster.x-k8s.io/v1beta2) with the topology of a ClusterClass the Cluster Stack
// operator provides, resolving a minor such as "1.34" from the operator's
// ClusterStackReleases, and reads the Cluster's status back. How the releases and the
// kubeconfig are read on a local or remote management cluster: docs/environments.md.
package clusterstack

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	envv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/environment/v1alpha1"
	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
	"github.com/SovereignCloudStack/scs-kaas/model"
)

// Resource and requirement names. Each starts with the backend's type.
const (
	// ResourceCluster is the Cluster (or the Object that wraps it).
	ResourceCluster = "clusterstack-cluster"
	// ResourceReleases observes a remote management cluster's ClusterStackReleases.
	ResourceReleases = RequirementReleases
	// ResourceKubeconfig is the observe-only Object of a remote cluster's kubeconfig Secret.
	ResourceKubeconfig = RequirementKubeconfig

	// RequirementReleases are the ClusterStackReleases (local) or the Objects observing them.
	RequirementReleases = "clusterstack-releases"
	// RequirementKubeconfig is the kubeconfig Secret of a local Cluster.
	RequirementKubeconfig = "clusterstack-kubeconfig"
)

// APIs the backend renders and reads.
const (
	clusterAPIVersion = "cluster.x-k8s.io/v1beta2"
	clusterKind       = "Cluster"

	releaseAPIVersion = "clusterstack.x-k8s.io/v1alpha1"
	releaseKind       = "ClusterStackRelease"
)

// Backend renders Cluster API Clusters of SCS Cluster Stacks.
type Backend struct{}

var _ model.Backend = Backend{}

// New returns the Cluster Stacks backend.
func New() Backend { return Backend{} }

// Type is clusterstack.
func (Backend) Type() kaasv1alpha1.BackendType { return kaasv1alpha1.BackendClusterStack }

// knownVariables are the portable fields that can be mapped to topology variables.
var knownVariables = []string{
	envv1alpha1.VariableWorkerFlavor, envv1alpha1.VariableWorkerRootDisk,
	envv1alpha1.VariableNodeCIDR, envv1alpha1.VariableControlPlaneAvailabilityZones, envv1alpha1.VariableOIDCConfig, envv1alpha1.VariableAPIServerAllowedCIDRs,
}

// ValidateEnvironment checks data.clusterStack.
func (Backend) ValidateEnvironment(env *model.Environment) field.ErrorList {
	p := field.NewPath("data", "clusterStack")
	cs := env.ClusterStack
	if cs == nil {
		return field.ErrorList{field.Required(p, "an environment with backend clusterstack needs a clusterStack section")}
	}
	errs := model.RequireSettings(p,
		model.RequiredSetting{Name: "managementCluster", Value: cs.ManagementCluster, What: `a provider-kubernetes ProviderConfig name for the management cluster, or "local"`},
		model.RequiredSetting{Name: "namespace", Value: cs.Namespace, What: "the namespace of Clusters, ClusterClasses and ClusterStackReleases"},
		model.RequiredSetting{Name: "provider", Value: cs.Provider, What: "the Cluster Stack provider, such as openstack"},
		model.RequiredSetting{Name: "stack", Value: cs.Stack, What: "the Cluster Stack name, such as scs2"},
	)
	for _, n := range []struct{ name, value string }{{"provider", cs.Provider}, {"stack", cs.Stack}} {
		if n.value != "" && (len(validation.IsDNS1123Label(n.value)) > 0 || strings.Contains(n.value, "-")) {
			errs = append(errs, field.Invalid(p.Child(n.name), n.value, "must be a lower-case name without dashes: it is part of ClusterClass names"))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(cs.VariableNames)) {
		if !slices.Contains(knownVariables, k) {
			errs = append(errs, field.NotSupported(p.Child("variableNames").Key(k), k, knownVariables))
		}
	}
	return errs
}

// Requirements are the ClusterStackReleases, and the kubeconfig Secret of a local Cluster.
func (Backend) Requirements(req *model.Request) map[string]model.Selector {
	mgmt := management(req)
	reqs := map[string]model.Selector{RequirementReleases: mgmt.ListRequirement(releaseList(req))}
	maps.Copy(reqs, mgmt.SecretRequirements(kubeconfigRead(req)))
	return reqs
}

// Translate renders the Cluster, refusing what Cluster API and the Cluster Stack operator do.
func (Backend) Translate(req *model.Request) (*model.Translation, error) {
	s, err := read(req)
	if err != nil {
		return nil, model.Unreadable(err)
	}
	if errs := validate(req, s); len(errs) > 0 {
		return &model.Translation{Invalid: errs}, nil
	}
	obs, err := observe(req, s)
	if err != nil {
		return nil, model.Unreadable(err)
	}
	r, err := render(req, s)
	if err != nil {
		return nil, err
	}
	return &model.Translation{Rendering: r, Observation: obs}, nil
}

// state is what the backend read for one request.
type state struct {
	mgmt    model.Placement
	cluster *clusterv1.Cluster // as it exists, or nil
	// rel is the release to render; pending while a remote management cluster's releases
	// are unknown and no Cluster exists; relErr when no release fits the spec.
	rel        release
	pending    bool
	relErr     error
	kubeconfig map[string][]byte // the Cluster's kubeconfig as connection details, or nil
}

func read(req *model.Request) (*state, error) {
	s := &state{mgmt: management(req)}
	var err error
	if s.cluster, err = observedCluster(req); err != nil {
		return nil, err
	}
	rels, known, err := releases(req, s.mgmt)
	if err != nil {
		return nil, err
	}
	s.rel, s.pending, s.relErr = resolveRelease(req, rels, known, s.cluster)
	if s.kubeconfig, err = kubeconfigDetails(req, s.mgmt); err != nil {
		return nil, err
	}
	return s, nil
}

// Settings are the settings of data.clusterStack that reach a Cluster, and the catalog's
// zones, over which a highly available control plane spreads.
func (Backend) Settings() []model.Setting {
	elsewhere := model.ChangeEffect{Effect: model.EffectRefused, Note: "another management cluster or namespace is another cluster"}
	rolls := model.ChangeEffect{Effect: model.EffectRollsControlPlane,
		Note: "Cluster API rolls the control plane and the workers whose templates the ClusterClass patches with it"}
	return []model.Setting{
		{Path: "data.apiServerAccess.alwaysAllowedSourceRanges", Change: model.ChangeEffect{Effect: model.EffectInPlace,
			Note: "Cluster API's OpenStack provider updates the load balancer's allowed CIDRs"}},
		{Path: "data.clusterStack.managementCluster", Change: elsewhere},
		{Path: "data.clusterStack.namespace", Change: elsewhere},
		{Path: "data.clusterStack.provider", Change: model.ChangeEffect{Effect: model.EffectRefused, Note: "the Cluster Stack operator forbids changing a Cluster's provider"}},
		{Path: "data.clusterStack.stack", Change: model.ChangeEffect{Effect: model.EffectRefused, Note: "the Cluster Stack operator forbids changing a Cluster's stack"}},
		{Path: "data.clusterStack.stackVersion", Change: rolls},
		{Path: "data.clusterStack.variableNames", Change: rolls},
		{Path: "data.clusterStack.variables", Change: rolls},
		{Path: "data.clusterStack.clusterLabels", Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "labels of the Cluster"}},
		{Path: "data.clusterStack.taintPropagation", Change: model.ChangeEffect{Effect: model.EffectInPlace, Note: "Cluster API puts the pools' taints on the nodes"}},
		{Path: "data.catalog.zones", Change: model.ChangeEffect{Effect: model.EffectRollsControlPlane, Note: "the control plane spreads over the new zones"}},
	}
}

// management is where the Clusters live.
func management(req *model.Request) model.Placement {
	return req.Place(req.Environment.ClusterStack.ManagementCluster)
}

// releaseList reads the ClusterStackReleases of the environment's namespace.
func releaseList(req *model.Request) model.List {
	return model.List{Requirement: RequirementReleases, Collection: collectionName(req.NativeName),
		APIVersion: releaseAPIVersion, Kind: releaseKind, Namespace: req.Environment.ClusterStack.Namespace}
}

// kubeconfigRead reads the kubeconfig Secret Cluster API writes for the Cluster.
func kubeconfigRead(req *model.Request) model.SecretRead {
	return model.SecretRead{
		Name: RequirementKubeconfig, Object: kubeconfigObjectName(req.NativeName),
		Namespace:  management(req).Namespace(req.Environment.ClusterStack.Namespace),
		SecretName: kubeconfigSecretName(req.NativeName), Key: "value",
		ConnectionKey: model.ConnectionKeyKubeconfig, ConnectionSecret: kubeconfigObjectName(req.NativeName),
	}
}

// Names derived from the composite resource's name, which never changes.
func objectName(cluster string) string           { return cluster + "-cluster" }
func collectionName(cluster string) string       { return cluster + "-releases" }
func kubeconfigObjectName(cluster string) string { return cluster + "-kubeconfig" }

// kubeconfigSecretName is the Secret Cluster API writes for a Cluster.
func kubeconfigSecretName(cluster string) string { return cluster + "-kubeconfig" }

func ptrTo[T any](v T) *T { return &v }

// maxNameLength keeps label values within 63 characters: the Cluster's name is
// cluster.x-k8s.io/cluster-name on all its objects, and <cluster>-releases provider-kubernetes'
// collection label. Cluster API shortens the MachineDeployment names it generates itself.
const maxNameLength = 40

// NameLength is the longest Cluster name: maxNameLength.
func (Backend) NameLength(*model.Environment) int { return maxNameLength }
