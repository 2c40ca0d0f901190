//go:build tools

// Package tools only records the programs this wrapper module builds, so that
// go mod tidy keeps their dependencies in go.sum.
package tools

import (
	_ "github.com/fluxcd/kustomize-controller"
	_ "github.com/fluxcd/source-controller"
)
