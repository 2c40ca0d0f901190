// Package floors holds only a test: it enforces the import floors of the product module,
// the depguard rules of .golangci.yml, over the whole import graph that go list -deps gives.
//
// depguard sees the imports a file writes; a floor is about what a package pulls in. The
// model layer (model/...) is an importable library for CLIs and other controllers, so
// nothing it reaches may be protobuf, gRPC, the function SDK or crossplane-runtime, however
// indirectly; apis/... is the API's types, so each of its packages may import only the
// standard library, apimachinery, the Kubernetes API types and the other apis packages.
// The rules are written once, in .golangci.yml; this test reads them from there.
package floors
