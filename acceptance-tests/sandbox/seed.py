"""Seed the sandbox like a real capacity account, straight into moto's backends.

The seed is a directory: `account.json` (account ids and region) plus one `<service>.json` per seeded service. Each
service module of the sandbox (`sandbox/<service>.py`) seeds its own part with `apply_seed(data, account) -> summary`;
services are seeded in SERVICE_ORDER, so later ones may refer to earlier ones (a HyperPod cluster to its EKS cluster,
a DataZone environment to its IAM role).
"""
import importlib
import json
from pathlib import Path

DEFAULT_SEED = Path(__file__).with_name("seed_data")
SERVICE_ORDER = ("iam", "kms", "eks", "sagemaker", "datazone", "ssm")


def load_account(path: Path = DEFAULT_SEED) -> dict:
    return json.loads((Path(path) / "account.json").read_text())


def apply(path: Path = DEFAULT_SEED) -> dict:
    """Create the seed's resources; returns a summary per service (names -> ARNs/ids) for logs and the admin API."""
    path = Path(path)
    account = load_account(path)
    summary = {"account_id": account["account_id"], "region": account["region"]}
    for service in SERVICE_ORDER:
        data_file = path / f"{service}.json"
        if data_file.exists():
            module = importlib.import_module(f"{__package__}.{service}")
            summary[service] = module.apply_seed(json.loads(data_file.read_text()), account)
    return summary
