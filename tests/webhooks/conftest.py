"""The webhook tests' app: embedded (fakeredis, the in-process worker running),
short retries, an outbound side that resolves no name through DNS and fails the
test on any connection that would leave loopback."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.api import create_app
from service.config import load_settings
from service.runtime import Runtime
from service.store import EventStore
from workers.embedded import EmbeddedWorker

from .support import Guard, Receiver, guard_sockets, guarded_outbound

SETTINGS: dict[str, Any] = {
    "rate_limit": "100000/second",
    "bot_delay_s": 0,
    "webhook_retry_base_s": 0.2,
    "webhook_pause_after": 4,
    "webhook_lease_s": 5,
    "reconcile_interval_s": 0.5,
    "log_level": "WARNING",
}


@dataclass
class Rig:
    app: Flask
    client: FlaskClient
    runtime: Runtime
    guard: Guard
    worker: EmbeddedWorker

    @property
    def store(self) -> EventStore:
        return self.runtime.store

    def wait(self, game_id: str, version: int) -> None:
        """Block on the game's stream for its next event (up to a second)."""
        self.store.wait(game_id, version, 1000)


def make_rig(**overrides: Any) -> Iterator[Rig]:
    guard = Guard()
    settings = load_settings(**{**SETTINGS, **overrides})
    runtime = Runtime.from_settings(settings)
    runtime.outbound = guarded_outbound(guard)
    app = create_app(settings, runtime, {"TESTING": True, "RATELIMIT_ENABLED": False})
    worker = EmbeddedWorker(runtime, reconcile_every_s=0.5)
    with pytest.MonkeyPatch.context() as mp:
        guard_sockets(mp, guard)
        worker.start()
        try:
            yield Rig(app, app.test_client(), runtime, guard, worker)
        finally:
            worker.stop()
            runtime.outbound.close()
    assert guard.refused == [], f"connections that left loopback: {guard.refused}"


@pytest.fixture(scope="module")
def rig() -> Iterator[Rig]:
    yield from make_rig()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    made = Receiver()
    yield made
    made.close()
