// Package fakegarden serves the adminkubeconfig subresource of Shoots the way
// gardener-apiserver does, for the provider's tests only: in process for the unit tests
// (gardentest), and as the command cmd/fake-garden-auth for test/apiserver. Nothing the
// provider ships imports it; it lives under test/ for that reason.
//
// The provider's own tests run it instead of the real gardener-apiserver (which the e2e runs,
// test/e2e/controlplane and test/e2e/kubeconfigprovider) so that they stay fast and need no
// 100 MB binary: their garden is a plain kube-apiserver with a Shoot CRD, and a CRD cannot
// serve custom subresources (only status and scale), so a POST to
// shoots/<name>/adminkubeconfig there answers 404.
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
