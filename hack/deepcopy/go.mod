module github.com/SovereignCloudStack/scs-kaas/hack/deepcopy

go 1.26.0

require (
	golang.org/x/tools v0.44.0
	sigs.k8s.io/controller-tools v0.21.0
)

require (
	golang.org/x/mod v0.35.0 // indirect
	golang.org/x/sync v0.20.0 // indirect
	gopkg.in/yaml.v2 v2.4.0 // indirect
	k8s.io/apimachinery v0.36.0 // indirect
)
