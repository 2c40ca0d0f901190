// Package v1beta1 declares a CRD-shaped Shoot for controller-tools.
//
// Gardener serves Shoot from its aggregated API server, so no CRD exists
// upstream. This package wraps Gardener's own ShootSpec and ShootStatus in a
// root type carrying kubebuilder markers; the generator in the parent
// directory turns it into a structural CRD for local garden clusters and for
// offline validation of rendered Shoots. It is never compiled into a program.
//
// +groupName=core.gardener.cloud
// +versionName=v1beta1
package v1beta1
