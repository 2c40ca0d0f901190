package model

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// Registry holds the backends a program supports.
type Registry struct {
	backends map[kaasv1alpha1.BackendType]Backend
}

// NewRegistry returns a registry of the given backends. It panics on a setting that is not
// a path of the environment contract: a bug of the backend.
func NewRegistry(backends ...Backend) *Registry {
	r := &Registry{backends: make(map[kaasv1alpha1.BackendType]Backend, len(backends))}
	for _, b := range backends {
		r.backends[b.Type()] = b
		for _, s := range b.Settings() {
			if _, _, err := settingField(&Environment{}, s.at("1.34"), true); err != nil {
				panic(fmt.Sprintf("backend %s: %v", b.Type(), err))
			}
		}
	}
	return r
}

// For returns the backend of the given type.
func (r *Registry) For(t kaasv1alpha1.BackendType) (Backend, error) {
	b, ok := r.backends[t]
	if !ok {
		return nil, fmt.Errorf("unknown backend %q: supported backends are %s", t, strings.Join(r.Types(), ", "))
	}
	return b, nil
}

// Types lists the supported backend types, sorted.
func (r *Registry) Types() []string {
	ts := make([]string, 0, len(r.backends))
	for t := range r.backends {
		ts = append(ts, string(t))
	}
	sort.Strings(ts)
	return ts
}

// backendOf names the API's or registry's backend whose resource names start like name.
func (r *Registry) backendOf(name string) kaasv1alpha1.BackendType {
	for _, t := range slices.AppendSeq(kaasv1alpha1.BackendTypes(), maps.Keys(r.backends)) {
		if strings.HasPrefix(name, string(t)+"-") {
			return t
		}
	}
	return ""
}
