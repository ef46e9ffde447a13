"""Test harness for the provider's acceptance tests: a sandbox process and Terraform working dirs."""
from .provider import PROVIDER_SOURCE, provider_binary, provider_dir, require_provider
from .sandbox import REGION, Sandbox
from .terraform import Result, Terraform, TerraformError, flat

__all__ = ["PROVIDER_SOURCE", "REGION", "Result", "Sandbox", "Terraform", "TerraformError", "flat",
           "provider_binary", "provider_dir", "require_provider"]
