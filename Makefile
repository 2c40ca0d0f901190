# The SCS cluster API: one Crossplane Configuration and composition function over Gardener,
# Cluster API (SCS Cluster Stacks) and OpenStack Magnum.
#
#   make render   render every example through the real crossplane CLI, validate, print
#   make test     every test: unit, schemas, Gardener's own validation, render
#   make help     everything else
#
# Tools (Crossplane, kube-apiserver, ...) are built from the Go module proxy into
# $(SCS_KAAS_CACHE) on first use; later runs reuse them.

SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

export SCS_KAAS_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/scs-kaas
OUTPUT := $(CURDIR)/_output
BIN := $(OUTPUT)/bin
FUNCTION := $(BIN)/function-scs-kaas

# Go modules of this repository. The root module is the product; the others hold tools and
# tests whose dependencies must not reach the product.
MODULES := . hack/xrdgen hack/shootcrd test/gardener test/e2e

XRD := apis/xrd/xscsclusters.kaas.scs.community.yaml

.PHONY: help
help: ## Show the targets.
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

##@ Build

.PHONY: build
build: ## Build the function binary into _output/bin.
	go build -trimpath -o $(FUNCTION) ./functions/function-scs-kaas

.PHONY: generate
generate: ## Regenerate the XRD from the Go types in apis/.
	cd hack/xrdgen && go build -o $(BIN)/xrdgen .
	$(BIN)/xrdgen $(XRD)

##@ Check

.PHONY: lint
lint: ## gofmt and go vet on every module.
	@bad=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$bad" ]; then echo "gofmt needed:"; echo "$$bad"; exit 1; fi
	@for m in $(MODULES); do echo "go vet ($$m)"; (cd $$m && go vet ./...); done

.PHONY: unit
unit: ## Unit tests of the product module (fast, no tools needed).
	go test ./...

.PHONY: test
test: lint test-modules test-render ## Every test: lint, unit, XRD, Shoot CRD, Gardener validation, render.

.PHONY: test-modules
test-modules: ## Tests of every Go module (XRD freshness and admission rules, Gardener's validation).
	@for m in $(MODULES); do echo "go test ($$m)"; (cd $$m && go test -count=1 ./...); done

.PHONY: test-render
test-render: ## Render tests through the real crossplane CLI (builds the CLI and core on first use).
	hack/render.sh test

##@ Run

.PHONY: render
render: ## Render every example with the crossplane CLI, validate offline, print the native objects.
	hack/render.sh render

include hack/tools.mk
include hack/controlplane.mk

.PHONY: clean
clean: ## Remove _output (the tool cache stays).
	rm -rf $(OUTPUT)
