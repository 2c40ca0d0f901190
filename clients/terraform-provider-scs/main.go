// Command terraform-provider-scs is the Terraform / OpenTofu provider of the SCS cluster API
// (docs/terraform.md).
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/SovereignCloudStack/scs-kaas/clients/terraform-provider-scs/internal/provider"
)

// version is set at build time: -ldflags "-X main.version=v0.1.0".
var version = "dev"

// Address is the provider's source address. OpenTofu resolves "sovereigncloudstack/scs" in
// required_providers to registry.opentofu.org/sovereigncloudstack/scs, Terraform to
// registry.terraform.io/...; dev_overrides and local mirrors use the same names.
const address = "registry.opentofu.org/sovereigncloudstack/scs"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider for a debugger (prints TF_REATTACH_PROVIDERS)")
	flag.Parse()
	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: address,
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err)
	}
}
