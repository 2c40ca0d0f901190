//go:build tools

// Package tools only records the program this wrapper module builds, so that
// go mod tidy keeps its dependencies in go.sum. The upstream main package is
// built as is (no copy of its main.go).
package tools

import (
	_ "github.com/gardener/gardener/cmd/gardener-apiserver"
)
