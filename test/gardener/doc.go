// Package gardener checks that the Shoots the project renders pass Gardener's own
// validation (ValidateShoot and ValidateShootUpdate from
// github.com/gardener/gardener/pkg/api/core/validation), after Gardener's defaulting and
// conversion to the internal API, as gardener-apiserver runs them.
package gardener
