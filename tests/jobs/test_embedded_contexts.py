"""Two embedded services in one process each run their own jobs against their
own store, whichever of them started last."""

from __future__ import annotations

import pytest

from service.config import load_settings
from service.engines import table
from service.games import GameService
from service.runtime import Runtime
from workers.context import context
from workers.embedded import EmbeddedWorker


def bot_game(worker: EmbeddedWorker) -> str:
    service: GameService = worker.context.service
    state = service.create_game("murlan", None, None)
    for n in range(4):
        service.take_seat(state.game_id, f"bot{n}", None, bot=True)
    return state.game_id


def test_each_worker_runs_its_jobs_in_its_own_context(caplog: pytest.LogCaptureFixture) -> None:
    settings = load_settings(redis_url=None, bot_delay_s=0)
    first = EmbeddedWorker(Runtime.from_settings(settings))
    second = EmbeddedWorker(Runtime.from_settings(settings))
    first.start()
    second.start()  # the process's context is now the second's
    try:
        assert context() is second.context
        first.stop()
        game_id = bot_game(first)
        seated = first.context.store.version(game_id)
        assert first.drain() > 0
        state: table.Table = first.context.service.load(game_id)
        # The bots played their turns through the first worker's store, and no
        # job failed looking for the game in the second's.
        assert state.version > seated + 4 and state.status in ("playing", "ended")
        assert second.context.store.version(game_id) == 0
        assert not [r for r in caplog.records if r.getMessage() == "job failed"]
    finally:
        first.stop()
        second.stop()


def test_drain_restores_the_callers_context() -> None:
    settings = load_settings(redis_url=None, bot_delay_s=0)
    worker = EmbeddedWorker(Runtime.from_settings(settings))
    other = EmbeddedWorker(Runtime.from_settings(settings))
    other.start()
    try:
        worker.drain()
        assert context() is other.context
    finally:
        other.stop()
