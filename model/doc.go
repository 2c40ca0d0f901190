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
// Registry.Reconcile, which:
//
//  1. selects the environment the cluster lives in from the EnvironmentConfigs (by the name
//     the cluster asks for, the name it is pinned to, or the platform default), refuses a
//     switch of backend or environment under a live cluster, and keeps the placement the
//     cluster was first composed with (KeepPlacement, status.backend.placement);
//  2. defaults the spec from the purpose, from what the environment defaulted when the
//     cluster was created (status.defaulted), and only for what is new from the environment
//     as it is now (Default);
//  3. validates it against the API's rules and the environment's catalog, every problem at
//     once with its field path (Validate, ValidateZonesKept);
//  4. hands it to the environment's Backend, whose Translate reads the observed native
//     objects once, refuses what its native API cannot do in place, and renders the native
//     objects and the normalised status;
//  5. keeps every composed resource that exists (an Object not yet reported is kept as last
//     applied; nothing of the backend is dropped but a removed pool's node groups), and adds
//     the conditions every backend shares (KubeconfigReady, EnvironmentUpToDate) and the
//     warnings its capabilities declare. What was delivered stays: the kubeconfig users hold
//     is kept while the backend shows none (Delivered), and a composed resource no backend
//     renders is kept when it can hold a cluster or its credentials (HoldsCluster).
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
//   - PlacementSettings: the settings of its section that decide where a cluster's
//     resources live, whose values Reconcile keeps per cluster (KeepPlacement);
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
