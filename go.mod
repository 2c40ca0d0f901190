module github.com/SovereignCloudStack/scs-kaas

go 1.26

require (
	github.com/crossplane/function-sdk-go v0.7.1
	github.com/gardener/gardener/pkg/apis v1.149.3
	sigs.k8s.io/cluster-api/api v1.14.2
)
