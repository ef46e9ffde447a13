"""The sandbox's state of an EKS cluster, kept on moto's `Cluster` object, and the lock that guards it.

eks.py (the EKS API), the Kubernetes API (k8s/) and sagemaker.py (task governance's add-on check) all read it; it
lives here, below all three, so none of them imports another for it.  One lock guards the EKS sub-resources and the
Kubernetes objects, which live on the same clusters.
"""
import threading

from .moto_adapter import loaded_backends

LOCK = threading.RLock()
API_MODES = ("API", "API_AND_CONFIG_MAP")  # the authentication modes that use access entries


def state(cluster) -> dict:
    """The sandbox's per-cluster state (sub-resources, Kubernetes objects), kept on moto's Cluster."""
    st = cluster.__dict__.get("sandbox")
    if st is None:
        st = cluster.sandbox = {"access_entries": {}, "pod_identity": {}, "addons": {}, "updates": {},
                                "creator": None, "kubernetes": None}
        if not hasattr(cluster, "access_config"):
            cluster.access_config = {"authenticationMode": "CONFIG_MAP",
                                     "bootstrapClusterCreatorAdminPermissions": True}
    return st


def find_cluster(name: str | None = None, arn: str | None = None):
    """A cluster by name (any account/region; first match) or by ARN, across moto's EKS backends."""
    for backend in loaded_backends("eks"):
        for cluster in list(backend.clusters.values()):
            if (arn and cluster.arn == arn) or (name and cluster.name == name):
                state(cluster)
                return cluster
    return None
