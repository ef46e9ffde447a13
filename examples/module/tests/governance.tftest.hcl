# `terraform test` for this module, against the account the provider is configured for (the local sandbox in
# `make test`; docs/guides/testing-modules.md). Plan runs judge every governance rule against the live account and
# create nothing; the apply run creates both teams and `terraform test` destroys them at the end.

run "both_teams_plan_clean" {
  command = plan

  assert {
    condition     = local.checks_not_passed == []
    error_message = "A good team plans with every rule passed: ${join(", ", local.checks_not_passed)}"
  }

  assert {
    condition     = module.production.contract.review_status == "current" && module.research.contract.review_status == "current"
    error_message = "Both contracts are within their review interval."
  }
}

# CLU-5 is a warning: the cluster's EKS API endpoint is public to a range the contracts do not approve. The plan goes
# on, each contract's findings name the rule, and the module's check fails.
run "an_unapproved_public_endpoint_fails_clu_5" {
  command = plan

  variables {
    approved_public_cidr = "198.51.100.0/24"
  }

  expect_failures = [check.teams_governed]

  assert {
    condition     = contains(module.production.contract.checks_not_passed, "CLU-5: warning")
    error_message = "The contract names CLU-5: ${join(", ", module.production.contract.checks_not_passed)}"
  }
}

run "both_teams_apply" {
  command = apply

  assert {
    condition     = module.production.namespace == "hyperpod-ns-production" && module.research.namespace == "hyperpod-ns-research"
    error_message = "Each tenant owns its hyperpod-ns-<team> namespace."
  }

  assert {
    condition     = module.research.connection_id != null && module.production.connection_id != null
    error_message = "Both projects are bound to the cluster (a Unified Studio HyperPod connection each)."
  }
}
