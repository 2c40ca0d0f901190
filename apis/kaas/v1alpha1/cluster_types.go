package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// XSCSCluster is a Kubernetes cluster offered by a Sovereign Cloud Stack KaaS provider. The
// platform's EnvironmentConfig decides which backend (Gardener, Cluster API with SCS Cluster
// Stacks, OpenStack Magnum) builds it; the spec is the same for all of them.
//
// The minor-downgrade rule lives here rather than on spec.kubernetes.version because it
// needs the version the cluster runs (status.kubernetes.version): going back from a minor
// the backend refused (say one the environment does not offer yet) to the one still running
// is no downgrade, and without this a claim that asked for too much could never return.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:validation:XValidation:rule="int(self.spec.kubernetes.version.split('.')[1]) >= int(oldSelf.spec.kubernetes.version.split('.')[1]) || (has(oldSelf.status) && has(oldSelf.status.kubernetes) && has(oldSelf.status.kubernetes.version) && oldSelf.status.kubernetes.version.matches('^v?[0-9]+[.][0-9]+') && int(self.spec.kubernetes.version.split('.')[1]) >= int(oldSelf.status.kubernetes.version.split('.')[1]))",messageExpression="'spec.kubernetes.version cannot be downgraded from ' + oldSelf.spec.kubernetes.version + ' to ' + self.spec.kubernetes.version + (has(oldSelf.status) && has(oldSelf.status.kubernetes) && has(oldSelf.status.kubernetes.version) ? ': the cluster runs ' + oldSelf.status.kubernetes.version : '.')",fieldPath=".spec.kubernetes.version",reason=FieldValueForbidden
type XSCSCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ClusterSpec   `json:"spec"`
	Status ClusterStatus `json:"status,omitempty"`
}

// ClusterSpec is the portable description of a cluster.
//
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.environment) || has(self.environment)",message="spec.environment cannot be removed once set: the cluster stays in the environment it was created in"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.network) || has(self.network)",message="spec.network cannot be removed once set: the cluster's networks cannot change"
type ClusterSpec struct {
	// Environment names the backend environment that builds this cluster: the
	// EnvironmentConfig labelled kaas.scs.community/environment=<name>. Omit it to use the
	// environment the platform team marked as default. Immutable: moving a cluster to another
	// environment would replace it.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.environment is immutable: moving a cluster to another environment would replace it"
	Environment string `json:"environment,omitempty"`

	// Purpose drives defaults: production turns on a highly available control plane and
	// deletion protection unless they are set explicitly; evaluation and development leave
	// both off.
	//
	// +optional
	// +kubebuilder:default=development
	Purpose Purpose `json:"purpose,omitempty"`

	// Kubernetes selects the Kubernetes version.
	Kubernetes KubernetesSpec `json:"kubernetes"`

	// ControlPlane configures the control plane.
	//
	// +optional
	ControlPlane ControlPlaneSpec `json:"controlPlane,omitempty"`

	// NodePools are the groups of worker nodes, keyed by name. Renaming a pool replaces its
	// nodes; what another change does depends on the backend (in place, rolling the pool's
	// nodes, or refused): kubectl scs diff previews it.
	//
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=32
	NodePools []NodePool `json:"nodePools"`

	// Network sets the cluster's address ranges. Omitted fields take the environment's
	// defaults. Immutable once the cluster exists.
	//
	// +optional
	Network *NetworkSpec `json:"network,omitempty"`

	// Maintenance sets when the backend may update the cluster and what it updates on its
	// own. Omitted fields take the environment's defaults.
	//
	// +optional
	Maintenance *MaintenanceSpec `json:"maintenance,omitempty"`

	// Hibernation scales the cluster to zero nodes and stops its control plane, now or on a
	// schedule, where the backend supports it.
	//
	// +optional
	Hibernation *HibernationSpec `json:"hibernation,omitempty"`

	// DeletionProtection refuses deletion of the cluster while true. Updates stay allowed.
	// Defaults to true for purpose production and false otherwise.
	//
	// +optional
	DeletionProtection *bool `json:"deletionProtection,omitempty"`

	// Access says who may reach the cluster's API server: people signing in through an
	// OIDC issuer, and the networks allowed to connect. Omitted fields take the
	// environment's. A change rolls the control plane on most backends: kubectl scs diff
	// says what it does.
	//
	// +optional
	Access *AccessSpec `json:"access,omitempty"`

	// Addons opts into optional add-ons of the environment's catalog and out of default ones,
	// by name. Enforced add-ons are always installed. kubectl scs describe lists the catalog.
	//
	// +optional
	Addons *AddonsSpec `json:"addons,omitempty"`
}

// AddonsSpec chooses among the add-ons the environment offers.
//
// +kubebuilder:validation:XValidation:rule="!has(self.enable) || !has(self.disable) || self.enable.all(n, !(n in self.disable))",message="spec.addons: an add-on cannot be in both enable and disable"
type AddonsSpec struct {
	// Enable names optional add-ons to install.
	//
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=30
	Enable []string `json:"enable,omitempty"`

	// Disable names default add-ons not to install; removing one from a running cluster
	// deletes its objects there (kubectl scs diff says so first).
	//
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=30
	Disable []string `json:"disable,omitempty"`
}

// Purpose says what a cluster is for.
//
// +kubebuilder:validation:Enum=evaluation;development;production
type Purpose string

// Purposes a cluster can have.
const (
	PurposeEvaluation  Purpose = "evaluation"
	PurposeDevelopment Purpose = "development"
	PurposeProduction  Purpose = "production"
)

// KubernetesSpec selects the Kubernetes version.
type KubernetesSpec struct {
	// Version is a Kubernetes minor such as "1.34", which lets the backend apply patch
	// releases, or a pinned patch such as "1.34.2". Upgrades go one minor at a time;
	// downgrades below the version the cluster runs are refused.
	//
	// +kubebuilder:validation:MaxLength=16
	// +kubebuilder:validation:Pattern=`^1\.(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))?$`
	// +kubebuilder:validation:XValidation:rule="int(self.split('.')[1]) <= int(oldSelf.split('.')[1]) + 1",messageExpression="'spec.kubernetes.version can move one minor at a time: ' + oldSelf + ' to ' + self + ' skips a minor'"
	// +kubebuilder:validation:XValidation:rule="self.split('.').size() < 3 || oldSelf.split('.').size() < 3 || self.split('.')[1] != oldSelf.split('.')[1] || int(self.split('.')[2]) >= int(oldSelf.split('.')[2])",messageExpression="'spec.kubernetes.version cannot be downgraded from ' + oldSelf + ' to ' + self"
	Version string `json:"version"`
}

// ControlPlaneSpec configures the control plane.
type ControlPlaneSpec struct {
	// HighAvailability runs the control plane on three nodes spread over failure zones where
	// the environment has several (SCS standard scs-0214). Defaults to true for purpose
	// production and false otherwise. Some backends cannot turn it off again once on.
	//
	// +optional
	HighAvailability *bool `json:"highAvailability,omitempty"`
}

// NodePool is a group of worker nodes with the same machine type and settings.
//
// +kubebuilder:validation:XValidation:rule="has(self.count) != has(self.autoscaling)",message="set exactly one of count (a fixed size) or autoscaling (min and max) on a node pool"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.zones) || !has(self.zones) || self.zones == oldSelf.zones",message="the zones of an existing node pool cannot change: removing a zone would delete its nodes; add a new pool for other zones and remove this one when it is empty, or leave zones out to keep what the pool runs",fieldPath=".zones",reason=FieldValueForbidden
type NodePool struct {
	// Name identifies the pool: a DNS label of at most 15 characters, unique in the cluster.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`

	// MachineType is the flavor of the nodes, preferably an SCS standard flavor name such as
	// SCS-4V-8 (scs-0100). It must be one the environment offers.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	MachineType string `json:"machineType"`

	// Count is a fixed number of nodes. Exclusive with autoscaling.
	//
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	Count *int32 `json:"count,omitempty"`

	// Autoscaling lets the cluster autoscaler size the pool between min and max. Exclusive
	// with count.
	//
	// +optional
	Autoscaling *Autoscaling `json:"autoscaling,omitempty"`

	// Zones are the failure zones the pool's nodes spread over. Omitted: when the pool is
	// created, as many of the environment's zones, in its catalog's order, as the pool can
	// have nodes (count, or autoscaling.max), all of them for a larger pool; kept for the
	// pool's life (status.defaulted), also when the pool grows. Once
	// the pool exists its zones cannot change: add a new pool for other zones. Leaving
	// them out is always admitted, so that a refused zone edit can be undone; the function
	// then checks the zones it would default against what the pool runs.
	//
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:MaxLength=63
	Zones []string `json:"zones,omitempty"`

	// Labels are put on every node of the pool.
	//
	// +optional
	// +kubebuilder:validation:MaxProperties=32
	Labels map[string]string `json:"labels,omitempty"`

	// Taints are put on every node of the pool.
	//
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Taints []Taint `json:"taints,omitempty"`

	// RootDiskGiB is the size of each node's root disk in GiB. Omitted: the machine type's
	// own disk or the environment's default.
	//
	// +optional
	// +kubebuilder:validation:Minimum=10
	// +kubebuilder:validation:Maximum=16384
	RootDiskGiB *int32 `json:"rootDiskGiB,omitempty"`

	// MaxSurge is how many nodes above the desired size may be created during a rolling
	// update: a number or a percentage.
	//
	// +optional
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty"`

	// MaxUnavailable is how many nodes may be unavailable during a rolling update: a number
	// or a percentage.
	//
	// +optional
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
}

// Autoscaling bounds an autoscaled node pool.
//
// +kubebuilder:validation:XValidation:rule="self.min <= self.max",message="autoscaling.min must not be greater than autoscaling.max"
type Autoscaling struct {
	// Min is the smallest number of nodes.
	//
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	Min int32 `json:"min"`

	// Max is the largest number of nodes.
	//
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	Max int32 `json:"max"`
}

// Taint is a Kubernetes node taint.
type Taint struct {
	// Key of the taint.
	//
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=317
	Key string `json:"key"`

	// Value of the taint.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=63
	Value string `json:"value,omitempty"`

	// Effect of the taint.
	Effect TaintEffect `json:"effect"`
}

// TaintEffect is what a taint does to pods that do not tolerate it.
//
// +kubebuilder:validation:Enum=NoSchedule;PreferNoSchedule;NoExecute
type TaintEffect string

// NetworkSpec sets the cluster's address ranges. The three ranges must not overlap.
//
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.network is immutable: a backend cannot change a cluster's address ranges in place"
// +kubebuilder:validation:XValidation:rule="!has(self.podCIDR) || !has(self.serviceCIDR) || !isCIDR(self.podCIDR) || !isCIDR(self.serviceCIDR) || !(cidr(self.podCIDR).containsCIDR(cidr(self.serviceCIDR)) || cidr(self.serviceCIDR).containsCIDR(cidr(self.podCIDR)))",message="spec.network.podCIDR and spec.network.serviceCIDR must not overlap",fieldPath=".serviceCIDR"
// +kubebuilder:validation:XValidation:rule="!has(self.podCIDR) || !has(self.nodeCIDR) || !isCIDR(self.podCIDR) || !isCIDR(self.nodeCIDR) || !(cidr(self.podCIDR).containsCIDR(cidr(self.nodeCIDR)) || cidr(self.nodeCIDR).containsCIDR(cidr(self.podCIDR)))",message="spec.network.podCIDR and spec.network.nodeCIDR must not overlap",fieldPath=".nodeCIDR"
// +kubebuilder:validation:XValidation:rule="!has(self.serviceCIDR) || !has(self.nodeCIDR) || !isCIDR(self.serviceCIDR) || !isCIDR(self.nodeCIDR) || !(cidr(self.serviceCIDR).containsCIDR(cidr(self.nodeCIDR)) || cidr(self.nodeCIDR).containsCIDR(cidr(self.serviceCIDR)))",message="spec.network.serviceCIDR and spec.network.nodeCIDR must not overlap",fieldPath=".nodeCIDR"
type NetworkSpec struct {
	// PodCIDR is the range pod IPs come from, for example 100.64.0.0/12.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="isCIDR(self) && string(cidr(self).masked()) == self",message="spec.network.podCIDR must be a CIDR in canonical form, such as 100.64.0.0/12"
	PodCIDR string `json:"podCIDR,omitempty"`

	// ServiceCIDR is the range service cluster IPs come from, for example 100.80.0.0/13.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="isCIDR(self) && string(cidr(self).masked()) == self",message="spec.network.serviceCIDR must be a CIDR in canonical form, such as 100.80.0.0/13"
	ServiceCIDR string `json:"serviceCIDR,omitempty"`

	// NodeCIDR is the range node IPs come from, for example 10.250.0.0/16.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=43
	// +kubebuilder:validation:XValidation:rule="isCIDR(self) && string(cidr(self).masked()) == self",message="spec.network.nodeCIDR must be a CIDR in canonical form, such as 10.250.0.0/16"
	NodeCIDR string `json:"nodeCIDR,omitempty"`

	// CNI selects the network plugin where the backend offers a choice. Every choice supports
	// NetworkPolicy (SCS standard scs-0219). Omitted: the environment's default.
	//
	// +optional
	CNI CNI `json:"cni,omitempty"`
}

// CNI is a container network plugin.
//
// +kubebuilder:validation:Enum=calico;cilium
type CNI string

// CNIs a cluster can ask for.
const (
	CNICalico CNI = "calico"
	CNICilium CNI = "cilium"
)

// MaintenanceSpec sets when and what the backend maintains on its own.
type MaintenanceSpec struct {
	// Window is the daily time window in which the backend may roll updates.
	//
	// +optional
	Window *MaintenanceWindow `json:"window,omitempty"`

	// AutoUpdate says what the backend updates on its own in the window.
	//
	// +optional
	AutoUpdate *AutoUpdate `json:"autoUpdate,omitempty"`
}

// MaintenanceWindow is a daily time window, 30 minutes to 6 hours long, written as
// HHMMSS+ZZZZ (hour, minute, second and UTC offset), for example begin 220000+0000 and end
// 230000+0000.
type MaintenanceWindow struct {
	// Begin of the window.
	//
	// +kubebuilder:validation:Pattern=`^([01][0-9]|2[0-3])[0-5][0-9][0-5][0-9][+-](0[0-9]|1[0-4])[0-5][0-9]$`
	Begin string `json:"begin"`

	// End of the window.
	//
	// +kubebuilder:validation:Pattern=`^([01][0-9]|2[0-3])[0-5][0-9][0-5][0-9][+-](0[0-9]|1[0-4])[0-5][0-9]$`
	End string `json:"end"`
}

// AutoUpdate says what the backend may update on its own.
type AutoUpdate struct {
	// KubernetesPatch lets the backend apply Kubernetes patch releases. It is ignored when
	// spec.kubernetes.version pins a patch.
	//
	// +optional
	KubernetesPatch *bool `json:"kubernetesPatch,omitempty"`

	// MachineImage lets the backend roll nodes onto new machine image versions.
	//
	// +optional
	MachineImage *bool `json:"machineImage,omitempty"`
}

// HibernationSpec hibernates the cluster now or on a schedule.
type HibernationSpec struct {
	// Enabled hibernates the cluster now (true) or wakes it up (false).
	//
	// +optional
	Enabled *bool `json:"enabled,omitempty"`

	// Schedules hibernate and wake up the cluster at fixed times.
	//
	// +optional
	// +kubebuilder:validation:MaxItems=8
	Schedules []HibernationSchedule `json:"schedules,omitempty"`
}

// HibernationSchedule hibernates at start and wakes up at end, both cron expressions with
// five fields (minute hour day-of-month month day-of-week). At least one must be set.
//
// +kubebuilder:validation:XValidation:rule="has(self.start) || has(self.end)",message="a hibernation schedule needs start, end, or both"
type HibernationSchedule struct {
	// Start is when the cluster goes to sleep, for example "0 20 * * 1-5".
	//
	// +optional
	// +kubebuilder:validation:MaxLength=128
	Start string `json:"start,omitempty"`

	// End is when the cluster wakes up, for example "0 7 * * 1-5".
	//
	// +optional
	// +kubebuilder:validation:MaxLength=128
	End string `json:"end,omitempty"`

	// Location is the IANA time zone of start and end, for example Europe/Berlin. Omitted:
	// UTC.
	//
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Location string `json:"location,omitempty"`
}
