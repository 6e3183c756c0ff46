"""The shipped nginx front (``deploy/nginx.conf``) on loopback, and slow clients to send it.

:func:`local_nginx_conf` is the deploy's file as shipped but for what only the
deployment knows: the upstreams' addresses (compose's ``api:8000`` and
``streams:8001`` become local ports), the ports it listens on (the public
one and the internal one for Prometheus, both on loopback), and where its
log and temporary files go (a private directory). Each of those lines must be
found exactly once, so a changed file fails here rather than being tested
half-way. :func:`start_front` runs it as a process of a
:class:`~service.devstack.stack.Stack`.

The slow clients are plain sockets: :func:`half_headers` sends half a request
header and stalls, :func:`half_bodies` sends whole headers and half a body;
:func:`closed_within` waits for the server to drop them. :func:`timed_views`
times ordinary requests meanwhile, each on a new connection, as another
client's would be.

The shipped config is read from the source checkout; HTTP goes through
``httpx`` (a test extra), imported where it is used.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import socket
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Final

from service.devstack.procs import ROOT, free_ports, wait_for
from service.devstack.stack import Stack

NGINX: Final = shutil.which("nginx") or "/usr/sbin/nginx"
NGINX_CONF: Final = ROOT / "deploy" / "nginx.conf"


def nginx_missing() -> str | None:
    """Why nginx cannot run here, or ``None``."""
    return None if os.access(NGINX, os.X_OK) else f"{NGINX} is not installed"


def local_nginx_conf(
    shipped: str, *, port: int, api: str, streams: str, directory: Path, internal_port: int
) -> str:
    """``shipped`` with local upstreams (``host:port``), loopback ports (the public
    ``port`` and the ``internal_port`` for metrics), and its access log and
    temporary files under ``directory``."""
    paths = "".join(
        f"    {name} {directory / folder};\n"
        for name, folder in (
            ("client_body_temp_path", "body"),
            ("proxy_temp_path", "proxy"),
            ("fastcgi_temp_path", "fastcgi"),
            ("uwsgi_temp_path", "uwsgi"),
            ("scgi_temp_path", "scgi"),
        )
    )
    changes = (
        ("server api:8000;", f"server {api};"),
        ("server streams:8001;", f"server {streams};"),
        ("listen 80;", f"listen 127.0.0.1:{port};"),
        ("listen 8081;", f"listen 127.0.0.1:{internal_port};"),
        ("http {\n", f"http {{\n    access_log {directory / 'access.log'};\n{paths}"),
    )
    for old, new in changes:
        found = shipped.count(old)
        if found != 1:
            raise ValueError(f"deploy/nginx.conf has {old!r} {found} times, not once")
        shipped = shipped.replace(old, new)
    return shipped


@dataclass(frozen=True)
class Front:
    url: str
    port: int
    directory: Path
    internal_url: str
    """The internal listener's base URL (``/metrics`` for Prometheus)."""


def start_front(stack: Stack, api_url: str, streams: str, timeout_s: float = 30) -> Front:
    """nginx with the shipped config in front of ``api_url`` (and ``streams``,
    ``host:port``, which need not run), as a process of ``stack``; answering."""
    directory = stack.directory / "nginx"
    directory.mkdir()
    for path in (stack.directory, directory):  # its workers run as nobody under root
        path.chmod(0o755)
    port, internal_port = free_ports(2)
    api = api_url.removeprefix("http://")
    conf = directory / "nginx.conf"
    text = NGINX_CONF.read_text()
    conf.write_text(
        local_nginx_conf(
            text,
            port=port,
            api=api,
            streams=streams,
            directory=directory,
            internal_port=internal_port,
        )
    )
    args = [NGINX, "-p", str(directory), "-c", str(conf), "-e", str(directory / "error.log")]
    stack.start_process("nginx", [*args, "-g", f"daemon off; pid {directory / 'nginx.pid'};"])
    url = f"http://127.0.0.1:{port}"
    wait_for(
        partial(_answers, url),
        time.monotonic() + timeout_s,
        lambda: f"nginx did not answer:\n{stack.logs()}\n{(directory / 'error.log').read_text()}",
        alive=stack.check_running,
    )
    return Front(url, port, directory, f"http://127.0.0.1:{internal_port}")


def _answers(url: str) -> bool:
    import httpx  # a test extra: only the tests and the benchmarks get here

    with contextlib.suppress(httpx.HTTPError):
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    return False


# -- slow clients -------------------------------------------------------------------------
def half_headers(port: int, count: int) -> list[socket.socket]:
    """``count`` connections that have sent half a request header, and stall."""
    return [
        _connect(port, b"GET /healthz HTTP/1.1\r\nHost: front\r\nX-Slow: ") for _ in range(count)
    ]


def half_bodies(port: int, count: int, path: str = "/games") -> list[socket.socket]:
    """``count`` connections that have sent a whole header announcing 100 bytes of
    a JSON body to create a game, and 11 of them, and stall."""
    head = (
        f"POST {path} HTTP/1.1\r\nHost: front\r\nContent-Type: application/json\r\n"
        "Content-Length: 100\r\n\r\n"
    )
    return [_connect(port, head.encode() + b'{"game": "m') for _ in range(count)]


def _connect(port: int, sent: bytes) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(sent)
    return sock


def closed_within(
    socks: list[socket.socket], timeout_s: float, since: float | None = None
) -> list[float]:
    """Seconds from ``since`` (a ``time.monotonic()``, default now) until the server
    closed each of ``socks`` (whatever it sent first), waiting at most ``timeout_s``
    from now; ``inf`` for one still open then. Every socket is closed on return."""
    start = time.monotonic() if since is None else since
    deadline = time.monotonic() + timeout_s
    closed = [float("inf")] * len(socks)
    with selectors.DefaultSelector() as sel:
        for i, sock in enumerate(socks):
            sock.setblocking(False)
            sel.register(sock, selectors.EVENT_READ, i)
        while sel.get_map() and (left := deadline - time.monotonic()) > 0:
            for key, _ in sel.select(left):
                i = key.data
                try:
                    data = socks[i].recv(65536)
                except BlockingIOError:
                    continue
                except OSError:  # reset: reset_timedout_connection
                    data = b""
                if not data:
                    closed[i] = time.monotonic() - start
                    sel.unregister(socks[i])
    for sock in socks:
        sock.close()
    return closed


def timed_views(url: str, paths: list[str], timeout_s: float) -> list[tuple[int | None, float]]:
    """``(status, seconds)`` of a GET of each path, one after the other, each on a
    new connection; ``None`` for one that failed or timed out."""
    import httpx  # a test extra: only the tests and the benchmarks get here

    out: list[tuple[int | None, float]] = []
    fresh = httpx.Limits(max_keepalive_connections=0)
    with httpx.Client(base_url=url, timeout=timeout_s, limits=fresh) as http:
        for path in paths:
            start = time.perf_counter()
            status: int | None
            try:
                status = http.get(path).status_code
            except httpx.HTTPError:
                status = None
            out.append((status, time.perf_counter() - start))
    return out


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
