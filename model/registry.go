package model

import (
	"fmt"
	"sort"
	"strings"

	kaasv1alpha1 "github.com/SovereignCloudStack/scs-kaas/apis/kaas/v1alpha1"
)

// Registry holds the backends a program supports.
type Registry struct {
	backends map[kaasv1alpha1.BackendType]Backend
}

// NewRegistry returns a registry of the given backends. A setting a backend declares that
// is not a path of the environment contract is a bug of the backend: it panics.
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

// backendOf names the backend whose resource names start like name, of every backend of
// the API and those of the registry; empty for none.
func (r *Registry) backendOf(name string) kaasv1alpha1.BackendType {
	for _, t := range append(kaasv1alpha1.BackendTypes(), registeredTypes(r)...) {
		if strings.HasPrefix(name, string(t)+"-") {
			return t
		}
	}
	return ""
}

func registeredTypes(r *Registry) []kaasv1alpha1.BackendType {
	out := make([]kaasv1alpha1.BackendType, 0, len(r.backends))
	for t := range r.backends {
		out = append(out, t)
	}
	return out
}
