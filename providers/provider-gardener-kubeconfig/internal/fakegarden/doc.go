// Package fakegarden serves the adminkubeconfig subresource of Shoots the way
// gardener-apiserver does, for tests and for the fake-garden-auth command.
//
// It exists because the project's local garden cluster is a plain kube-apiserver with a Shoot
// CRD, and a CRD cannot serve custom subresources (only status and scale): a POST to
// shoots/<name>/adminkubeconfig there answers 404. gardener-apiserver, which serves the real
// subresource, cannot run here (it needs a whole Gardener installation).
//
// What it reproduces, from gardener-apiserver's behaviour (pkg/apiserver/registry/core/shoot/
// storage): the path and verb, the request and response types (AdminKubeconfigRequest of
// authentication.gardener.cloud/v1alpha1), defaulting of expirationSeconds to one hour, the
// 10-minute minimum (422 Invalid), the cap at a maximum lifetime, the order of checks
// (authentication 401, authorization 403, Shoot lookup 404, advertised addresses 422, CA 500),
// Kubernetes Status bodies for every error, and a kubeconfig with one context per advertised
// kube-apiserver address whose user is a client certificate signed by a client CA, with the
// caller's name and groups, expiring at status.expirationTimestamp. It answers 404 for any
// other path: it proxies nothing.
package fakegarden
