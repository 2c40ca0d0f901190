//go:build tools

// Package tools only records the program this wrapper module builds, so that go mod tidy
// keeps its dependencies in go.sum.
package tools

import _ "github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod"
