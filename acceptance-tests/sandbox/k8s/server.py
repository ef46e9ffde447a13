"""Start and stop the Kubernetes API's HTTPS listener (a daemon thread of the sandbox's process)."""
import os
import ssl
import tempfile
import threading
from pathlib import Path

from werkzeug.serving import make_server

from .app import KubernetesApp
from .endpoint import HOST, listener
from .tls import tls


def start(host: str = HOST, port: int | None = None) -> int:
    """Start the HTTPS listener in a daemon thread; returns its port (0/None = any free port)."""
    if port is None:
        port = int(os.environ.get("HYPERPOD_SANDBOX_K8S_PORT", "0"))
    material = tls()
    tmp = Path(tempfile.mkdtemp(prefix="hyperpod-sandbox-k8s-"))
    (tmp / "server.pem").write_bytes(material["cert_pem"] + material["ca_pem"])
    (tmp / "server.key").write_bytes(material["key_pem"])
    os.chmod(tmp / "server.key", 0o600)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(tmp / "server.pem", tmp / "server.key")
    server = make_server(host, port, KubernetesApp(), threaded=True, ssl_context=ctx)
    thread = threading.Thread(target=server.serve_forever, name="sandbox-kubernetes", daemon=True)
    thread.start()
    listener.update(server=server, thread=thread, port=server.server_port, host=host)
    return server.server_port


def stop() -> None:
    server = listener.pop("server", None)
    if server is not None:
        server.shutdown()
        server.server_close()
    listener.clear()
