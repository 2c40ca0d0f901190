//go:build tools

// Package tools only records the programs this wrapper module builds, so that go mod tidy
// keeps their dependencies in go.sum.
package tools

import (
	_ "golang.org/x/vuln/cmd/govulncheck"
	_ "golang.org/x/vulndb/cmd/gendb"
)
