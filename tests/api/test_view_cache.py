"""Views are rendered once per game, version and viewer, and never served stale."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from schemas.api import GAME_VIEW
from service.api import views
from service.games import GameService
from workers.embedded import EmbeddedWorker

from .helpers import Api
from .typed import untyped


def test_a_view_is_rendered_once_per_version_and_viewer(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    tab = api.table("murlan")
    rendered: list[int | None] = []
    real = views.full_view

    def counting(state, viewer, store=None):  # type: ignore[no-untyped-def]
        rendered.append(viewer)
        return real(state, viewer, store)

    monkeypatch.setattr(views, "full_view", counting)
    public = [api.view(tab.game_id) for _ in range(3)]
    seat0 = [api.view(tab.game_id, tab.tokens[0]) for _ in range(3)]
    assert public[0] == public[1] == public[2] and seat0[0] == seat0[2]
    assert rendered == [None, 0]
    assert "hand" in seat0[0] and "hand" not in public[0]

    seat = public[0]["to_act"][0]
    mine = api.view(tab.game_id, tab.tokens[seat])
    moved = api.move(tab.game_id, tab.tokens[seat], mine["legal_moves"][0])
    assert moved.status_code == 201
    after = api.view(tab.game_id)
    assert after["version"] == moved.get_json()["version"] > public[0]["version"]
    assert api.view(tab.game_id, tab.tokens[0])["version"] == after["version"]


def test_a_token_is_checked_before_a_cached_view_is_served(api: Api) -> None:
    tab = api.table("murlan")
    other = api.table("murlan")
    assert api.view(tab.game_id, tab.tokens[1])["version"] > 0  # now cached
    r = api.client.get(
        f"/games/{tab.game_id}", headers={"Authorization": f"Bearer {other.tokens[1]}"}
    )
    assert r.status_code == 403
    r = api.client.get("/games/nosuchgame", headers={"Authorization": f"Bearer {tab.tokens[1]}"})
    assert r.status_code == 404


def _strictly_equal(a: Any, b: Any) -> bool:
    """Equal JSON values of the same JSON types (60 is not 60.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_strictly_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_strictly_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _difference(a: Any, b: Any, at: str = "") -> str:
    """Where two JSON values first differ, for the assertion's message."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a.keys() | b.keys():
            if k not in a or k not in b:
                return f"{at}.{k}: {a.get(k, '<absent>')!r} / {b.get(k, '<absent>')!r}"
            if not _strictly_equal(a[k], b[k]):
                return _difference(a[k], b[k], f"{at}.{k}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if not _strictly_equal(x, y):
                return _difference(x, y, f"{at}[{i}]")
    return f"{at}: {a!r} / {b!r}"


@pytest.mark.parametrize(
    ("game", "seats", "limit"), [("murlan", None, 60), ("hazari", None, None), ("azi", 3, 45.5)]
)
def test_a_view_is_written_as_the_schema_reads_it(
    service: GameService, game: str, seats: int | None, limit: float | None
) -> None:
    """A view is written as the fold built it, without the model (see
    :func:`service.api.views.render`): on every state of whole games played
    at random, for the public and every seat, it reads as the
    :class:`schemas.api.GameView` model writes it, field for field and type
    for type."""
    rng = random.Random(game)
    worker = EmbeddedWorker(service.runtime)
    checked = 0
    while checked < 300:  # table after table
        created = service.create_game(game, {"turn_timeout_s": limit}, seats)
        game_id = created.game_id
        for n in range(created.seat_count):
            service.take_seat(game_id, f"Spieler {n} ✓", None, bot=n == 1)
        for _ in range(150):
            worker.drain()
            state = service.load(game_id)
            for viewer in (None, *range(state.seat_count)):
                fast = json.loads(views.render(state, viewer, service))
                model = json.loads(views.validated(state, viewer, service))
                assert _strictly_equal(fast, model), (viewer, _difference(fast, model))
                assert not untyped(GAME_VIEW.validate_python(fast)), viewer
                checked += 1
            to_act = sorted(state.engine.to_act(state.engine_state))
            if state.over or not to_act:
                break
            seat = rng.choice(to_act)
            move = rng.choice(state.engine.legal_moves(state.engine_state, seat))
            service.play_as(game_id, seat, move, state.version)
