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
// stack, and their observed state back into the normalised status. Implementations are
// stateless and safe for concurrent use.
type Backend interface {
	// Type names the backend; EnvironmentConfigs select it with data.backend.
	Type() kaasv1alpha1.BackendType

	// ValidateEnvironment checks the backend's section of an environment. Paths are
	// relative to the EnvironmentConfig's data.
	ValidateEnvironment(env *Environment) field.ErrorList

	// Requirements lists further resources the backend must read before it can render,
	// keyed by a name that is unique across backends (for example the ClusterStackRelease
	// objects of a Cluster Stacks namespace). It depends only on the environment and the
	// cluster, never on what was fetched, so that it settles after one round.
	Requirements(req *Request) map[string]Selector

	// Validate checks what only this backend restricts (name lengths, catalog rules,
	// changes its native API cannot make in place given the observed objects). Paths point
	// at portable fields.
	Validate(req *Request) field.ErrorList

	// Render returns the native objects for the cluster. It is deterministic.
	Render(req *Request) (*Rendering, error)

	// Observe reads the observed native objects into the normalised status. Objects that
	// do not exist yet are not an error.
	Observe(req *Request) (*Observation, error)
}

// Request is everything a backend needs for one cluster.
type Request struct {
	// Cluster is the composite resource. Its spec has been defaulted and validated.
	Cluster *kaasv1alpha1.XSCSCluster

	// Environment is the environment the cluster lives in.
	Environment *Environment

	// Defaulted records what the environment filled in of the spec (see Defaulted), so
	// that a message can say where a refused value came from.
	Defaulted *kaasv1alpha1.DefaultedValues

	// Observed are the native objects that exist now, keyed by resource name.
	Observed map[string]ObservedResource

	// Required are the resources fetched for the backend's Requirements, keyed by
	// requirement name. A key is present once the caller fetched it, even if nothing
	// matched.
	Required map[string][]*unstructured.Unstructured

	// Options are settings of the caller that are not part of the cluster or environment.
	Options Options

	// decoded memoises typed views of observed objects for the life of the request, so
	// that Validate, Observe and Render decode each observed object once.
	decoded map[string]decodedValue
}

type decodedValue struct {
	value any
	err   error
}

// Decoded returns what decode returns, calling it once per request and key. Backends use
// it for typed views of observed objects. A Request is not safe for concurrent use.
func (r *Request) Decoded(key string, decode func() (any, error)) (any, error) {
	if d, ok := r.decoded[key]; ok {
		return d.value, d.err
	}
	v, err := decode()
	if r.decoded == nil {
		r.decoded = map[string]decodedValue{}
	}
	r.decoded[key] = decodedValue{value: v, err: err}
	return v, err
}

// ZonesDefaulted says whether the zones of a pool came from the environment, not the user.
func (r *Request) ZonesDefaulted(pool string) bool {
	k, ok := keptPool(r.Defaulted, pool)
	return ok && len(k.Zones) > 0
}

// Options are settings of the program that uses the model layer.
type Options struct {
	// ConnectionSecretNamespace is where composed objects write their connection secrets
	// when the backend needs them (Crossplane reads them back as connection details).
	ConnectionSecretNamespace string
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
