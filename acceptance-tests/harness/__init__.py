"""Test harness for the provider's acceptance tests: a sandbox process and Terraform working dirs."""
from .fixture import Fixture, current as current_fixture
from .guard import real_aws
from .provider import PROVIDER_SOURCE, provider_binary, provider_dir, require_provider
from .sandbox import REGION, RealAws, Sandbox
from .terraform import Diagnostic, PlanVerdict, Result, Running, Terraform, TerraformError, checklist, flat, statuses

__all__ = ["Diagnostic", "Fixture", "current_fixture", "PROVIDER_SOURCE", "PlanVerdict", "REGION", "RealAws", "Result",
           "Running", "Sandbox", "Terraform", "TerraformError", "checklist", "flat", "statuses", "provider_binary",
           "provider_dir", "real_aws", "require_provider"]
