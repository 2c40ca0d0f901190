package model

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// LabelCluster names, on every native object a backend renders, the cluster it belongs to.
const LabelCluster = "kaas.scs.community/cluster"

// A Backend translates the portable spec into the native objects of one cluster stack, and
// their observed state back into the normalised status. Where its objects live is the
// Placement's business (Request.Place), the shared conditions the Registry's.
// Implementations are stateless and safe for concurrent use.
type Backend interface {
	// Type names the backend; EnvironmentConfigs select it with data.backend.
	Type() kaasv1alpha1.BackendType

	// Capabilities declare what the backend does with each portable field.
	Capabilities() Capabilities

	// ValidateEnvironment checks the backend's section; paths are relative to data.
	ValidateEnvironment(env *Environment) field.ErrorList

	// Settings are the settings of its section that reach a cluster's native objects;
	// Reconcile keeps their values per cluster (keepSettings).
	Settings() []Setting

	// NameLength is the longest cluster name the native objects allow in env, with room for
	// every name derived from it; at least 8.
	NameLength(env *Environment) int

	// Requirements are further resources to read before rendering, by a name unique across
	// backends. They depend on the environment and the cluster only, never on what was
	// fetched, so that they settle after one round.
	Requirements(req *Request) map[string]Selector

	// Translate reads the observed native objects once, refuses what its native API cannot
	// change in place, and renders the native objects and the status, deterministically.
	// Observed state it cannot read is an error (Unreadable).
	Translate(req *Request) (*Translation, error)

	// Lookout are the composed resources that find the cluster's native objects where they
	// would be, before anything of it is managed (model/adopt.go): its own object for the
	// cluster, and those beside it that Import reads, each composed as Translate composes it
	// (same resource name and placement, a minimal object: Reconcile makes it observe-only),
	// so that the same composed resource then manages it. They depend on the cluster's name
	// and its environment's settings only, never on the spec, which may not be valid in
	// today's environment for a cluster that runs.
	Lookout(req *Request) []Resource

	// Import describes a cluster that exists in the portable API: the reverse of Translate.
	// natives are its native objects as they exist, unwrapped from their Objects: the
	// backend's own object for the cluster (a Shoot, a Cluster, a ClusterV1) and those it
	// renders beside it that say more of the cluster (a Shoot's authentication ConfigMap,
	// Magnum's NodegroupV1s). Rendering Imported.Spec in env with Imported.Settings gives
	// back the natives as they are. A cluster this API cannot manage is an error that says
	// why; what the spec cannot express but rendering leaves as it is goes in Unportable.
	Import(natives []*unstructured.Unstructured, env *Environment) (*Imported, error)
}

// Translation is what a backend made of one request.
type Translation struct {
	// Invalid is what the backend refuses, by field path; when set, nothing else is.
	Invalid     field.ErrorList
	Rendering   *Rendering
	Observation *Observation
}

// ObservedResource is a native object as it exists, with its connection details.
type ObservedResource struct {
	Object            *unstructured.Unstructured
	ConnectionDetails map[string][]byte
}

// Selector selects resources to read, like a Crossplane required resource: by MatchName or
// else MatchLabels (empty: every object of the kind).
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
	// Unsupported are set fields the backend cannot honour: warned of, not refused.
	Unsupported []Unsupported
	// NativeRef points at the backend's own object for the cluster.
	NativeRef *kaasv1alpha1.ObjectReference
	// EnvironmentChanges are settings the cluster keeps although the environment changed
	// (a machine image, say); they join the EnvironmentUpToDate condition.
	EnvironmentChanges []string
}

// Resource is one rendered native object with its stable resource name.
type Resource struct {
	Name   string
	Object *unstructured.Unstructured
	// Disposable says that deleting it loses nothing of the cluster (an admin kubeconfig,
	// the kubeconfig Secret, collections, observe-only Objects): deletionPolicy ignores it.
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
	// Status is the normalised status; Reconcile fills in Backend.
	Status kaasv1alpha1.ClusterStatus
	// Ready is true when the cluster is up to date and healthy.
	Ready bool
	// ResourceReady says, per resource name, whether that native object is ready.
	ResourceReady map[string]bool
	// Conditions carry the backend's own verdict.
	Conditions []Condition
	// ConnectionDetails are the cluster's credentials and endpoints (ConnectionKey*).
	// Secret: never log them.
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

// MaxMessageLength bounds messages copied from native systems into conditions: enough for an
// error with its context, short enough for kubectl describe.
const MaxMessageLength = 1024

// Truncate shortens a message to MaxMessageLength.
func Truncate(s string) string {
	if len(s) <= MaxMessageLength {
		return s
	}
	return s[:MaxMessageLength-3] + "..."
}

// NotCreated is the BackendReady condition while the native object does not exist yet: what
// names it ("the Shoot"), where says where it will live (may be empty).
func NotCreated(what, where string) Condition {
	msg := what + " does not exist"
	if where != "" {
		msg += " " + where
	}
	return Condition{Type: kaasv1alpha1.ConditionBackendReady, Status: ConditionFalse, Reason: kaasv1alpha1.ReasonCreating, Message: msg + " yet"}
}
