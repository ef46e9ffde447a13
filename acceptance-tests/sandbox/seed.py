"""Seed the sandbox like a real capacity account (from seed.json), straight into moto's backends."""
import json
from pathlib import Path

from moto.eks.models import eks_backends
from moto.sagemaker.models import sagemaker_backends

from . import sagemaker

DEFAULT_SEED = Path(__file__).with_name("seed.json")


def apply(path: Path = DEFAULT_SEED) -> dict:
    """Create the seed's resources; returns a summary (name -> ARN) for logs and the admin API."""
    seed = json.loads(Path(path).read_text())
    account, region = seed["account_id"], seed["region"]
    eks = eks_backends[account][region]
    for c in seed.get("eks_clusters", []):
        eks.create_cluster(name=c["name"], role_arn=c["roleArn"], resources_vpc_config=c["resourcesVpcConfig"],
                           version=c.get("version"), tags=c.get("tags"))
    sm = sagemaker_backends[account][region]
    hyperpod = {}
    for c in seed.get("hyperpod_clusters", []):
        params = {k: v for k, v in c.items() if k != "ClusterId"}
        hyperpod[c["ClusterName"]] = sagemaker.create_hyperpod_cluster(sm, params, cluster_id=c["ClusterId"]).arn
    return {"account_id": account, "region": region, "eks_clusters": [c["name"] for c in seed.get("eks_clusters", [])],
            "hyperpod_clusters": hyperpod}
