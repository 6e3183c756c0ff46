"""A system step racing another: the seed may be gone because the racer revealed it."""

from __future__ import annotations

from typing import Any

import pytest

from service.config import load_settings
from service.engines import table
from service.games import GameService, MissingSecret
from service.runtime import Runtime
from service.store import EventStore, keys
from tests.testredis import client_of


def two_services() -> tuple[GameService, GameService]:
    """Two services (two API processes or workers) over one embedded store."""
    runtime = Runtime.from_settings(load_settings(redis_url=None))

    def nothing(game_id: str, version: int) -> None:
        return None

    return (
        GameService(runtime, EventStore(runtime.redis), nothing),
        GameService(runtime, EventStore(runtime.redis), nothing),
    )


def seated_but_not_dealt(svc: GameService, monkeypatch: pytest.MonkeyPatch) -> str:
    game_id = svc.create_game("murlan").game_id
    with monkeypatch.context() as m:
        m.setattr(svc, "advance", lambda game_id: 0)  # the deal is left pending
        for n in range(4):
            svc.take_seat(game_id, f"bot{n}", bot=True)
    return game_id


def test_a_step_whose_seed_a_racer_deleted_looks_again(monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = two_services()
    game_id = seated_but_not_dealt(first, monkeypatch)
    version = first.store.version(game_id)

    def racer_steps_first(game_id: str) -> Any:
        # the other caller takes the step and (as a reveal does) deletes the seed
        assert first.advance(game_id) == 1
        client_of(second.store).delete(keys.secret(game_id))
        return None

    monkeypatch.setattr(second.store, "get_secret", racer_steps_first)
    assert second.advance(game_id) == 0  # nothing left to do, and no error
    dealt = second.load(game_id)
    assert dealt.version > version and table.pending(dealt) is None


def test_a_step_with_no_seed_and_no_racer_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    first, _ = two_services()
    game_id = seated_but_not_dealt(first, monkeypatch)
    version = first.store.version(game_id)
    client_of(first.store).delete(keys.secret(game_id))
    with pytest.raises(MissingSecret, match=game_id):
        first.advance(game_id)
    assert first.store.version(game_id) == version
