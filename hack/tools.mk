# Pinned third-party tools (see hack/tools/README.md). Included from the
# top-level Makefile. Directories are computed without building (cheap);
# targets that run a tool depend on tools-<name> (or tools-all), which builds it
# into the cache on first use and is a no-op afterwards.

HACK_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
TOOLS_BUILD := $(HACK_DIR)/tools/build.sh

# Cache directories; override any of them to use binaries from elsewhere.
ifndef SCS_KAAS_TOOL_KUBERNETES
SCS_KAAS_TOOL_KUBERNETES := $(shell $(TOOLS_BUILD) --dir kubernetes)
endif
ifndef SCS_KAAS_TOOL_ETCD
SCS_KAAS_TOOL_ETCD := $(shell $(TOOLS_BUILD) --dir etcd)
endif
ifndef SCS_KAAS_TOOL_CROSSPLANE
SCS_KAAS_TOOL_CROSSPLANE := $(shell $(TOOLS_BUILD) --dir crossplane)
endif
ifndef SCS_KAAS_TOOL_CROSSPLANE_CLI
SCS_KAAS_TOOL_CROSSPLANE_CLI := $(shell $(TOOLS_BUILD) --dir crossplane-cli)
endif
ifndef SCS_KAAS_TOOL_PROVIDER_KUBERNETES
SCS_KAAS_TOOL_PROVIDER_KUBERNETES := $(shell $(TOOLS_BUILD) --dir provider-kubernetes)
endif
ifndef SCS_KAAS_TOOL_FUNCTION_GO_TEMPLATING
SCS_KAAS_TOOL_FUNCTION_GO_TEMPLATING := $(shell $(TOOLS_BUILD) --dir function-go-templating)
endif
ifndef SCS_KAAS_TOOL_CLUSTER_API
SCS_KAAS_TOOL_CLUSTER_API := $(shell $(TOOLS_BUILD) --dir cluster-api)
endif
ifndef SCS_KAAS_TOOL_CLUSTER_API_PROVIDER_OPENSTACK
SCS_KAAS_TOOL_CLUSTER_API_PROVIDER_OPENSTACK := $(shell $(TOOLS_BUILD) --dir cluster-api-provider-openstack)
endif
ifndef SCS_KAAS_TOOL_GARDENER_APISERVER
SCS_KAAS_TOOL_GARDENER_APISERVER := $(shell $(TOOLS_BUILD) --dir gardener-apiserver)
endif
ifndef SCS_KAAS_TOOL_FLUX
SCS_KAAS_TOOL_FLUX := $(shell $(TOOLS_BUILD) --dir flux)
endif
ifndef SCS_KAAS_TOOL_GOLANGCI_LINT
SCS_KAAS_TOOL_GOLANGCI_LINT := $(shell $(TOOLS_BUILD) --dir golangci-lint)
endif
ifndef SCS_KAAS_TOOL_GOVULNCHECK
SCS_KAAS_TOOL_GOVULNCHECK := $(shell $(TOOLS_BUILD) --dir govulncheck)
endif
ifndef SCS_KAAS_TOOL_PROMTOOL
SCS_KAAS_TOOL_PROMTOOL := $(shell $(TOOLS_BUILD) --dir promtool)
endif
ifndef SCS_KAAS_TOOL_OPENTOFU
SCS_KAAS_TOOL_OPENTOFU := $(shell $(TOOLS_BUILD) --dir opentofu)
endif
ifndef SCS_KAAS_TOOL_COSIGN
SCS_KAAS_TOOL_COSIGN := $(shell $(TOOLS_BUILD) --dir cosign)
endif
ifndef SCS_KAAS_TOOL_CYCLONEDX_GOMOD
SCS_KAAS_TOOL_CYCLONEDX_GOMOD := $(shell $(TOOLS_BUILD) --dir cyclonedx-gomod)
endif
# The control plane package (test/e2e/controlplane) reads these.
export SCS_KAAS_TOOL_KUBERNETES SCS_KAAS_TOOL_ETCD SCS_KAAS_TOOL_CROSSPLANE \
	SCS_KAAS_TOOL_CROSSPLANE_CLI SCS_KAAS_TOOL_PROVIDER_KUBERNETES SCS_KAAS_TOOL_FUNCTION_GO_TEMPLATING \
	SCS_KAAS_TOOL_CLUSTER_API SCS_KAAS_TOOL_CLUSTER_API_PROVIDER_OPENSTACK SCS_KAAS_TOOL_OPENTOFU \
	SCS_KAAS_TOOL_GARDENER_APISERVER SCS_KAAS_TOOL_PROMTOOL SCS_KAAS_TOOL_COSIGN SCS_KAAS_TOOL_FLUX

KUBECTL := $(SCS_KAAS_TOOL_KUBERNETES)/kubectl
KUBE_APISERVER := $(SCS_KAAS_TOOL_KUBERNETES)/kube-apiserver
ETCD := $(SCS_KAAS_TOOL_ETCD)/etcd
# Core binary: `crossplane core start|init`, and --crossplane-binary for render.
CROSSPLANE := $(SCS_KAAS_TOOL_CROSSPLANE)/crossplane
CROSSPLANE_CRDS := $(SCS_KAAS_TOOL_CROSSPLANE)/crds
# CLI: `crossplane-cli composition render ...`, `crossplane-cli resource validate ...`.
CROSSPLANE_CLI := $(SCS_KAAS_TOOL_CROSSPLANE_CLI)/crossplane-cli
PROVIDER_KUBERNETES := $(SCS_KAAS_TOOL_PROVIDER_KUBERNETES)/provider-kubernetes
PROVIDER_KUBERNETES_CRDS := $(SCS_KAAS_TOOL_PROVIDER_KUBERNETES)/crds
# Cluster API: capi-manager, kubeadm-control-plane-manager, kubeadm-bootstrap-manager;
# crds/{core,controlplane,bootstrap}/ and webhooks/{core,controlplane,bootstrap}.yaml.
CLUSTER_API_CRDS := $(SCS_KAAS_TOOL_CLUSTER_API)/crds
CLUSTER_API_WEBHOOKS := $(SCS_KAAS_TOOL_CLUSTER_API)/webhooks
CLUSTER_API_PROVIDER_OPENSTACK_CRDS := $(SCS_KAAS_TOOL_CLUSTER_API_PROVIDER_OPENSTACK)/crds
# OpenTofu's CLI, for the Terraform provider's acceptance tests (test/e2e/terraform_test.go).
TOFU := $(SCS_KAAS_TOOL_OPENTOFU)/tofu
# The linters of make lint (.golangci.yml).
GOLANGCI_LINT := $(SCS_KAAS_TOOL_GOLANGCI_LINT)/golangci-lint
# make lint's vulnerability gate: govulncheck, gendb and the database's entries (osv/).
GOVULNCHECK_DIR := $(SCS_KAAS_TOOL_GOVULNCHECK)

.PHONY: tools-all tools-list tools-kubernetes tools-etcd tools-crossplane tools-crossplane-cli tools-provider-kubernetes tools-function-go-templating \
	tools-cluster-api tools-cluster-api-provider-openstack tools-opentofu tools-golangci-lint tools-gardener-apiserver \
	tools-promtool tools-govulncheck tools-cosign tools-cyclonedx-gomod tools-flux tools-controlplane

# Build every pinned tool (first run 30-50 min on 2 cores, then a no-op). Named
# tools-all so that it does not clash with a top-level `tools` target.
tools-all: ## Build every pinned tool into the cache.
	@$(TOOLS_BUILD) all >/dev/null

tools-list: ## List the pinned tools.
	@$(TOOLS_BUILD) --list

tools-kubernetes tools-etcd tools-crossplane tools-crossplane-cli tools-provider-kubernetes tools-function-go-templating \
tools-cluster-api tools-cluster-api-provider-openstack tools-opentofu tools-golangci-lint tools-gardener-apiserver tools-promtool \
tools-govulncheck tools-cosign tools-cyclonedx-gomod tools-flux:
	@$(TOOLS_BUILD) $(patsubst tools-%,%,$@) >/dev/null

tools-controlplane: ## What the local control plane needs (not the CLI).
	@$(TOOLS_BUILD) kubernetes etcd crossplane provider-kubernetes function-go-templating \
		cluster-api cluster-api-provider-openstack gardener-apiserver >/dev/null
