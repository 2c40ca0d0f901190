# An SCS cluster with OpenTofu (or Terraform): a development cluster named tofu in the
# default environment of team1's namespace, its kubeconfig, and what the namespace may use.
# README.md says how to run it; docs/terraform.md describes every attribute.

terraform {
  required_providers {
    scs = {
      source = "sovereigncloudstack/scs"
    }
  }
}

# Talks to the Kubernetes API server that serves SCSClusters (Crossplane's cluster), with
# the kubeconfig in KUBECONFIG or ~/.kube/config.
provider "scs" {
  namespace = var.namespace
}

variable "namespace" {
  description = "The team's namespace."
  type        = string
  default     = "team1"
}

variable "kubernetes_version" {
  description = "The Kubernetes minor; upgrades go one minor at a time."
  type        = string
  default     = "1.34"
}

# What the namespace may build clusters with: the environments that admit it and what each
# offers.
data "scs_environments" "mine" {}

resource "scs_cluster" "tofu" {
  name    = "tofu"
  purpose = "development"

  kubernetes = {
    version = var.kubernetes_version
  }

  node_pools = [
    {
      name         = "default"
      machine_type = "SCS-4V-8"
      autoscaling  = { min = 1, max = 3 }
      labels       = { "node.scs.community/pool" = "default" }
    },
    {
      name         = "batch"
      machine_type = "SCS-8V-32"
      count        = 0
      taints       = [{ key = "workload", value = "batch", effect = "NoSchedule" }]
    },
  ]

  maintenance = {
    window = { begin = "220000+0000", end = "230000+0000" }
  }

  # Refuses tofu destroy while true (the admission policy says how to go on).
  deletion_protection = false

  # The Secret in the namespace that receives kubeconfig, endpoint and ca.crt; the
  # kubeconfig attribute is read from it.
  write_connection_secret_to_ref = {
    name = "tofu-kubeconfig"
  }

  timeouts = {
    create = "45m"
    update = "45m"
  }
}

output "environments" {
  value = data.scs_environments.mine.environments
}

output "phase" {
  value = scs_cluster.tofu.status.phase
}

output "api_server_url" {
  value = scs_cluster.tofu.status.api_server_url
}

output "kubernetes_version" {
  value = scs_cluster.tofu.status.kubernetes_version
}

output "next_minor" {
  description = "The minor the cluster may be upgraded to next."
  value       = scs_cluster.tofu.status.next_minor
}

output "kubeconfig" {
  value     = scs_cluster.tofu.kubeconfig
  sensitive = true
}
