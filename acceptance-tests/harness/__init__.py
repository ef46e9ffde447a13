"""Test harness for the provider's acceptance tests: a sandbox process and Terraform working dirs."""
from .provider import PROVIDER_SOURCE, provider_binary, provider_dir, require_provider
from .fixture import Fixture
from .sandbox import REGION, RealAws, Sandbox, real_aws
from .terraform import Diagnostic, PlanVerdict, Result, Running, Terraform, TerraformError, flat

__all__ = ["Diagnostic", "Fixture", "PROVIDER_SOURCE", "PlanVerdict", "REGION", "RealAws", "Result", "Running", "Sandbox",
           "Terraform", "TerraformError", "flat", "provider_binary", "provider_dir", "real_aws", "require_provider"]
