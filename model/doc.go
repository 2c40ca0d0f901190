// Package model is the model layer of the SCS cluster API: it translates the portable
// XSCSCluster spec into the native objects of one backend, and their status back into one
// normalised status. It is pure Go without Crossplane imports, so that a CLI, a controller or
// a test can reuse it; Registry.Reconcile runs its phases (docs/architecture.md). Any error
// means the caller must not change anything: no partial result is ever returned.
//
// Every edit a new backend needs (docs/architecture.md#adding-a-fourth-backend):
//
//  1. apis/kaas/v1alpha1/status_types.go: a BackendType constant, in the Enum marker and in
//     BackendTypes() (TestRegisteredBackendsAreInTheAPI);
//  2. apis/environment/v1alpha1: its section of the environment contract;
//  3. model/<type>: a Backend, with its capabilities, settings and tests;
//  4. model/all: one line in Backends();
//  5. make generate: the XRDs, docs/capabilities.md, the standard's table, kubectl-scs's XRD;
//  6. package/rbac.yaml for native kinds composed locally; providers in dependsOn;
//  7. examples/environments, examples/render/<type>, docs/environments.md;
//  8. test/e2e: the CRDs of its native kinds in controlplane, its status in backendsim.
package model
