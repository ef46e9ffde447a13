"""Start the sandbox: `python -m sandbox [--host H] [--port P] [--seed FILE]`.

Serves moto 5.2.5 with our extensions and the /_sandbox/ admin API on one port,
and prints one ready line (with the real port, so `--port 0` picks a free one)
once the socket is bound and the seed is applied.
"""
import argparse
import os

from . import install, kubernetes, seed


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m sandbox", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=int(os.environ.get("HYPERPOD_SANDBOX_PORT", "4599")),
                        help="0 = any free port (default: $HYPERPOD_SANDBOX_PORT or 4599)")
    parser.add_argument("--seed", default=str(seed.DEFAULT_SEED), help="seed directory (default: %(default)s)")
    args = parser.parse_args(argv)

    install()
    import moto
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
    from werkzeug.serving import make_server

    from .admin import AdminMiddleware

    k8s_port = kubernetes.start()  # before the seed, so seeded clusters know their Kubernetes endpoint
    app = AdminMiddleware(DomainDispatcherApplication(create_backend_app), args.seed)
    server = make_server(args.host, args.port, app, threaded=True, request_handler=MotoRequestHandler)
    os.environ.setdefault("MOTO_PORT", str(server.server_port))  # moto builds some URLs from it
    clusters = ", ".join(f"{name}={arn}" for name, arn in app.seeded["sagemaker"]["hyperpod_clusters"].items())
    print(f"hyperpod-sandbox ready on http://{args.host}:{server.server_port} "
          f"(moto {moto.__version__}; seeded {clusters}; kubernetes https://127.0.0.1:{k8s_port})", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        kubernetes.stop()
    return 0
