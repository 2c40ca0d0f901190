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
// A caller turns its inputs into a Request and hands it to Reconcile, or runs the steps
// itself:
//
//  1. SelectEnvironment picks the backend environment from the candidate EnvironmentConfigs
//     (by the name the cluster asks for, the name it is pinned to, or the platform default).
//  2. Default fills what the spec leaves out from the purpose and the environment.
//  3. Validate checks the defaulted spec against the API's rules and the environment's
//     catalog, and returns every problem at once, each with its field path.
//  4. The Backend for the environment renders the native objects (Render) and reads their
//     observed state back (Observe).
//
// # Backends
//
// A Backend is stateless. Render is a pure function of the Request: the same request gives
// the same objects, byte for byte once serialised. Observed native objects are part of the
// request because a safe render depends on them: a backend refuses, with an error naming the
// portable field, any change that its native API would turn into a replacement of the
// cluster, and it keeps values the native system chose (for example a failure-tolerance
// type) rather than flip them. Observe never fails on a missing object: a cluster that does
// not exist yet is Provisioning.
//
// Resource names returned by a backend are stable identifiers (for Crossplane, composition
// resource names). Each starts with the backend's type, so a caller can tell which backend
// created an observed object and refuse to switch backends under a live cluster.
package model
