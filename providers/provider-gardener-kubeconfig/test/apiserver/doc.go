// Package apiserver tests the provider as it runs: the provider and fake-garden-auth commands
// as processes against a real kube-apiserver and etcd (controller-runtime's envtest, with the
// binaries the repository's tool cache builds; the tests skip when they are not built, and
// fail so under CI=true). fake-garden-auth is the test tool in ../fakegarden/cmd.
//
// One API server plays three parts: the Crossplane cluster (the provider's CRDs, the
// AdminKubeconfigs, their connection secrets), the garden (the Shoot CRD, a project namespace,
// RBAC for the provider's garden user) and the Shoot's own API server (the issued admin
// kubeconfigs are signed by the CA the API server trusts, so the test can use them).
package apiserver
