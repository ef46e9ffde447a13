"""EKS in the sandbox: moto's clusters, seeded from seed_data/eks.json."""
from moto.eks.models import eks_backends


def apply_seed(data: dict, account: dict) -> dict:
    backend = eks_backends[account["account_id"]][account["region"]]
    for c in data.get("clusters", []):
        backend.create_cluster(name=c["name"], role_arn=c["roleArn"], resources_vpc_config=c["resourcesVpcConfig"],
                               version=c.get("version"), tags=c.get("tags"))
    return {"clusters": [c["name"] for c in data.get("clusters", [])]}
