"""The stream server as deployed, started in a test's stack (``service.devstack``):
gunicorn on ``deploy/gunicorn-streams.conf.py`` with the stream server's application."""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from service.devstack import GUNICORN, Proc, Stack, wait_for

CONF = str(Path(__file__).resolve().parents[2] / "deploy" / "gunicorn-streams.conf.py")


def answers(url: str) -> bool:
    """Whether the server at ``url`` answers its health check."""
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def start_stream_server(stack: Stack, port: int, **extra_env: str) -> Proc:
    """The stream server on ``port`` (its bind set in ``extra_env`` or the stack's
    environment), once it answers and its worker is up."""
    server = stack.start_process(
        "streams", [GUNICORN, "-c", CONF, "service.streams:create_app()"], **extra_env
    )
    wait_for(
        lambda: answers(f"http://127.0.0.1:{port}") and bool(server.children()),
        time.monotonic() + 60,
        lambda: f"the stream server did not answer: {stack.logs()}",
        alive=stack.check_running,
    )
    return server
