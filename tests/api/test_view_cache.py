"""Views are rendered once per game, version and viewer, and never served stale."""

from __future__ import annotations

import pytest

from service.api import views

from .helpers import Api


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
