"""``cardroom serve`` on its embedded default (:class:`Serve`)."""

from __future__ import annotations

import os
import time
from functools import partial
from pathlib import Path

import redis

from service.devstack.procs import CARDROOM, Proc, free_port, wait_for
from service.devstack.stack import healthy


class Serve:
    """``cardroom serve`` on its embedded default (no ``CARDROOM_REDIS_URL``): its own
    ``redis-server`` child on ``data_dir``, or the in-process fake Redis when
    ``redis-server`` is not on the ``PATH`` given in ``env``. Started again on the
    same port and data directory, as a player's restart would."""

    def __init__(self, data_dir: Path, log: Path, **env: str) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        base = {k: v for k, v in os.environ.items() if not k.startswith("CARDROOM_")}
        self.env = {"CARDROOM_BOT_DELAY_S": "0", **base, **env}
        args = [CARDROOM, "serve", "--port", str(self.port), "--data-dir", str(data_dir)]
        self.proc = Proc("serve", args, log, self.env)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout_s: float = 60) -> Serve:
        """Start and wait until it answers ``/healthz``."""
        import httpx  # a test extra: only the tests get here

        self.proc.start()
        with httpx.Client(timeout=2) as http:
            wait_for(
                partial(healthy, http, self.url),
                time.monotonic() + timeout_s,
                lambda: f"cardroom serve did not answer:\n{self.proc.log_tail(30)}",
                alive=self._alive,
            )
        return self

    def _alive(self) -> None:
        if not self.proc.running:
            raise RuntimeError(f"cardroom serve exited:\n{self.proc.log_tail(30)}")

    def stop(self) -> int | None:
        """SIGTERM, as a service manager or ``kill`` would; its exit status."""
        return self.proc.stop(30)

    def redis_pid(self) -> int:
        """The pid of its ``redis-server`` child."""
        (pid,) = self.proc.children()
        return pid

    def redis_client(self) -> redis.Redis:
        """A client of its Redis (through the data directory's ``redis.url``)."""
        url = (self.data_dir / "redis.url").read_text().strip()
        return redis.Redis.from_url(url, socket_timeout=10)

    def log_lines(self) -> list[str]:
        return self.proc.log.read_text(errors="replace").splitlines()
