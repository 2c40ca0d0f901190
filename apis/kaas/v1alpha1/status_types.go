package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ClusterStatus is the normalised status of a cluster, the same for every backend.
// Crossplane adds the conditions (Ready, Synced) and the condition types of this API
// (see the Condition* constants) next to these fields.
type ClusterStatus struct {
	// Phase summarises the state of the cluster.
	//
	// +optional
	Phase Phase `json:"phase,omitempty"`

	// Backend says which backend builds the cluster and where its native object lives. It is
	// recorded on the first reconcile and pins the cluster to that backend and environment.
	//
	// +optional
	Backend *BackendStatus `json:"backend,omitempty"`

	// Kubernetes reports the version the cluster actually runs.
	//
	// +optional
	Kubernetes *KubernetesStatus `json:"kubernetes,omitempty"`

	// APIServerURL is the URL of the cluster's API server once it is reachable.
	//
	// +optional
	APIServerURL string `json:"apiServerURL,omitempty"`

	// ControlPlane reports the control plane as observed.
	//
	// +optional
	ControlPlane *ControlPlaneStatus `json:"controlPlane,omitempty"`

	// NodePools report each pool as the backend observes it.
	//
	// +optional
	// +listType=map
	// +listMapKey=name
	NodePools []NodePoolStatus `json:"nodePools,omitempty"`

	// Access is who may reach the API server as the backend's native object says: the
	// OIDC issuer people sign in through and the allowed source ranges.
	//
	// +optional
	Access *AccessStatus `json:"access,omitempty"`

	// Hibernated is true while the cluster is hibernated.
	//
	// +optional
	Hibernated bool `json:"hibernated,omitempty"`

	// Offered is what the cluster's environment offers its team today: the Kubernetes
	// minors, machine types and zones to choose from, and the minor the cluster may move to
	// next. A team learns here what it may ask for, without reading the platform's
	// EnvironmentConfigs.
	//
	// +optional
	Offered *OfferedStatus `json:"offered,omitempty"`

	// Maintenance is what the cluster updates on its own and when: the update it plans for
	// its next maintenance window, the one rolling now, and an end-of-life upgrade it made
	// past spec.kubernetes.version. It is also the function's memory of them.
	//
	// +optional
	Maintenance *MaintenanceStatus `json:"maintenance,omitempty"`

	// Defaulted records what the environment filled in for fields the spec leaves out, as it
	// was when the cluster, or the node pool, was created. The cluster keeps these values:
	// when the platform team later changes the environment's defaults, only new clusters and
	// new pools get the new ones, and the EnvironmentUpToDate condition says what differs. To
	// change a kept value, set the field in the spec (where the backend can change it).
	//
	// +optional
	Defaulted *DefaultedValues `json:"defaulted,omitempty"`

	// Addons report each add-on installed on the cluster, as Flux reports it.
	//
	// +optional
	// +listType=map
	// +listMapKey=name
	Addons []AddonStatus `json:"addons,omitempty"`
}

// AddonStatus is one add-on as Flux's kustomize-controller reports it.
type AddonStatus struct {
	// Name of the add-on in the environment's catalog.
	Name string `json:"name"`
	// Revision of the source last applied, as Flux names it.
	//
	// +optional
	Revision string `json:"revision,omitempty"`
	// Ready is true once the add-on is applied and healthy.
	Ready bool `json:"ready"`
	// Message is Flux's own, with its reason.
	//
	// +optional
	Message string `json:"message,omitempty"`
	// Retained is true for an add-on the catalog no longer offers: it stays installed as it
	// was, and nothing updates it.
	//
	// +optional
	Retained bool `json:"retained,omitempty"`
}

// OfferedStatus is what an environment offers.
type OfferedStatus struct {
	// KubernetesVersions are the minors offered.
	//
	// +optional
	KubernetesVersions []string `json:"kubernetesVersions,omitempty"`

	// MachineTypes are the machine types offered; empty: any the backend accepts.
	//
	// +optional
	MachineTypes []string `json:"machineTypes,omitempty"`

	// Zones are the failure zones offered.
	//
	// +optional
	Zones []string `json:"zones,omitempty"`

	// NextMinor is the minor spec.kubernetes.version may move to next, when the
	// environment offers it (upgrades go one minor at a time).
	//
	// +optional
	NextMinor string `json:"nextMinor,omitempty"`

	// Lifecycle is what the environment's catalog says of the minor the cluster runs
	// (before it runs, the spec's): offered or not, deprecated, and when it expires.
	//
	// +optional
	Lifecycle *MinorLifecycle `json:"lifecycle,omitempty"`
}

// VersionLifecycle is where an offered minor is in its life, as the environment's catalog
// says.
type VersionLifecycle struct {
	// Deprecated says that the minor is still offered but clusters should move on.
	//
	// +optional
	Deprecated bool `json:"deprecated,omitempty"`

	// ExpirationDate is when the environment stops supporting the minor.
	//
	// +optional
	ExpirationDate *metav1.Time `json:"expirationDate,omitempty"`
}

// MinorLifecycle is where the minor a cluster runs is in its life.
type MinorLifecycle struct {
	// Minor is the minor the cluster runs, such as "1.33".
	Minor string `json:"minor"`

	// Offered: the environment's catalog still lists the minor.
	Offered bool `json:"offered"`

	VersionLifecycle `json:",inline"`
}

// DefaultedValues are the values an environment filled in for one cluster.
type DefaultedValues struct {
	// Maintenance holds the window and automatic updates the environment chose; unset in
	// the record of a cluster created before it was kept, which takes the environment's.
	//
	// +optional
	Maintenance *MaintenanceSpec `json:"maintenance,omitempty"`

	// Access holds the OIDC issuer and source ranges the environment chose.
	//
	// +optional
	Access *DefaultedAccess `json:"access,omitempty"`

	// Network holds the address ranges and the network plugin the environment chose.
	//
	// +optional
	Network *DefaultedNetwork `json:"network,omitempty"`

	// NodePools hold, per pool, the zones and root disk size the environment chose.
	//
	// +optional
	// +listType=map
	// +listMapKey=name
	NodePools []DefaultedNodePool `json:"nodePools,omitempty"`
}

// DefaultedNetwork is the part of spec.network the environment filled in.
type DefaultedNetwork struct {
	// +optional
	PodCIDR string `json:"podCIDR,omitempty"`
	// +optional
	ServiceCIDR string `json:"serviceCIDR,omitempty"`
	// +optional
	NodeCIDR string `json:"nodeCIDR,omitempty"`
	// +optional
	CNI CNI `json:"cni,omitempty"`
}

// DefaultedNodePool is the part of one node pool the environment filled in.
type DefaultedNodePool struct {
	// Name of the pool.
	Name string `json:"name"`

	// Zones the pool spreads over, from the environment's catalog.
	//
	// +optional
	Zones []string `json:"zones,omitempty"`

	// RootDiskGiB from the environment's defaults.
	//
	// +optional
	RootDiskGiB *int32 `json:"rootDiskGiB,omitempty"`
}

// Phase summarises the state of a cluster.
//
// +kubebuilder:validation:Enum=Provisioning;Ready;Updating;Degraded;Hibernated;Deleting;Failed
type Phase string

// Phases of a cluster.
const (
	// PhaseProvisioning: the cluster is being created and has not been ready yet.
	PhaseProvisioning Phase = "Provisioning"
	// PhaseReady: the cluster is up to date and healthy.
	PhaseReady Phase = "Ready"
	// PhaseUpdating: the backend is rolling a change (upgrade, pool change, maintenance).
	PhaseUpdating Phase = "Updating"
	// PhaseDegraded: the cluster exists but is not healthy; the conditions say why.
	PhaseDegraded Phase = "Degraded"
	// PhaseHibernated: the cluster is hibernated.
	PhaseHibernated Phase = "Hibernated"
	// PhaseDeleting: the backend is deleting the cluster.
	PhaseDeleting Phase = "Deleting"
	// PhaseFailed: the backend gave up; the conditions carry its reason and message.
	PhaseFailed Phase = "Failed"
)

// BackendStatus says which backend builds the cluster.
type BackendStatus struct {
	// Type of the backend: gardener, clusterstack or magnum.
	Type BackendType `json:"type"`

	// Environment is the name of the environment the cluster was created in.
	Environment string `json:"environment"`

	// Region is the cloud region of the cluster.
	//
	// +optional
	Region string `json:"region,omitempty"`

	// Name is the cluster's name in the backend: the Shoot, the Cluster API Cluster, the
	// Magnum cluster. It is derived from the claim's namespace and name (or the namespaced
	// composite's) when the cluster is created, fits the backend's limits, and never changes.
	//
	// +optional
	Name string `json:"name,omitempty"`

	// NativeRef points at the backend's own object for this cluster (a Shoot, a Cluster, a
	// Magnum ClusterV1), in the cluster where that object lives.
	//
	// +optional
	NativeRef *ObjectReference `json:"nativeRef,omitempty"`

	// DeletionPolicy is what deleting this object would do to the cluster now, as the
	// composed resources were last rendered: Orphan when every one that holds the cluster
	// leaves it in place (deletion protection on, or the kaas.scs.community/deletion-policy
	// annotation), Delete otherwise. Cluster API clusters composed in Crossplane's own
	// cluster are always Delete: Kubernetes deletes them with their composite. The deletion
	// protection policy lets a protected cluster go only once this says Orphan.
	//
	// +optional
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`

	// Pinned holds the values the cluster takes from its environment's settings (the
	// region, the garden or management cluster, a ProviderConfig, load balancer, image,
	// template, stack and the rest), keyed by their path in the EnvironmentConfig, as they
	// were when the cluster was created or last adopted its environment's values. The
	// cluster keeps them: an edit of the environment applies to new clusters, and the
	// EnvironmentUpToDate condition of an existing one names each value that differs. A
	// string is as it is, any other value JSON, and an empty value means unset.
	//
	// +optional
	Pinned map[string]string `json:"pinned,omitempty"`

	// Created is true once the cluster existed in its backend: from then on it keeps the
	// values recorded here and in status.defaulted, even while nothing of it is observed, as
	// after its control plane was restored from a backup (docs/recovery.md).
	//
	// +optional
	Created bool `json:"created,omitempty"`

	// ExternalNames are the names by which providers know composed resources that their
	// object names do not give (a Magnum cluster's UUID, the crossplane.io/external-name of
	// its ClusterV1), by composition resource name: a resource composed again after its
	// control plane was lost manages the same cluster instead of creating another.
	//
	// +optional
	ExternalNames map[string]string `json:"externalNames,omitempty"`

	// Adopted is the value of the kaas.scs.community/adopt-environment annotation the
	// cluster last acted on: it took its environment's values then.
	//
	// +optional
	Adopted string `json:"adopted,omitempty"`

	// Placement holds what versions before Pinned recorded: the settings that decide where
	// the cluster's resources live. It is read as pinned values and no longer written.
	//
	// +optional
	Placement map[string]string `json:"placement,omitempty"`
}

// BackendType names a backend.
//
// +kubebuilder:validation:Enum=gardener;clusterstack;magnum
type BackendType string

// Backends the API knows.
const (
	BackendGardener     BackendType = "gardener"
	BackendClusterStack BackendType = "clusterstack"
	BackendMagnum       BackendType = "magnum"
)

// BackendTypes lists every backend of the API, whether or not a program supports it.
func BackendTypes() []BackendType {
	return []BackendType{BackendGardener, BackendClusterStack, BackendMagnum}
}

// ObjectReference points at a Kubernetes object.
type ObjectReference struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// +optional
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// KubernetesStatus reports the Kubernetes version as observed.
type KubernetesStatus struct {
	// Version is the exact version the control plane runs, such as 1.34.2.
	//
	// +optional
	Version string `json:"version,omitempty"`
}

// ControlPlaneStatus reports the control plane as observed.
type ControlPlaneStatus struct {
	// HighAvailability is true when the control plane runs highly available.
	//
	// +optional
	HighAvailability bool `json:"highAvailability,omitempty"`

	// Replicas is the number of control plane machines, where the backend reports it.
	//
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// ReadyReplicas is the number of ready control plane machines, where the backend reports
	// it.
	//
	// +optional
	ReadyReplicas *int32 `json:"readyReplicas,omitempty"`
}

// NodePoolStatus reports a node pool as observed.
type NodePoolStatus struct {
	// Name of the pool.
	Name string `json:"name"`

	// MachineType of the pool's nodes.
	//
	// +optional
	MachineType string `json:"machineType,omitempty"`

	// Zones the pool spreads over.
	//
	// +optional
	Zones []string `json:"zones,omitempty"`

	// Min and Max are the pool's bounds as the backend has them.
	//
	// +optional
	Min *int32 `json:"min,omitempty"`
	// +optional
	Max *int32 `json:"max,omitempty"`

	// Replicas is the current number of nodes, where the backend reports it.
	//
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// ReadyReplicas is the number of ready nodes, where the backend reports it.
	//
	// +optional
	ReadyReplicas *int32 `json:"readyReplicas,omitempty"`

	// Pending says why the pool does not exist in the backend yet, if it does not.
	//
	// +optional
	Pending string `json:"pending,omitempty"`
}

// MaintenanceStatus is what the cluster updates on its own (docs/operations.md#maintenance).
type MaintenanceStatus struct {
	// Planned is the next update the cluster makes on its own, and when it may start.
	//
	// +optional
	Planned *PlannedUpdate `json:"planned,omitempty"`

	// InProgress is the update the cluster started on its own and has not finished yet; it
	// is never cut off when the window ends.
	//
	// +optional
	InProgress *PlannedUpdate `json:"inProgress,omitempty"`

	// UpgradedMinor is the minor an end-of-life upgrade moved the cluster to, past the older
	// minor spec.kubernetes.version still names; set spec.kubernetes.version to it (or a
	// newer minor) to make the spec say what runs.
	//
	// +optional
	UpgradedMinor string `json:"upgradedMinor,omitempty"`
}

// PlannedUpdate is one update the cluster makes on its own.
type PlannedUpdate struct {
	// Kind of update: KubernetesPatch (a newer release of the minor) or EndOfLifeUpgrade
	// (the next minor, the running one having expired).
	Kind UpdateKind `json:"kind"`

	// From is the version the cluster runs, such as v1.34.7.
	From string `json:"from"`

	// To is the version it moves to, such as v1.34.8, or a minor such as 1.35.
	To string `json:"to"`

	// Since is when the cluster first saw the update offered: waves count from it.
	//
	// +optional
	Since *metav1.Time `json:"since,omitempty"`

	// NotBefore is when it may start: the next window (or the current one), and for a later
	// wave not before its delay has passed. Set while it is planned.
	//
	// +optional
	NotBefore *metav1.Time `json:"notBefore,omitempty"`

	// Started is when the function started it. Set while it is in progress.
	//
	// +optional
	Started *metav1.Time `json:"started,omitempty"`

	// Message says it in words, such as "v1.34.7 -> v1.34.8 in the window 02:00-03:00 UTC,
	// from Sat, 05 Dec 2026 02:00:00 UTC".
	Message string `json:"message"`
}

// UpdateKind is a kind of update the cluster makes on its own.
//
// +kubebuilder:validation:Enum=KubernetesPatch;EndOfLifeUpgrade
type UpdateKind string

// Kinds of automatic updates.
const (
	// UpdateKubernetesPatch moves to a newer patch of the running minor: a newer Cluster
	// Stack release, a Magnum cluster template the environment repointed, Gardener's own.
	UpdateKubernetesPatch UpdateKind = "KubernetesPatch"
	// UpdateEndOfLife moves an expired minor to the next offered minor.
	UpdateEndOfLife UpdateKind = "EndOfLifeUpgrade"
)
