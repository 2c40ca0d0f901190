# The SCS cluster API: one Crossplane Configuration and composition function over Gardener,
# Cluster API (SCS Cluster Stacks) and OpenStack Magnum.
#
#   make demo     a local Crossplane with the function and example clusters (make down stops it)
#   make test     every test, what CI runs: unit, schemas, upstream validation, render, end-to-end
#   make render   render every example through the real crossplane CLI, validate, print
#   make help     everything else
#
# Tools (Crossplane, kube-apiserver, ...) are built from the Go module proxy into
# $(SCS_KAAS_CACHE) on first use; later runs reuse them.

SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

export SCS_KAAS_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/scs-kaas
# Everything builds and tests without cgo, as the packages, the tools and the released
# binaries are built: one build cache for all of them, no C toolchain needed. Users build
# kubectl-scs with cgo on (go install); make cli-cgo checks that once.
export CGO_ENABLED := 0
OUTPUT := $(CURDIR)/_output
BIN := $(OUTPUT)/bin
FUNCTION := $(BIN)/function-scs-kaas

# Go modules of this repository. The root module is the product; the others hold tools and
# tests whose dependencies must not reach the product.
MODULES := . hack/xrdgen hack/deepcopy hack/shootcrd hack/imagetar test/gardener test/e2e \
	providers/provider-gardener-kubeconfig providers/provider-gardener-kubeconfig/hack/generate \
	clients/kubectl-scs clients/terraform-provider-scs


.PHONY: help
help: ## Show the targets.
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

##@ Build

.PHONY: build
build: ## Build the function binary into _output/bin.
	go build -trimpath -o $(FUNCTION) ./functions/function-scs-kaas

.PHONY: package
package: ## Build the Configuration, Function and Provider packages (.xpkg) and the SBOMs of those that run code (.cdx.json) into _output/packages.
	hack/package.sh

# kubectl-scs release binaries, one per platform, named as krew and release pages expect.
CLI_PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64

.PHONY: cli
cli: ## Build kubectl-scs release binaries (linux, darwin; amd64, arm64) into _output/cli (docs/cli.md).
	@for p in $(CLI_PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; \
		echo "kubectl-scs for $$os/$$arch: $(OUTPUT)/cli/kubectl-scs-$$os-$$arch"; \
		(cd clients/kubectl-scs && CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch \
			go build -trimpath -ldflags='-s -w' -o $(OUTPUT)/cli/kubectl-scs-$$os-$$arch .) || exit 1; \
	done

# kubectl-scs as users install it: go install ...@version, with cgo on as on any machine with
# a C compiler, from a module proxy holding this checkout as a release publishes it
# (TestGoInstallRelease, docs/cli.md). The one cgo build of make test: with everything else
# at CGO_ENABLED=0, a dependency that does not link with cgo went unnoticed (issue 43).
.PHONY: cli-cgo
cli-cgo: ## Build kubectl-scs once with cgo on, by go install from a release-like module proxy.
	cd clients/kubectl-scs && SCS_KAAS_TEST_GO_INSTALL=1 go test -count=1 -timeout 30m -run 'TestGoInstallRelease/^(replace|cgo)$$' .

# The Terraform / OpenTofu provider's release binaries, laid out as a filesystem mirror that
# tofu init installs from (docs/terraform.md).
TERRAFORM_PROVIDER_VERSION ?= 0.1.0
TERRAFORM_PROVIDER_PLATFORMS ?= linux_amd64 linux_arm64 darwin_amd64 darwin_arm64
TERRAFORM_PROVIDER_MIRROR := $(OUTPUT)/terraform-provider

.PHONY: terraform-provider
terraform-provider: ## Build the Terraform / OpenTofu provider (linux, darwin; amd64, arm64) as a local mirror in _output/terraform-provider.
	@for p in $(TERRAFORM_PROVIDER_PLATFORMS); do \
		out=$(TERRAFORM_PROVIDER_MIRROR)/registry.opentofu.org/sovereigncloudstack/scs/$(TERRAFORM_PROVIDER_VERSION)/$$p/terraform-provider-scs_v$(TERRAFORM_PROVIDER_VERSION); \
		echo "terraform-provider-scs $(TERRAFORM_PROVIDER_VERSION) $$p -> $$out"; \
		(cd clients/terraform-provider-scs && CGO_ENABLED=0 GOOS=$${p%_*} GOARCH=$${p#*_} \
			go build -trimpath -ldflags "-s -w -X main.version=$(TERRAFORM_PROVIDER_VERSION)" -o $$out .) || exit 1; \
	done

.PHONY: generate
generate: ## Regenerate the DeepCopy methods and both flavours' XRDs from the Go types in apis/ (and kubectl-scs's copy), and docs/capabilities.md from the backends' declarations.
	cd hack/deepcopy && go run . --root=$(CURDIR)
	cd hack/xrdgen && go build -o $(BIN)/xrdgen .
	$(BIN)/xrdgen
	go test ./model/all -run 'TestCapabilitiesDoc|TestStandardDoc' -update
	cd clients/kubectl-scs && go test ./internal/schemas -run TestBuiltinSchemasAreCurrent -update

##@ Check

# --allow-serial-runners: golangci-lint locks its cache; a second checkout's make test on the
# same machine waits for the lock instead of failing with "parallel golangci-lint is running".
.PHONY: lint
lint: tools-golangci-lint vulncheck ## gofmt, go vet, the linters of .golangci.yml and the vulnerability gate on every module.
	@bad=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$bad" ]; then echo "gofmt needed:"; echo "$$bad"; exit 1; fi
	@for m in $(MODULES); do echo "golangci-lint ($$m)"; (cd $$m && $(GOLANGCI_LINT) run --allow-serial-runners --config=$(CURDIR)/.golangci.yml ./...); done

# The vulnerability gate of make lint: fails when a module reaches a known vulnerability,
# its own code or a dependency's, the standard library's included (docs/security.md).
.PHONY: vulncheck
vulncheck: tools-govulncheck ## govulncheck on every module, offline, against the pinned Go vulnerability database.
	@hack/vulncheck.sh $(GOVULNCHECK_DIR) $(MODULES)

.PHONY: unit
unit: ## Unit tests of the product module (fast, no tools needed).
	go test ./...

# make test runs two lanes at once (hack/test.sh): the live tests, whose control planes
# mostly wait, and the checks, which compute. The checks run niced in the live tests' idle
# time; a cold make test takes the sum of the two less their overlap (docs/e2e.md).
.PHONY: test checks live
test: ## Every test (CI runs this): lint, vulnerabilities, unit, XRD, schemas, upstream validation, fuzzing, render, end-to-end, playground, packages.
	@hack/test.sh

# The tools come before the module tests so that tests which need kube-apiserver (the
# provider's) or promtool run rather than skip.
checks: lint tools-controlplane tools-promtool test-modules cli-cgo fuzz test-render ## make test's computing lane: lint, vulnerabilities, every module's tests, kubectl-scs built with cgo, fuzzing, render.

# OpenTofu, 4-6 min cold, is first needed by TestTerraform, and Flux, 6-10 min cold, by
# TestAddons (workload_addons_test.go: the last test of the legacy pass), both late in the
# legacy pass: the live lane builds them beside the e2e instead of before it, and the tests
# wait for that build (SCS_KAAS_E2E_BUILD_TOOLS=1: build.sh's lock) rather than skip. Niced
# by 5: the control planes under test come first, the checks lane (nice 10) after it.
live: tools-controlplane python-deps package ## make test's live lane: the end-to-end passes and the playground, on local control planes.
	@nice -n 5 hack/tools/build.sh opentofu flux >/dev/null & tofu=$$!; \
	rc=0; SCS_KAAS_E2E_BUILD_TOOLS=1 $(MAKE) --no-print-directory e2e E2E_TOOLS=tools-controlplane || rc=$$?; \
	wait $$tofu || rc=1; \
	[ $$rc = 0 ] || exit $$rc; \
	$(MAKE) --no-print-directory test-playground

# Every module the tools and the tests need, fetched at once: make test starts with this,
# beside the first builds, so that the builds find their modules instead of waiting on the
# network one after the other. A failure only warns; go fetches what is missing later.
.PHONY: download
download: ## Fetch the modules of every tool not yet built and of every module of the repository, at once.
	@hack/tools/build.sh --download all & \
	for m in $(MODULES); do (cd $$m && go mod download || echo "warning: go mod download failed in $$m") & done; \
	wait

.PHONY: test-modules
test-modules: ## Tests of every Go module (XRD freshness and admission rules, Gardener's validation).
	@for m in $(MODULES); do echo "go test ($$m)"; (cd $$m && go test -count=1 ./...); done

# Each fuzz target runs a number of inputs (FUZZ_RUNFUNCTION, FUZZ_MODEL; 10-30 s each on
# two cores). Counts, not durations: with a duration, Go 1.26's fuzzing coordinator can fail
# at the deadline with a bare "context deadline exceeded" and no failing input
# (go.dev/issue/75804, fixed in Go 1.27), which is a flaky CI. An input that breaks a
# property is written to the package's testdata/fuzz/<target>/ and fails this target; commit
# it: go test replays it as a regression seed from then on (docs/reliability.md). A failure
# also prints the input, which CI's clone would otherwise take with it (it holds a spec and
# the fuzzer's mutations, no secrets).
FUZZ_RUNFUNCTION ?= 10000x
FUZZ_MODEL ?= 150000x
.PHONY: fuzz
fuzz: ## Fuzz RunFunction (FUZZ_RUNFUNCTION inputs) and the model's defaulting and validation (FUZZ_MODEL).
	go test -run='^$$' -fuzz='^FuzzRunFunction$$' -fuzztime=$(FUZZ_RUNFUNCTION) -fuzzminimizetime=5s ./functions/function-scs-kaas || { $(MAKE) -s fuzz-inputs; exit 1; }
	go test -run='^$$' -fuzz='^FuzzDefaultAndValidate$$' -fuzztime=$(FUZZ_MODEL) -fuzzminimizetime=5s ./model || { $(MAKE) -s fuzz-inputs; exit 1; }

.PHONY: fuzz-inputs
fuzz-inputs: ## Print the failing inputs the fuzzers wrote and git does not track yet.
	@for f in $$(git ls-files --others --exclude-standard -- '*/testdata/fuzz/*'); do echo "== $$f"; cat "$$f"; done

.PHONY: bench
bench: ## The function side by side with a no-op, go-templating and patch-and-transform over gRPC (needs ../shared/tools/fnbench); prints the table of docs/performance.md.
	@mkdir -p $(OUTPUT)/bench
	PEERS="noop gotmpl pat scs" hack/bench.sh >$(OUTPUT)/bench/results.txt
	go run ./hack/benchtable <$(OUTPUT)/bench/results.txt

.PHONY: test-render
test-render: ## Render tests through the real crossplane CLI (builds the CLI and core on first use).
	hack/render.sh test

##@ Run

.PHONY: render
render: ## Render every example with the crossplane CLI, validate offline, print the native objects.
	hack/render.sh render

include hack/tools.mk
include hack/controlplane.mk
include hack/provider.mk

##@ Playground and end-to-end tests (docs/e2e.md)

# What the playground installs into the Crossplane cluster, and the claims make demo applies:
# one or two per backend. --backends runs Cluster API with the scs2 ClusterClasses and serves
# the Cluster Stack operator's and provider-openstack's CRDs; the ClusterStackReleases get the
# status the operator would write.
# DEMO_FLAVOUR picks the API: namespaced (Crossplane v2 SCSCluster composites, the default) or
# legacy (SCSCluster claims of XSCSCluster composites). The example files serve both: the
# namespaced composite and the claim are the same kind.
DEMO_FLAVOUR ?= namespaced
# The project is installed as docs/install.md has a platform install it air-gapped: the
# packages of make package pushed to a local registry, the flavour's Configuration from
# examples/install, and beside it what a Configuration cannot carry (the admission policy,
# Crossplane's RBAC) and the example environments.
DEMO_CONFIGURATION := $(if $(filter legacy,$(DEMO_FLAVOUR)),configuration-claims.yaml,configuration.yaml)
DEMO_MANIFESTS := examples/environments,package/deletion-protection.yaml,package/rbac.yaml
DEMO_WITH_STATUS := examples/render/clusterstack/required/releases.yaml
DEMO_CLAIMS := examples/claims/gardener-minimal.yaml,examples/claims/gardener-production.yaml,examples/claims/clusterstack-dev.yaml,examples/claims/magnum-dev.yaml
E2E_TIMEOUT ?= 40m

.PHONY: demo down simulate e2e

demo: build tools-controlplane tools-flux playground-bin package ## Start the playground, install the project from its packages, apply the example clusters, show what they became; runs until make down (DEMO_FLAVOUR=legacy: claims).
	$(PLAYGROUND_BIN) demo --flavour=$(DEMO_FLAVOUR) --run-dir=$(PLAYGROUND_RUN_DIR) --function-binary=$(FUNCTION) \
		--configuration=$(DEMO_CONFIGURATION) --manifest=$(DEMO_MANIFESTS) --project=team1 --namespace=team1,kaas-team1 --kubeconfig-provider \
		--backends --with-status=$(DEMO_WITH_STATUS) --conformance-backends --addons \
		--claims=$(DEMO_CLAIMS)

down: playground-down ## Stop the playground: everything make demo started, nothing else.

# make conformance runs the conformance kit (docs/conformance.md) against the running
# playground, once per backend, as a platform admin of the playground would: the example
# environments, namespace team1. The playground's backend simulator plays the backends of
# the kit's clusters; one API server (Kubernetes 1.34) stands in for the clusters of a
# backend, so the kit tests 1.34 and upgrades from 1.33. Reports: _output/conformance.
CONFORMANCE_ENVIRONMENTS ?= gardener-regionone clusterstack-regionone magnum-regionone
CONFORMANCE_NAMESPACE ?= team1
CONFORMANCE_ARGS ?= --minors 1.34 --timeout 5m
CONFORMANCE_REPORTS ?= $(OUTPUT)/conformance
KUBECTL_SCS := $(BIN)/kubectl-scs
.PHONY: conformance
conformance: ## Run kubectl scs conformance against the playground of make demo on every backend; reports in _output/conformance.
	@mkdir -p $(CONFORMANCE_REPORTS)
	cd clients/kubectl-scs && go build -o $(KUBECTL_SCS) .
	@rc=0; for e in $(CONFORMANCE_ENVIRONMENTS); do \
		echo "$$ kubectl scs conformance -n $(CONFORMANCE_NAMESPACE) --environment $$e $(CONFORMANCE_ARGS) --report $(CONFORMANCE_REPORTS)/$$e.yaml"; \
		$(KUBECTL_SCS) conformance --kubeconfig $(PLAYGROUND_RUN_DIR)/crossplane/kubeconfig -n $(CONFORMANCE_NAMESPACE) \
			--environment $$e $(CONFORMANCE_ARGS) --report $(CONFORMANCE_REPORTS)/$$e.yaml || rc=1; \
	done; exit $$rc

# make simulate CLAIM=dev [STATE=healthy|progressing|quota-exceeded] [NAMESPACE=team1]: a Shoot
# gets the state once; a Cluster Stacks or Magnum cluster is played healthy until Ready.
CLAIM ?= dev
STATE ?= healthy
NAMESPACE ?= team1
simulate: playground-bin ## Play CLAIM's backend in the playground: the status Gardener would write on its Shoot (STATE=healthy|progressing|quota-exceeded), or a healthy Cluster Stacks or Magnum backend until it is Ready.
	$(PLAYGROUND_BIN) simulate --run-dir=$(PLAYGROUND_RUN_DIR) --namespace=$(NAMESPACE) --claim=$(CLAIM) --state=$(STATE)

# The tests build the function (and provider-gardener-kubeconfig) into their own run
# directory under _output/e2e, kept when a test fails. -p=1: one control plane at a time.
# One control plane serves one flavour of the API (both own SCSCluster), so the package runs
# once per flavour: the legacy claims (and the control plane's smoke test), the namespaced v2
# composites (and the clients again, on that flavour), and the migration from the first to
# the second (docs/migration.md). TestRecovery destroys and rebuilds its control plane, so
# it has a pass of its own on each of the first two (docs/recovery.md).
E2E_GO_TEST = SCS_KAAS_E2E=1 go test -count=1 -p=1 -timeout=$(E2E_TIMEOUT) -v
E2E_TOOLS ?= tools-controlplane tools-opentofu tools-flux
e2e: $(E2E_TOOLS) tools-cosign python-deps package ## End-to-end tests on live local control planes: legacy, namespaced (v2) and migration.
	cd test/e2e && $(E2E_GO_TEST) -skip '^Test(Namespaced|Migration|Recovery)' . ./controlplane/ ./oidcissuer/
	cd test/e2e && $(E2E_GO_TEST) -run '^TestRecovery$$' .
	cd test/e2e && SCS_KAAS_E2E_FLAVOUR=namespaced $(E2E_GO_TEST) -run '^Test(Namespaced|CLI|Terraform|Addons)' .
	cd test/e2e && SCS_KAAS_E2E_FLAVOUR=namespaced $(E2E_GO_TEST) -run '^TestRecovery$$' .
	cd test/e2e && SCS_KAAS_E2E_FLAVOUR=migration $(E2E_GO_TEST) -run '^TestMigration' .

# The playground's own test: make demo, make simulate per example cluster, make conformance
# and make down, run through make from a fresh run directory (test/e2e/cmd/playground).
.PHONY: test-playground
test-playground: tools-controlplane ## The README's first commands as a newcomer runs them: demo, simulate, conformance, down, and nothing left behind.
	cd test/e2e && SCS_KAAS_PLAYGROUND_TEST=1 go test -count=1 -timeout=45m -v -run '^TestPlayground$$' ./cmd/playground/

# make scale SCALE=50,150,300: the claim counts one control plane grows to, step by step;
# ADDONS=1: every cluster also gets the two example add-ons from Flux's real controllers.
SCALE ?= 50,150,300
ADDONS ?=
.PHONY: scale
scale: tools-controlplane tools-flux package ## Grow one control plane to SCALE claims over three backends and measure each step (docs/scale.md; ADDONS=1 with add-ons); not part of make test.
	cd test/e2e && SCS_KAAS_E2E=1 SCS_KAAS_E2E_SCALE=$(SCALE) SCS_KAAS_E2E_SCALE_ADDONS=$(ADDONS) go test -count=1 -p=1 -timeout=180m -v -run '^TestScale$$' .

.PHONY: faults
faults: tools-controlplane package ## Every fault case on a live control plane, the slow ones included (docs/reliability.md); make e2e runs the quick ones.
	cd test/e2e && SCS_KAAS_E2E_FAULTS=all $(E2E_GO_TEST) -run '^TestFaults$$' .

# The distribution's python3 with the kubernetes and yaml packages, for the SCS compliance
# suite's plugin (contrib/scs-compliance-plugin) and its end-to-end test.
.PHONY: python-deps
python-deps:
	@hack/python-deps.sh

.PHONY: clean
clean: ## Remove _output (the tool cache stays).
	rm -rf $(OUTPUT)
