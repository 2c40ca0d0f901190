# provider-gardener-kubeconfig (providers/provider-gardener-kubeconfig): build, test and
# regenerate. Included from the top-level Makefile. Everything comes from the Go module
# proxy; only provider-test-apiserver needs the tool cache (kube-apiserver, etcd).

PROVIDER_HACK_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
PROVIDER_DIR := $(PROVIDER_HACK_DIR)/../providers/provider-gardener-kubeconfig
PROVIDER_GEN_DIR := $(PROVIDER_DIR)/hack/generate
PROVIDER_BIN := $(CURDIR)/_output/bin
PROVIDER_VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)

.PHONY: provider-build provider-test provider-test-apiserver provider-generate

provider-build: ## Build the provider into _output/bin.
	@mkdir -p $(PROVIDER_BIN)
	cd $(PROVIDER_DIR) && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$(PROVIDER_VERSION)" \
		-o $(PROVIDER_BIN)/provider-gardener-kubeconfig ./cmd/provider

# The API server test skips itself when kube-apiserver and etcd are not in the tool cache (it
# fails under CI=true), so this runs on a clean clone; provider-test-apiserver builds them first.
provider-test: ## gofmt, go vet and every test of the provider, and the generated files' freshness.
	@bad=$$(cd $(PROVIDER_DIR) && gofmt -l .); if [ -n "$$bad" ]; then echo "gofmt needed:"; echo "$$bad"; exit 1; fi
	cd $(PROVIDER_DIR) && go vet ./... && go test -count=1 ./...
	cd $(PROVIDER_GEN_DIR) && go vet ./... && go test -count=1 ./...

provider-test-apiserver: tools-kubernetes tools-etcd ## The provider's test against a real kube-apiserver (builds the tools on first use).
	cd $(PROVIDER_DIR) && go test -count=1 -v -run TestProviderAgainstARealAPIServer ./test/apiserver/

provider-generate: ## Regenerate the provider's DeepCopy methods, managed-resource method sets (angryjet) and CRDs from its Go types.
	@mkdir -p $(PROVIDER_BIN)
	cd $(PROVIDER_GEN_DIR) && go build -o $(PROVIDER_BIN)/provider-generate .
	$(PROVIDER_BIN)/provider-generate --root $(PROVIDER_DIR)
