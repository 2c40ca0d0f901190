package model

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// LabelCluster names, on every native object a backend renders, the composite resource it
// belongs to.
const LabelCluster = "kaas.scs.community/cluster"

// A Backend translates the portable cluster spec into the native objects of one cluster
// stack, and their observed state back into the normalised status. It is a translator
// only: where its objects live, how they are wrapped, read back, labelled and protected is
// the Placement's business (Request.Place), and the conditions every backend shares are
// the Registry's. Implementations are stateless and safe for concurrent use.
type Backend interface {
	// Type names the backend; EnvironmentConfigs select it with data.backend.
	Type() kaasv1alpha1.BackendType

	// Capabilities declare what the backend does with each portable field; the warnings
	// for fields it cannot honour and docs/capabilities.md come from them.
	Capabilities() Capabilities

	// ValidateEnvironment checks the backend's section of an environment. Paths are
	// relative to the EnvironmentConfig's data.
	ValidateEnvironment(env *Environment) field.ErrorList

	// Settings are the backend's environment settings that reach a cluster's native
	// objects (the region is every backend's): the garden or management cluster, a
	// ProviderConfig, a namespace. Reconcile keeps their values for the cluster's life
	// (keepSettings), so that an edit reaches new clusters only.
	Settings() []Setting

	// NameLength is the longest cluster name the backend's native objects allow in the
	// environment, with room for every name derived from it. New clusters get a name of
	// at most this length (NativeName); it must be at least 8.
	NameLength(env *Environment) int

	// Requirements lists further resources the backend must read before it can render,
	// keyed by a name that is unique across backends (for example the ClusterStackRelease
	// objects of a Cluster Stacks namespace). It depends only on the environment and the
	// cluster, never on what was fetched, so that it settles after one round.
	Requirements(req *Request) map[string]Selector

	// Translate reads the observed native objects once, checks what only this backend
	// restricts (against them: changes its native API cannot make in place), and when the
	// spec passes, renders the native objects and the normalised status. It is
	// deterministic. Observed state it cannot read is an error (see Unreadable).
	Translate(req *Request) (*Translation, error)
}

// Translation is what a backend made of one request.
type Translation struct {
	// Invalid lists what the backend refuses, each with the path of the portable field or
	// environment setting. When set, nothing else is.
	Invalid field.ErrorList

	// Rendering are the native objects.
	Rendering *Rendering

	// Observation is the normalised view of the observed native objects.
	Observation *Observation
}

// ObservedResource is a native object as it exists, with its connection details.
type ObservedResource struct {
	Object            *unstructured.Unstructured
	ConnectionDetails map[string][]byte
}

// Selector selects resources a backend needs to read, like a Crossplane required resource.
// Exactly one of MatchName and MatchLabels is used; neither lists all objects of the kind.
type Selector struct {
	APIVersion  string
	Kind        string
	Namespace   string
	MatchName   string
	MatchLabels map[string]string
}

// Rendering is what a backend renders for one cluster.
type Rendering struct {
	// Resources are the native objects, in a stable order.
	Resources []Resource

	// Unsupported lists portable fields that are set but that this backend cannot honour.
	// They do not stop rendering; callers surface them as warnings.
	Unsupported []Unsupported

	// NativeRef points at the backend's own object for the cluster.
	NativeRef *kaasv1alpha1.ObjectReference

	// EnvironmentChanges name backend settings of the environment that changed since the
	// cluster was created and that the cluster keeps as they were (for example a machine
	// image): they join the EnvironmentUpToDate condition.
	EnvironmentChanges []string
}

// Resource is one rendered native object with its stable resource name.
type Resource struct {
	Name   string
	Object *unstructured.Unstructured
	// Disposable says that deleting the resource loses nothing of the cluster, whatever
	// its deletion policy: an admin kubeconfig, the composed kubeconfig Secret, what reads
	// objects (collections, observe-only Objects). The cluster's deletion policy ignores it.
	Disposable bool
}

// Unsupported is a portable field that a backend cannot honour.
type Unsupported struct {
	// Field is the path of the portable field, such as spec.hibernation.
	Field string
	// Reason says what the backend does instead.
	Reason string
}

// Observation is the normalised view of the observed native objects.
type Observation struct {
	// Status is the normalised status. Backend is filled in by the caller.
	Status kaasv1alpha1.ClusterStatus

	// Ready is true when the cluster is up to date and healthy.
	Ready bool

	// ResourceReady says, per resource name, whether that native object is ready.
	ResourceReady map[string]bool

	// Conditions carry the backend's own verdict, with its reasons and messages.
	Conditions []Condition

	// ConnectionDetails are the credentials and endpoints of the cluster (see
	// ConnectionKey*). They are secret: never log them.
	ConnectionDetails map[string][]byte
}

// Connection detail keys every backend uses for what it can deliver.
const (
	// ConnectionKeyKubeconfig is a kubeconfig with admin access to the cluster.
	ConnectionKeyKubeconfig = "kubeconfig"
	// ConnectionKeyEndpoint is the URL of the cluster's API server.
	ConnectionKeyEndpoint = "endpoint"
	// ConnectionKeyCA is the PEM CA bundle of the cluster's API server.
	ConnectionKeyCA = "ca.crt"
)

// Condition is a status condition in the Kubernetes style.
type Condition struct {
	Type    string
	Status  ConditionStatus
	Reason  string
	Message string
}

// ConditionStatus is True, False or Unknown.
type ConditionStatus string

// Condition statuses.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// MaxMessageLength bounds messages that backends copy from native systems into conditions:
// enough for an error with its context, short enough for kubectl describe.
const MaxMessageLength = 1024

// Truncate shortens a message to MaxMessageLength.
func Truncate(s string) string {
	if len(s) <= MaxMessageLength {
		return s
	}
	return s[:MaxMessageLength-3] + "..."
}

// NotCreated is the BackendReady condition while the cluster's native object does not exist
// yet: what names it ("the Shoot"), where says where it will live ("in the garden cluster";
// may be empty).
func NotCreated(what, where string) Condition {
	msg := what + " does not exist"
	if where != "" {
		msg += " " + where
	}
	return Condition{Type: kaasv1alpha1.ConditionBackendReady, Status: ConditionFalse, Reason: kaasv1alpha1.ReasonCreating, Message: msg + " yet"}
}
