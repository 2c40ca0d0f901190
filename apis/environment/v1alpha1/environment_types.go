// Package v1alpha1 is the environment contract: the schema of the `data` of an
// EnvironmentConfig (apiextensions.crossplane.io/v1beta1) that describes one backend
// environment a platform team offers, such as a Gardener landscape in one region.
//
// An EnvironmentConfig takes part when it carries the label
// kaas.scs.community/environment=<environment name>. Exactly one of them may also carry
// kaas.scs.community/default=true; claims that name no environment use that one.
//
// Unknown fields are errors, so a typo in an EnvironmentConfig is reported with its path
// instead of being ignored.
//
// +kubebuilder:object:generate=true
package v1alpha1

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// Labels that make an EnvironmentConfig a backend environment.
const (
	// LabelEnvironment carries the environment's name; claims select it by that name.
	LabelEnvironment = "kaas.scs.community/environment"
	// LabelDefault set to "true" marks the environment used when a claim names none.
	LabelDefault = "kaas.scs.community/default"
)

// LocalCluster is the value of Gardener.GardenCluster (and of the other backends'
// management cluster fields) that says Crossplane runs in that cluster itself, so native
// objects are composed directly instead of through provider-kubernetes.
const LocalCluster = "local"

// Environment is one backend environment.
type Environment struct {
	// Backend that builds clusters in this environment: gardener, clusterstack or magnum.
	// The section of the same name must be set.
	Backend kaasv1alpha1.BackendType `json:"backend"`

	// Region is the cloud region clusters of this environment run in.
	Region string `json:"region"`

	// Access says which teams may build clusters here: claims from these namespaces only.
	// Without it the environment admits no claim, so that a new environment, with its
	// credentials and its bill, is never open to every team by accident. Composites
	// created without a claim (by the platform itself) are always admitted.
	// +optional
	Access *Access `json:"access,omitempty"`

	// Catalog lists what the environment offers; claims asking for anything else are
	// refused with the list of what is offered.
	Catalog Catalog `json:"catalog"`

	// Defaults fill portable fields that a claim leaves out.
	// +optional
	Defaults Defaults `json:"defaults,omitempty"`

	// APIServerAccess bounds who may reach clusters' API servers: whether the landscape can
	// restrict source ranges at all, how wide a team may open them, and whether every
	// cluster must sign people in through the environment's issuer (docs/access.md). The
	// issuer and ranges a cluster gets when it names none are in defaults.access.
	// +optional
	APIServerAccess *APIServerAccess `json:"apiServerAccess,omitempty"`

	// Addons is the catalog of add-ons the platform installs on its clusters with Flux, once
	// a cluster is Ready and its kubeconfig delivered (docs/addons.md). Teams opt into
	// optional ones and out of default ones by name (spec.addons); enforced ones are always
	// installed.
	// +optional
	// +listType=map
	// +listMapKey=name
	Addons []Addon `json:"addons,omitempty"`

	// ArgoCD registers every Ready cluster of this environment in Argo CD: a cluster Secret
	// built from the delivered kubeconfig, labelled for ApplicationSets' cluster generator
	// (docs/addons.md#argo-cd). Without it nothing is registered.
	// +optional
	ArgoCD *ArgoCDRegistration `json:"argoCD,omitempty"`

	// Maintenance orders the updates clusters make on their own in their maintenance
	// windows: end-of-life upgrades, and waves by purpose (docs/operations.md#maintenance).
	// +optional
	Maintenance *MaintenancePolicy `json:"maintenance,omitempty"`

	// Gardener configures the gardener backend.
	// +optional
	Gardener *Gardener `json:"gardener,omitempty"`

	// ClusterStack configures the clusterstack backend (Cluster API with SCS Cluster
	// Stacks).
	// +optional
	ClusterStack *ClusterStack `json:"clusterStack,omitempty"`

	// Magnum configures the magnum backend (OpenStack Magnum through Crossplane
	// provider-openstack).
	// +optional
	Magnum *Magnum `json:"magnum,omitempty"`
}

// Access admits the claims of namespaces: those named, and those whose labels match the
// selector. A namespace that either admits may use the environment.
type Access struct {
	// Namespaces admitted by name.
	// +optional
	Namespaces []string `json:"namespaces,omitempty"`

	// NamespaceSelector admits namespaces by their labels. Reading a claim's namespace
	// needs Crossplane to be allowed to get namespaces (package/rbac.yaml).
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`
}

// Catalog lists what an environment offers.
type Catalog struct {
	// KubernetesVersions are the Kubernetes minors offered, such as "1.33" and "1.34". Under
	// SCS standard scs-0210 every supported minor must be offered.
	KubernetesVersions []string `json:"kubernetesVersions"`

	// MachineTypes are the machine types (flavors) offered. Empty: any; the backend checks.
	// +optional
	MachineTypes []string `json:"machineTypes,omitempty"`

	// Zones are the failure zones offered. Node pools without zones spread over all of them.
	// +optional
	Zones []string `json:"zones,omitempty"`

	// KubernetesVersionLifecycle marks offered minors as deprecated or expiring, keyed by
	// minor (such as "1.33"), as a Gardener CloudProfile classifies its versions. A cluster
	// running such a minor says so in its VersionSupported condition and in Warning events,
	// and kubectl scs fleet lists it as due.
	// +optional
	KubernetesVersionLifecycle map[string]kaasv1alpha1.VersionLifecycle `json:"kubernetesVersionLifecycle,omitempty"`
}

// Defaults fill portable fields that a claim leaves out.
type Defaults struct {
	// Network fills spec.network.
	// +optional
	Network kaasv1alpha1.NetworkSpec `json:"network,omitempty"`

	// Maintenance fills spec.maintenance.
	// +optional
	Maintenance kaasv1alpha1.MaintenanceSpec `json:"maintenance,omitempty"`

	// Access fills spec.access: the platform's own OIDC issuer and the source ranges a
	// cluster gets when it names none. Recorded per cluster when it is created
	// (status.defaulted.access), so that an edit here reaches new clusters only.
	// +optional
	Access *AccessDefaults `json:"access,omitempty"`

	// RootDiskGiB fills spec.nodePools[].rootDiskGiB.
	// +optional
	RootDiskGiB *int32 `json:"rootDiskGiB,omitempty"`
}

// MaintenancePolicy orders the updates clusters make on their own.
type MaintenancePolicy struct {
	// UpgradeExpiredMinors upgrades a cluster whose minor has passed its expiration date
	// (catalog.kubernetesVersionLifecycle) to the next offered minor in its next window, as
	// Gardener's force update does. Default true; false: such a cluster is only reported due.
	// +optional
	UpgradeExpiredMinors *bool `json:"upgradeExpiredMinors,omitempty"`

	// Waves order automatic updates by the clusters' purpose: a cluster of a wave starts an
	// update only its delay after it was first offered to it, in its next window after that.
	// A purpose no wave names waits as long as the last wave. Empty: every cluster takes an
	// update in its next window.
	// +optional
	Waves []MaintenanceWave `json:"waves,omitempty"`
}

// MaintenanceWave is one wave of automatic updates.
type MaintenanceWave struct {
	// Purposes of the clusters in this wave.
	Purposes []kaasv1alpha1.Purpose `json:"purposes"`

	// Delay is how long an update waits after it was first offered to a cluster of this
	// wave, such as "72h": the time earlier waves have to run it and the platform to stop a
	// bad release (docs/operations.md#waves).
	// +optional
	Delay metav1.Duration `json:"delay,omitempty"`
}

// AccessDefaults fill spec.access.
type AccessDefaults struct {
	// OIDC is the issuer clusters sign people in through when they name none, its CA inline.
	// +optional
	OIDC *kaasv1alpha1.OIDCIssuer `json:"oidc,omitempty"`

	// AllowedSourceRanges are the networks that may reach a cluster's API server when it
	// names none.
	// +optional
	AllowedSourceRanges []string `json:"allowedSourceRanges,omitempty"`
}

// APIServerAccess is what an environment allows and enforces of spec.access.
type APIServerAccess struct {
	// RestrictSourceRanges says the landscape can restrict who reaches an API server: the
	// Gardener landscape runs the ACL extension (gardener-extension-acl), the Cluster Stack's
	// API server load balancer is Octavia amphora, Magnum's Octavia honours
	// master_lb_allowed_cidrs. Without it, a cluster that asks for source ranges is refused
	// rather than left open while it believes it is closed.
	// +optional
	RestrictSourceRanges bool `json:"restrictSourceRanges,omitempty"`

	// SourceRangesWithin bound how wide a team may open its API server: every range of
	// spec.access.allowedSourceRanges must lie in one of these, and a cluster must name
	// ranges (or take defaults.access.allowedSourceRanges). Empty: no bound.
	// +optional
	SourceRangesWithin []string `json:"sourceRangesWithin,omitempty"`

	// AlwaysAllowedSourceRanges are added to every cluster's ranges: the addresses the
	// platform's own tools reach clusters from (the management cluster's egress, which
	// Cluster API's OpenStack provider needs, and Flux's).
	// +optional
	AlwaysAllowedSourceRanges []string `json:"alwaysAllowedSourceRanges,omitempty"`

	// EnforceOIDC signs every cluster's people in through defaults.access.oidc: a team may
	// leave spec.access.oidc out or repeat that issuer, never name another.
	// +optional
	EnforceOIDC bool `json:"enforceOIDC,omitempty"`
}

// Gardener describes a Gardener landscape and the project clusters are created in.
type Gardener struct {
	// GardenCluster is where the Shoot objects go: the name of a provider-kubernetes
	// ProviderConfig (kubernetes.crossplane.io) for the garden cluster, or "local" when
	// Crossplane runs in the garden cluster itself.
	GardenCluster string `json:"gardenCluster"`

	// Project is the Gardener project. Shoot names plus the project name may be 21
	// characters at most.
	Project string `json:"project"`

	// Namespace of the project in the garden cluster. Defaults to garden-<project>.
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// CloudProfile is the name of the CloudProfile to use.
	CloudProfile string `json:"cloudProfile"`

	// CloudProfileKind is CloudProfile (default) or NamespacedCloudProfile.
	// +optional
	CloudProfileKind string `json:"cloudProfileKind,omitempty"`

	// CredentialsBindingName names the CredentialsBinding in the project that holds the
	// OpenStack credentials.
	CredentialsBindingName string `json:"credentialsBindingName"`

	// FloatingPoolName is the OpenStack external network floating IPs come from.
	FloatingPoolName string `json:"floatingPoolName"`

	// LoadBalancerProvider is the Octavia provider, such as amphora or ovn.
	LoadBalancerProvider string `json:"loadBalancerProvider"`

	// MachineImage pins the node image. Omitted: Gardener picks the CloudProfile's default.
	// +optional
	MachineImage *MachineImage `json:"machineImage,omitempty"`

	// AdminKubeconfig configures the short-lived admin kubeconfigs that
	// provider-gardener-kubeconfig requests for every cluster (docs/kubeconfig.md).
	// +optional
	AdminKubeconfig *GardenerAdminKubeconfig `json:"adminKubeconfig,omitempty"`
}

// GardenerAdminKubeconfig configures the AdminKubeconfig composed for every Shoot.
type GardenerAdminKubeconfig struct {
	// ProviderConfigName is provider-gardener-kubeconfig's ProviderConfig for the garden
	// cluster. Defaults to the name in gardenCluster.
	// +optional
	ProviderConfigName string `json:"providerConfigName,omitempty"`

	// ExpirationSeconds is the lifetime of each kubeconfig; default 24 hours, and Gardener
	// caps it at its configured maximum.
	// +optional
	ExpirationSeconds *int64 `json:"expirationSeconds,omitempty"`

	// RenewBefore is how long before expiry a new kubeconfig is requested, such as "8h";
	// default a third of the lifetime.
	// +optional
	RenewBefore string `json:"renewBefore,omitempty"`
}

// MachineImage names a machine image of the CloudProfile.
type MachineImage struct {
	Name string `json:"name"`
	// +optional
	Version string `json:"version,omitempty"`
}

// ClusterStack describes a Cluster API management cluster with the SCS Cluster Stack
// operator, and the stack clusters are built from.
type ClusterStack struct {
	// ManagementCluster is where Cluster objects go: the name of a provider-kubernetes
	// ProviderConfig (kubernetes.crossplane.io) for the management cluster, or "local" when
	// Crossplane runs in the management cluster itself.
	ManagementCluster string `json:"managementCluster"`

	// Namespace of the Clusters, their ClusterClasses and ClusterStackReleases.
	Namespace string `json:"namespace"`

	// Provider and Stack name the Cluster Stack, such as openstack and scs2. ClusterClass
	// names are <provider>-<stack>-<major>-<minor>-<stack version>.
	Provider string `json:"provider"`
	Stack    string `json:"stack"`

	// StackVersion pins the stack version, such as v2. Omitted: the newest ready release
	// of the Kubernetes minor.
	// +optional
	StackVersion string `json:"stackVersion,omitempty"`

	// VariableNames maps portable fields to the topology variable names of this stack
	// generation (scs uses snake_case such as worker_flavor, scs2 camelCase such as
	// workerFlavor). A portable field without a variable name is not honoured, and a
	// cluster that sets it gets a warning. Keys: workerFlavor, workerRootDisk, nodeCIDR,
	// controlPlaneAvailabilityZones, oidcConfig and apiServerAllowedCIDRs (scs2: oidcConfig
	// and apiServerLoadBalancerOctaviaAmphoraAllowedCIDRs); a cluster that asks for access
	// settings without their variable is refused, since it would be open while it believes it
	// is closed.
	// +optional
	VariableNames map[string]string `json:"variableNames,omitempty"`

	// Variables are set on every Cluster as they are, by the stack's own names, for
	// example networkExternalID, controlPlaneFlavor or identityRef.
	// +optional
	Variables map[string]json.RawMessage `json:"variables,omitempty"`

	// ClusterLabels go on every Cluster, for example the label that makes the Cluster
	// Stack operator inject cloud credentials (managed-secret: clouds-yaml).
	// +optional
	ClusterLabels map[string]string `json:"clusterLabels,omitempty"`

	// TaintPropagation says the management cluster runs Cluster API with the
	// MachineTaintPropagation feature gate, so node pool taints reach the nodes.
	// +optional
	TaintPropagation bool `json:"taintPropagation,omitempty"`
}

// Portable fields a Cluster Stack maps to topology variables (keys of VariableNames).
const (
	VariableWorkerFlavor                  = "workerFlavor"
	VariableWorkerRootDisk                = "workerRootDisk"
	VariableNodeCIDR                      = "nodeCIDR"
	VariableControlPlaneAvailabilityZones = "controlPlaneAvailabilityZones"
	VariableOIDCConfig                    = "oidcConfig"
	VariableAPIServerAllowedCIDRs         = "apiServerAllowedCIDRs"
)

// ClusterStackLoadBalancerVariable and ClusterStackAmphora are the scs2 variable that selects
// the API server's load balancer and the one value under which allowed CIDRs apply.
const (
	ClusterStackLoadBalancerVariable = "apiServerLoadBalancer"
	ClusterStackAmphora              = "octavia-amphora"
)

// Magnum describes an OpenStack cloud with Magnum, reached through Crossplane
// provider-openstack.
type Magnum struct {
	// Scope selects the provider-openstack kinds: Cluster (containerinfra.openstack.crossplane.io,
	// cluster-scoped, the default) or Namespaced (containerinfra.openstack.m.crossplane.io,
	// Crossplane v2 style), which then live in Namespace.
	// +optional
	Scope MagnumScope `json:"scope,omitempty"`

	// Namespace of the managed resources when Scope is Namespaced.
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// ProviderConfigName is the provider-openstack ProviderConfig with the credentials.
	ProviderConfigName string `json:"providerConfigName"`

	// ProviderConfigKind is ProviderConfig or ClusterProviderConfig; Namespaced scope only.
	// +optional
	ProviderConfigKind string `json:"providerConfigKind,omitempty"`

	// Templates map Kubernetes minors to cluster templates. The template fixes the exact
	// version (its kube_tag label) and the network driver.
	Templates []MagnumTemplate `json:"templates"`

	// Keypair is the Nova keypair put on the nodes.
	// +optional
	Keypair string `json:"keypair,omitempty"`

	// MasterFlavor is the flavor of control plane nodes. Omitted: the template's.
	// +optional
	MasterFlavor string `json:"masterFlavor,omitempty"`

	// FloatingIPEnabled gives every node a floating IP. Omitted: the template's choice.
	// +optional
	FloatingIPEnabled *bool `json:"floatingIPEnabled,omitempty"`

	// MasterLBEnabled puts a load balancer in front of a single control plane node too;
	// highly available control planes always get one.
	// +optional
	MasterLBEnabled bool `json:"masterLBEnabled,omitempty"`

	// FixedNetwork and FixedSubnet attach clusters to an existing network. Omitted: Magnum
	// creates one.
	// +optional
	FixedNetwork string `json:"fixedNetwork,omitempty"`
	// +optional
	FixedSubnet string `json:"fixedSubnet,omitempty"`

	// Labels are Magnum labels every cluster gets, such as the cloud provider or ingress
	// controller settings.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
}

// MagnumScope selects cluster-scoped or namespaced provider-openstack kinds.
type MagnumScope string

// Scopes of provider-openstack's kinds.
const (
	MagnumScopeCluster    MagnumScope = "Cluster"
	MagnumScopeNamespaced MagnumScope = "Namespaced"
)

// MagnumTemplate is a cluster template for one Kubernetes minor.
type MagnumTemplate struct {
	// KubernetesVersion is the minor, such as "1.34".
	KubernetesVersion string `json:"kubernetesVersion"`
	// ID of the cluster template.
	ID string `json:"id"`
	// KubeTag is the exact version the template runs (its kube_tag label), such as v1.34.7.
	// +optional
	KubeTag string `json:"kubeTag,omitempty"`
	// NetworkDriver is the template's CNI, such as calico or cilium.
	// +optional
	NetworkDriver string `json:"networkDriver,omitempty"`
}

// Addon is one add-on of the catalog: plain manifests (or a kustomization) that Flux's
// kustomize-controller applies to a cluster with the cluster's own kubeconfig.
type Addon struct {
	// Name identifies the add-on in spec.addons and in the names of its Flux objects: a DNS
	// label of at most 30 characters.
	Name string `json:"name"`

	// Description says what the add-on is for; teams read it in kubectl scs describe.
	// +optional
	Description string `json:"description,omitempty"`

	// Source is where the manifests are: exactly one of oci, git and sourceRef.
	Source AddonSource `json:"source"`

	// Namespace the add-on's namespaced objects go to when they name none (Flux's
	// targetNamespace). Empty: as the manifests say.
	// +optional
	Namespace string `json:"namespace,omitempty"`

	// Default installs the add-on unless a team opts out (spec.addons.disable).
	// +optional
	Default bool `json:"default,omitempty"`

	// Enforced installs the add-on on every cluster; a team cannot opt out.
	// +optional
	Enforced bool `json:"enforced,omitempty"`

	// DependsOn names add-ons of this catalog that must be Ready before this one is applied.
	// +optional
	DependsOn []string `json:"dependsOn,omitempty"`

	// Substitute maps variables of the manifests (${name}) to values of the cluster:
	// clusterName, namespace, environment, region, backend or kubernetesVersion.
	// +optional
	Substitute map[string]AddonValue `json:"substitute,omitempty"`
}

// AddonSource is where an add-on's manifests are.
type AddonSource struct {
	// OCI is an OCI artifact, as `flux push artifact` makes it: each cluster gets its own
	// Flux source for it.
	// +optional
	OCI *OCISource `json:"oci,omitempty"`

	// Git is a Git repository: each cluster gets its own Flux source for it.
	// +optional
	Git *GitSource `json:"git,omitempty"`

	// SourceRef names a Flux source the platform runs, which serves every cluster: one
	// source per add-on (and namespace) instead of one per cluster. Its credentials are its
	// own; secretRef does not apply.
	// +optional
	SourceRef *FluxSourceRef `json:"sourceRef,omitempty"`

	// Path is the directory in the artifact or repository to apply; empty: its root.
	// +optional
	Path string `json:"path,omitempty"`

	// SecretRef names the pull credentials: a Secret the platform owns in the namespace the
	// add-on's Flux objects live in (docs/addons.md). Never a tenant's.
	// +optional
	SecretRef string `json:"secretRef,omitempty"`
}

// OCISource is an OCI artifact by URL and tag or digest.
type OCISource struct {
	// URL is the artifact's repository, oci://host/path.
	URL string `json:"url"`
	// Tag of the artifact; ignored when Digest is set.
	// +optional
	Tag string `json:"tag,omitempty"`
	// Digest of the artifact (sha256:...), which pins it.
	// +optional
	Digest string `json:"digest,omitempty"`
	// CASecretRef names a Secret with the registry's CA under ca.crt, in the namespace the
	// add-on's Flux objects live in.
	// +optional
	CASecretRef string `json:"caSecretRef,omitempty"`
}

// FluxSourceRef names a Flux source the platform runs.
type FluxSourceRef struct {
	// Kind of the source: OCIRepository, GitRepository or Bucket.
	Kind string `json:"kind"`
	// Name of the source.
	Name string `json:"name"`
	// Namespace of the source; empty: the namespace of the add-on's Kustomizations (a
	// namespaced SCSCluster's own namespace, so one source per add-on and team). Another
	// namespace needs kustomize-controller to allow cross-namespace references.
	// +optional
	Namespace string `json:"namespace,omitempty"`
}

// GitSource is a Git repository at a ref.
type GitSource struct {
	// URL of the repository (https:// or ssh://).
	URL string `json:"url"`
	// Branch, Tag or Commit: one of them (the commit wins, then the tag).
	// +optional
	Branch string `json:"branch,omitempty"`
	// +optional
	Tag string `json:"tag,omitempty"`
	// +optional
	Commit string `json:"commit,omitempty"`
}

// AddonValue is a value of the cluster that an add-on's manifests may use.
type AddonValue string

// The values an add-on's manifests may use.
const (
	AddonValueClusterName       AddonValue = "clusterName"
	AddonValueNamespace         AddonValue = "namespace"
	AddonValueEnvironment       AddonValue = "environment"
	AddonValueRegion            AddonValue = "region"
	AddonValueBackend           AddonValue = "backend"
	AddonValueKubernetesVersion AddonValue = "kubernetesVersion"
)

// AddonValues are the values an add-on's manifests may use, in the order docs list them.
var AddonValues = []AddonValue{AddonValueClusterName, AddonValueNamespace, AddonValueEnvironment,
	AddonValueRegion, AddonValueBackend, AddonValueKubernetesVersion}

// ArgoCDRegistration says where Argo CD reads its cluster Secrets, in Crossplane's own
// cluster.
type ArgoCDRegistration struct {
	// Namespace is the namespace Argo CD runs in: the cluster Secrets of legacy composites
	// (claims) go there. A namespaced composite composes in its own namespace only, so its
	// cluster Secret goes there, for an Argo CD that serves the team from its namespace.
	Namespace string `json:"namespace"`
}
