//go:build tools

// The generators this module runs as programs rather than libraries: recorded here so that
// go mod tidy keeps them, and their dependencies, in go.mod and go.sum.
package main

import _ "github.com/crossplane/crossplane-tools/cmd/angryjet"
