"""Start the sandbox: `python -m sandbox [--host H] [--port P] [--seed DIR] [--fixture FILE] [--write-fixture FILE]`.

Serves moto 5.2.5 with our extensions and the /_sandbox/ admin API on one port,
and prints one ready line (with the real port, so `--port 0` picks a free one)
once the socket is bound and the seed is applied.

`--fixture FILE` seeds under that fixture's names and ids (sandbox/seed.py: the seed renamed; e.g.
fixtures/renamed.json); the sandbox then serves it at GET /_sandbox/fixture. `--write-fixture FILE` writes the
fixture of the seed (or of `--fixture`'s renamed seed) to FILE (`-` = stdout) and exits without serving.
"""
import argparse
import atexit
import json
import os
import shutil
import sys
from pathlib import Path

from werkzeug.serving import make_server

from . import install, kubernetes, seed
from .admin import AdminMiddleware
from .moto_adapter import MOTO_VERSION, moto_server_app, request_handler, set_default_account

ACCEPTANCE_DIR = Path(__file__).resolve().parent.parent


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m sandbox", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=int(os.environ.get("HYPERPOD_SANDBOX_PORT", "4599")),
                        help="0 = any free port (default: $HYPERPOD_SANDBOX_PORT or 4599)")
    parser.add_argument("--seed", default=str(seed.DEFAULT_SEED), help="seed directory (default: %(default)s)")
    parser.add_argument("--fixture", help="seed under this fixture's names and ids (relative paths also from "
                                          "acceptance-tests/, e.g. fixtures/renamed.json)")
    parser.add_argument("--write-fixture", metavar="FILE", help="write the seed's fixture to FILE ('-': stdout), exit")
    args = parser.parse_args(argv)

    try:
        seed_path, fixture = seed.prepare(_fixture_path(args.fixture), Path(args.seed))
    except (seed.SeedError, OSError, json.JSONDecodeError) as e:
        print(f"sandbox: cannot seed {'from ' + args.fixture if args.fixture else args.seed}: {e}", file=sys.stderr)
        return 2
    if seed_path != Path(args.seed):  # a renamed copy in a temporary directory
        atexit.register(shutil.rmtree, seed_path, True)
    if args.write_fixture:
        text = json.dumps(fixture, indent=2) + "\n"
        if args.write_fixture == "-":
            sys.stdout.write(text)
        else:
            Path(args.write_fixture).write_text(text)
        return 0
    # Requests signed with keys moto does not know (the harness's `testing`) land in moto's default account: make
    # that the fixture's capacity account.
    set_default_account(fixture["account_id"])

    install()
    k8s_port = kubernetes.start()  # before the seed, so seeded clusters know their Kubernetes endpoint
    app = AdminMiddleware(moto_server_app(), seed_path, fixture)
    server = make_server(args.host, args.port, app, threaded=True, request_handler=request_handler())
    os.environ.setdefault("MOTO_PORT", str(server.server_port))  # moto builds some URLs from it
    clusters = ", ".join(f"{name}={arn}" for name, arn in app.seeded["sagemaker"]["hyperpod_clusters"].items())
    print(f"hyperpod-sandbox ready on http://{args.host}:{server.server_port} "
          f"(moto {MOTO_VERSION}; fixture {fixture.get('name', '?')}; seeded {clusters}; "
          f"kubernetes https://127.0.0.1:{k8s_port})", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        kubernetes.stop()
    return 0


def _fixture_path(value):
    """--fixture as given, else relative to acceptance-tests/ (where HYPERPOD_FIXTURE's relative paths start)."""
    if value is None:
        return None
    path = Path(value)
    if path.is_absolute() or path.exists():
        return path
    return ACCEPTANCE_DIR / path

