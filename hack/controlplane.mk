# The local control plane (test/e2e/controlplane) and the Shoot CRD
# generator (hack/shootcrd). Included from the top-level Makefile after
# hack/tools.mk. The top-level Makefile sets PLAYGROUND_FUNCTION (a built
# function binary) and PLAYGROUND_MANIFESTS for `make demo`.

PLAYGROUND_RUN_DIR ?= $(CURDIR)/_output/playground
# Composition function binary; empty starts the control plane without it.
PLAYGROUND_FUNCTION ?=
PLAYGROUND_FUNCTION_NAME ?= sovereigncloudstack-function-scs-kaas
# Comma-separated files or directories applied into the Crossplane cluster.
PLAYGROUND_MANIFESTS ?=
# Comma-separated Gardener projects (namespaces garden-<project>).
PLAYGROUND_PROJECTS ?=
# Anything else for `playground up`, e.g. --function-certs-dir-flag=--tls-server-certs-dir.
PLAYGROUND_ARGS ?=
PLAYGROUND_BIN := $(CURDIR)/_output/bin/playground
E2E_DIR := $(HACK_DIR)/../test/e2e

.PHONY: playground-bin playground-up playground-down playground-status controlplane-smoke shoot-crd shoot-crd-test

playground-bin: ## Build the playground command into _output/bin.
	@mkdir -p $(dir $(PLAYGROUND_BIN))
	cd $(E2E_DIR) && go build -o $(PLAYGROUND_BIN) ./cmd/playground

playground-up: tools-controlplane playground-bin ## Start etcd, kube-apiserver (x2), Crossplane, provider-kubernetes and the function.
	$(PLAYGROUND_BIN) up --run-dir=$(PLAYGROUND_RUN_DIR) \
		$(if $(PLAYGROUND_FUNCTION),--function-binary=$(PLAYGROUND_FUNCTION)) \
		--function-name=$(PLAYGROUND_FUNCTION_NAME) \
		$(if $(PLAYGROUND_MANIFESTS),--manifest=$(PLAYGROUND_MANIFESTS)) \
		$(if $(PLAYGROUND_PROJECTS),--project=$(PLAYGROUND_PROJECTS)) \
		$(PLAYGROUND_ARGS)

playground-down: playground-bin ## Stop exactly what playground-up started (by the PID files in the run dir).
	$(PLAYGROUND_BIN) down --run-dir=$(PLAYGROUND_RUN_DIR)

playground-status: playground-bin ## Show what the playground runs.
	@$(PLAYGROUND_BIN) status --run-dir=$(PLAYGROUND_RUN_DIR)

controlplane-smoke: tools-controlplane ## The control plane's own end-to-end smoke test (stand-in function, tiny XRD).
	cd $(E2E_DIR) && SCS_KAAS_E2E=1 go test -count=1 -timeout=30m -v -run 'TestControlPlaneSmoke|TestStopRun' ./controlplane/

shoot-crd: ## Regenerate hack/shootcrd/crds/core.gardener.cloud_shoots.yaml from Gardener's types.
	cd $(HACK_DIR)/shootcrd && go run . -o crds/core.gardener.cloud_shoots.yaml

shoot-crd-test: ## Check the Shoot CRD against Gardener's published OpenAPI (../shared/crds) and for staleness.
	cd $(HACK_DIR)/shootcrd && go test -count=1 ./...
