package v1alpha1

// AnnotationDeletionPolicy on a cluster (claim or composite) asks what deleting it does to
// the cluster it describes: "Orphan" leaves the native cluster running (every composed
// resource that holds it is orphaned); "Delete", the default, deletes it unless deletion
// protection is on. It is how a cluster leaves this API without going away: moving from the
// claim flavour to namespaced composites (docs/migration.md), or to another control plane.
// An annotation rather than a spec field because it is about this object's life, not about
// the cluster: it is the same for every backend and never reaches one.
const AnnotationDeletionPolicy = "kaas.scs.community/deletion-policy"

// AnnotationAdoptEnvironment on a cluster asks it to take its environment's current values
// in place of those it keeps (status.backend.pinned and the environment's defaults in
// status.defaulted), where its backend can change them in place. Each new value is one
// request, as kubectl rollout restart's timestamp is: kubectl scs upgrade --environment
// writes the time. A value the cluster cannot take without being replaced stays, and the
// EnvironmentUpToDate condition says so.
const AnnotationAdoptEnvironment = "kaas.scs.community/adopt-environment"

// AnnotationNativeName on a cluster names the native object it adopts when that object's
// name is not the one the cluster would derive (a cluster made outside this API, imported
// with kubectl scs import). It is read only until the cluster's name is recorded
// (status.backend.name), and the native object must carry the cluster's identity label
// (kaas.scs.community/identity), which whoever may write it puts there to hand it over: a
// team cannot name another's cluster into its own (docs/recovery.md#import).
const AnnotationNativeName = "kaas.scs.community/native-name"

// DeletionPolicy is what deleting a cluster's object does to the cluster.
//
// +kubebuilder:validation:Enum=Delete;Orphan
type DeletionPolicy string

// Deletion policies.
const (
	// DeletionDelete: deleting the object deletes the cluster.
	DeletionDelete DeletionPolicy = "Delete"
	// DeletionOrphan: deleting the object leaves the cluster; a new object of the same
	// namespace and name (in either flavour) takes it over.
	DeletionOrphan DeletionPolicy = "Orphan"
)

// DeletionPolicies lists the deletion policies, for messages.
func DeletionPolicies() []DeletionPolicy { return []DeletionPolicy{DeletionDelete, DeletionOrphan} }
