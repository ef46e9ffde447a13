"""Where the Kubernetes API listens: what DescribeCluster's `endpoint`, discovery and the admin dump tell clients.

server.py records the listener here when it starts; readers need not import the server (and its app) for it."""

HOST = "127.0.0.1"
listener: dict = {}  # {"server", "thread", "port", "host"} while running


def port() -> int | None:
    return listener.get("port")


def endpoint_for(cluster_name: str) -> str | None:
    """The cluster's Kubernetes API URL (None while the listener is not running)."""
    return f"https://{HOST}:{listener['port']}/clusters/{cluster_name}" if listener.get("port") else None
