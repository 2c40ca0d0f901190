// Package adminkubeconfig reconciles AdminKubeconfig managed resources with crossplane-runtime's
// managed reconciler: the cluster-scoped ones of gardener.kaas.scs.community (NewReconciler)
// and the namespaced ones of gardener.m.kaas.scs.community (NewNamespacedReconciler). One
// connector and one external client serve both (object.go views either kind alike); only the
// provider config lookup differs (connector.go), and a namespaced ProviderConfig may only use
// a credentials Secret of its own namespace.
//
// The "external resource" is the admin kubeconfig the provider last issued. It lives only in
// the connection secret; the provider knows when it was issued and when it expires from
// status.atProvider (see issuance.go for why the annotation gardener.kaas.scs.community/issuance
// also carries that record). Observe reads no remote state at all: it compares that record
// with the clock.
//
//	Observe  kubeconfig in the secret and a record?  no  -> ResourceExists=false  -> Create
//	         issued for the Shoot the spec names, before the renewal time?
//	                                                  no  -> ResourceUpToDate=false -> Update
//	                                                  yes -> up to date; requeue at the renewal time
//	Create, Update  POST shoots/<name>/adminkubeconfig, record the issuance, return the
//	                connection details (kubeconfig, endpoint, ca.crt)
//	Delete   nothing: the garden cannot revoke one kubeconfig; it expires by itself
//
// When issuing fails the reconciler keeps the connection secret as it is, marks Synced=False
// with the error (whose first word is the cause, e.g. ShootNotFound) and retries with
// exponential backoff. The old kubeconfig stays usable until it expires; then Ready turns
// False with reason Expired.
package adminkubeconfig
