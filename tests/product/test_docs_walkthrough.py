"""The curl walkthrough of docs/api.md, run as written against a live server."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CARDROOM = str(Path(sys.executable).with_name("cardroom"))

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_ready(url: str, proc: subprocess.Popen[bytes], deadline_s: float = 30) -> None:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.05)  # the server is starting; poll its readiness
    raise AssertionError("server did not become ready")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    env = {
        **os.environ,
        "CARDROOM_DATA_DIR": str(tmp_path / "data"),
        "CARDROOM_PORT": str(port),
        "CARDROOM_BOT_DELAY_S": "0",
        "CARDROOM_RATE_LIMIT": "100000/minute",
    }
    env.pop("CARDROOM_REDIS_URL", None)
    proc = subprocess.Popen(
        [CARDROOM, "serve"], env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url, proc)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


def walkthrough() -> str:
    text = (ROOT / "docs" / "api.md").read_text()
    section = text.split("## A walkthrough with curl", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    assert len(blocks) >= 8, "the walkthrough lost its steps"
    return "set -euo pipefail\n" + "\n".join(blocks)


def test_the_api_walkthrough_works_as_written(served: str) -> None:
    run = subprocess.run(
        ["bash", "-c", walkthrough()],
        env={**os.environ, "BASE": served},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    out = run.stdout
    assert '"status": "ended"' in out
    assert '"verified": true' in out and '"commitment_ok": true' in out
    assert '"format": "cardroom-replay-v1"' in out and '"complete": true' in out
    assert '"status": 409' in out  # the stale retry without a key, as the text says


def test_the_retry_safe_creation_example_works_as_written(served: str) -> None:
    """docs/api.md's example of a keyed POST /games: a replay, then a 422."""
    text = (ROOT / "docs" / "api.md").read_text()
    section = text.split("## Opening a table retry-safely", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```sh\n(.*?)```", section, re.S)
    run = subprocess.run(
        ["bash", "-c", "set -euo pipefail\n" + block],
        env={**os.environ, "BASE": served},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    out = run.stdout
    assert '"status": "seating"' in out
    assert re.search(r"^HTTP/\S+ 201", out, re.M), out
    assert re.search(r"^idempotent-replayed: true", out, re.M | re.I), out
    assert '"status": 422' in out and "/idempotency-key-reused" in out
    assert '"field": "idempotency_key"' in out
