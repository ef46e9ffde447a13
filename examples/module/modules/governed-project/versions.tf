terraform {
  required_version = ">= 1.11"
  required_providers {
    hyperpod = {
      source  = "hyperpod-governance/hyperpod"
      version = ">= 0.3.0" # a lower bound only: the root module pins the exact version in its lock file
    }
  }
}
