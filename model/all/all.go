// Package all assembles the backends this project ships, for the programs that want every
// one: adding a backend is one line here.
package all

import (
	"github.com/SovereignCloudStack/scs-kaas/model"
	"github.com/SovereignCloudStack/scs-kaas/model/clusterstack"
	"github.com/SovereignCloudStack/scs-kaas/model/gardener"
	"github.com/SovereignCloudStack/scs-kaas/model/magnum"
)

// Backends are the backends, in the order of the documentation's columns.
func Backends() []model.Backend {
	return []model.Backend{gardener.New(), clusterstack.New(), magnum.New()}
}

// Registry holds every backend.
func Registry() *model.Registry { return model.NewRegistry(Backends()...) }
