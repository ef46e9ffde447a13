terraform {
  required_providers {
    hyperpod = {
      source = "hyperpod-governance/hyperpod"
    }
  }
}

# Credentials and region come from the AWS SDK's default chain (environment, profile, SSO, instance role);
# set only what differs. allowed_account_ids makes a plan with the wrong credentials fail instead of acting.
provider "hyperpod" {
  region              = "us-west-2"
  allowed_account_ids = ["123456789012"]

  assume_role {
    role_arn     = "arn:aws:iam::123456789012:role/hyperpod-governance"
    session_name = "terraform"
  }

  default_tags {
    tags = {
      "managed-by" = "terraform"
    }
  }
}
