terraform {
  required_version = ">= 1.11"
  required_providers {
    hyperpod = {
      source = "hyperpod-governance/hyperpod"
    }
  }
}
