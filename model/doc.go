// Package model is the model layer of the SCS cluster API: it translates the portable
// XSCSCluster spec into the native objects of one backend, and the native objects' status
// back into one normalised status. It is pure Go with no Crossplane imports, so a CLI, a
// controller or a test can reuse it; the composition function in functions/ is a thin
// adapter around it.
//
// The kOps and Cluster API projects split cluster tooling into a model layer (translate the
// tool's API into cloud resources) and a tasks layer (reconcile those resources
// declaratively). Here Crossplane, Gardener, Cluster API and provider-openstack are the
// tasks layer; this package is the model layer.
//
// # Flow
//
// A caller turns its inputs into an Input (package input does that for a composite resource
// of either flavour, and answers Reconcile's requirements as Crossplane does) and hands it to
// Registry.Reconcile, which runs its phases in order (reconcile.go):
//
//  1. admit: the composite's annotations are valid; its tenant and the EnvironmentConfigs
//     are read;
//  2. resolve the environment: the one the cluster asks for, is pinned to, or the platform
//     default among those offered to its tenant, valid, and of the backend that built it;
//  3. recall what the cluster was given: the environment settings it keeps (Setting,
//     status.backend.placement), the spec defaulted from what the environment defaulted
//     when the cluster was created (Default, status.defaulted), its name in the backend;
//  4. guard what is observed: nothing of another backend or cluster is taken over, no
//     Secret's data is passed on (guard.go);
//  5. require what the backend reads first;
//  6. validate the spec: the create rules against the API and the environment's catalog,
//     the update rules against what exists, every problem at once with its field path
//     (validate.go);
//  7. translate: the backend reads the observed native objects once, refuses what its
//     native API cannot do in place, and renders the native objects and the status;
//  8. keep what exists and was delivered (keeper.go): objects not reported yet as last
//     applied, composed resources no backend renders that can hold a cluster
//     (HoldsCluster), the kubeconfig users hold while the backend shows none (Delivered);
//  9. guard the rendering: no composed resource that exists is moved, replaced or dropped
//     but a removed pool's node groups (guard.go);
//  10. observe: the normalised status and every condition the composite gets
//     (conditions.go), with the warnings its capabilities declare.
//
// Any error means the caller must not change anything: no partial result is ever returned.
//
// # Adding a backend
//
// A backend is one package, model/<type>, whose Backend has:
//
//   - Type: its kaasv1alpha1.BackendType;
//   - ValidateEnvironment: checks its section of the environment contract;
//   - Capabilities: what it does with every portable field and what changing it does to a
//     running cluster (PreviewEdit classifies edits with it; Capabilities.Check says what is
//     missing); docs/capabilities.md and the warnings for fields it never honours come
//     from them;
//   - NameLength and Requirements: how long its cluster names may be, and what else it must
//     read before it can render (resources it asks Crossplane for);
//   - Settings: the settings of its section that reach a cluster's native objects, by
//     their path, whose values Reconcile keeps per cluster (keepSettings);
//   - Translate: typed native objects in, native objects and status out. Where those objects
//     live is not its business: Request.Place(setting) returns the Placement for the
//     environment setting that names the cluster ("local" or a provider-kubernetes
//     ProviderConfig), whose Compose, Native, List and SecretRead work the same wherever
//     that is. Managed resources of Crossplane providers go through Request.Managed, which
//     applies the ProviderConfig, the connection secret, labels and deletion protection.
//
// Resource names it returns are stable composition resource names starting with the
// backend's type, and every name it derives for an object starts with Request.NativeName.
//
// Every edit a new backend needs (docs/architecture.md walks through them):
//
//  1. apis/kaas/v1alpha1/status_types.go: a BackendType constant, its value in BackendType's
//     +kubebuilder:validation:Enum marker and in BackendTypes(); the API server refuses any
//     status.backend.type the XRD's enum does not list;
//  2. apis/environment/v1alpha1: its section, a struct and an optional field of Environment
//     named after the type;
//  3. model/<type>: the package above, with its tests;
//  4. model/all: one line in Backends();
//  5. make generate: the XRDs of both flavours (apis/xrd), docs/capabilities.md, the
//     standard's conformance table and the copy of the XRD kubectl-scs embeds;
//  6. package/rbac.yaml: the native kinds it composes in Crossplane's own cluster (a
//     management cluster that is "local"), which Crossplane needs RBAC for; a provider
//     whose managed resources every environment of the backend composes goes into the
//     dependsOn of both Configurations (package/crossplane.yaml, package/legacy);
//  7. examples/environments and examples/render/<type> (observed-state samples that
//     make render and the render tests use), docs/environments.md (its section);
//  8. test/e2e: controlplane serves the CRDs of its native kinds, backendsim writes the
//     status its controllers would write.
//
// TestRegisteredBackendsAreInTheAPI (model/all) fails when a registered backend misses step
// 1 or 5; TestCapabilitiesAreComplete, TestCapabilitiesDoc and TestBackendsMeetTheStandard
// check its declarations; hack/xrdgen's TestCommittedXRDsAreCurrent and kubectl-scs's
// TestEmbeddedXRDIsCurrent fail when step 5 was not run.
package model
