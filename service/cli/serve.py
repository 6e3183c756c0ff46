"""``cardroom serve``: the API on werkzeug's server, with the embedded default
(a redis-server child on the data directory and an in-process worker) when
CARDROOM_REDIS_URL is unset."""

from __future__ import annotations

import argparse
import signal
import sys
from typing import TYPE_CHECKING, Any

from ..config import Settings, load_settings
from .common import cleanup, local_settings

if TYPE_CHECKING:
    from flask import Flask

    from workers.embedded import EmbeddedWorker

    from .common import Subparsers


def register(sub: Subparsers, data: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "serve",
        parents=[data],
        help="run the API (embedded default: a redis-server child on the data directory "
        "and an in-process worker)",
    )
    p.add_argument("--host", default=None)
    p.add_argument("--port", type=int, default=None)
    p.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    from ..api import create_app
    from ..runtime import Runtime

    overrides: dict[str, Any] = {}
    if args.host:
        overrides["host"] = args.host
    if args.port:
        overrides["port"] = args.port
    settings = load_settings(**overrides)
    # SIGTERM (a service manager, `kill`) stops as Ctrl-C does: Redis last, cleanly.
    signal.signal(signal.SIGTERM, _interrupt)
    in_process_worker = settings.redis_url is None
    if in_process_worker:
        settings = _embedded_store(args, settings)
    else:
        print(f"cardroom: event store at {settings.redis_url}; run `cardroom worker` beside this.")
    runtime = Runtime.from_settings(settings)
    app = create_app(settings, runtime)
    embedded = None
    if in_process_worker:
        from workers.embedded import EmbeddedWorker

        embedded = EmbeddedWorker(runtime)
        embedded.start()
    _serve_until_stopped(settings, app, embedded)
    return 0


def _embedded_store(args: argparse.Namespace, settings: Settings) -> Settings:
    """Embedded mode's store: a redis-server child on the data directory (stopped
    when the command returns), else, with no redis-server installed, memory."""
    from ..localredis import default_data_dir, redis_server_binary, serve_redis

    binary = redis_server_binary()
    if binary is None:
        print(
            "cardroom: embedded mode: redis-server is not installed, so games live in "
            "this process's memory and are LOST when it stops (install redis-server to "
            "keep them: see docs/operations.md); in-process worker."
        )
        return settings
    data_dir = default_data_dir(args.data_dir or settings.data_dir)
    local = cleanup.enter_context(serve_redis(data_dir, binary))
    settings = local_settings(settings, local.url, data_dir)
    print(
        f"cardroom: embedded mode: games kept in {data_dir} (redis-server pid "
        f"{local.pid}, append-only file); in-process worker."
    )
    return settings


def _serve_until_stopped(settings: Settings, app: Flask, embedded: EmbeddedWorker | None) -> None:
    """Serve ``app`` on the settings' host and port until interrupted, then stop
    the server and the in-process worker."""
    from werkzeug.serving import make_server

    server = make_server(
        settings.host, settings.port, app, threaded=True, request_handler=_quiet_request_handler()
    )
    url = f"http://{settings.host}:{server.server_port}"
    print(f"cardroom: serving on {url}  (web table: {url}/ , API docs: {url}/docs)")
    print(
        f"cardroom: next: curl -s -X POST {url}/games -H 'Content-Type: application/json' "
        '-d \'{"game": "murlan"}\''
    )
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        if embedded is not None:
            embedded.stop()
        print("cardroom: stopped.")
        sys.stdout.flush()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _quiet_request_handler() -> type:
    from werkzeug.serving import WSGIRequestHandler

    class Quiet(WSGIRequestHandler):
        """Werkzeug's handler without its own access log line: the app logs one
        JSON line per request (service/observe.py)."""

        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            pass

    return Quiet
