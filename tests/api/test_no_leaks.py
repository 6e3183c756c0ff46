"""Random complete games of every game, played only through HTTP.

Every response a seat receives is scanned: no token, no unrevealed server
seed, and nowhere a card the public does not see unless that card was the
seat's own in that deal (compared path by path with the public response at
the same version, against the true hands folded from the store). System
steps are taken by calling ``GameService.advance`` between moves, as the
workers would.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from typing import Any

import pytest

from .helpers import Api, Scanner, Truth, bearer, ndjson

Accepted = list[tuple[int, list[dict[str, Any]]]]
Policy = Callable[[list[dict[str, Any]], random.Random], dict[str, Any]]


def any_legal(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    return rng.choice(legal)


def longest_play(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """Murlan: a random play among the longest (a match of ~800 moves, not ~1,100)."""
    plays = [m for m in legal if m["action"] == "play"]
    if not plays:
        return rng.choice(legal)
    most = max(len(m["cards"]) for m in plays)
    return rng.choice([m for m in plays if len(m["cards"]) == most])


def full_scan(
    api: Api, scan: Scanner, seats: int, after: int = 0, accepted: Accepted | None = None
) -> int:
    """Every seat's view and events after ``after`` against the public ones, right
    now, and the events of the moves ``accepted`` since; returns the version scanned."""
    gid = scan.tab.game_id
    public_r = api.client.get(f"/games/{gid}")
    scan.text(public_r.data)
    public_events = api.events(gid, after=after)
    scan.public_events(public_events)
    by_version = {e["version"]: {k: v for k, v in e.items() if k != "at_ms"} for e in public_events}
    for seat, events in accepted or []:
        scan.events(seat, events, [by_version[e["version"]] for e in events])
    if accepted is not None:
        accepted.clear()
    for seat in range(seats):
        token = scan.tab.tokens[seat]
        r = api.client.get(f"/games/{gid}", headers=bearer(token))
        scan.text(r.data)
        scan.view(seat, r.get_json(), public_r.get_json())
        mine = api.events(gid, token, after=after)
        scan.text(repr(mine))
        scan.events(seat, mine, public_events)
    version: int = public_r.get_json()["version"]
    return version


def play_over_http(
    api: Api,
    game: str,
    options: dict[str, Any],
    seats: int | None,
    seed: int,
    policy: Policy = any_legal,
) -> Scanner:
    rng = random.Random(seed)
    tab = api.table(game, options, seats)
    gid, n = tab.game_id, len(tab.tokens)
    scan = Scanner(api, tab, Truth(api.service, gid))
    last_deal, scanned = -1, 0
    accepted: Accepted = []
    for moves in range(20_000):
        api.service.advance(gid)
        public_r = api.client.get(f"/games/{gid}")
        scan.text(public_r.data)
        public = public_r.get_json()
        if public["status"] == "ended":
            assert public["server_seed"] is not None
            break
        scan.truth.refresh()
        if scan.truth.deal_at[-1] != last_deal or moves % 50 == 0:
            last_deal = scan.truth.deal_at[-1]
            scanned = full_scan(api, scan, n, scanned, accepted)
        seat = rng.choice(public["to_act"])
        r = api.client.get(f"/games/{gid}", headers=bearer(tab.tokens[seat]))
        scan.text(r.data)
        view = r.get_json()
        scan.view(seat, view, public)
        assert view["legal_moves"], f"seat {seat} must act but lists no move"
        move = policy(view["legal_moves"], rng)
        r = api.move(gid, tab.tokens[seat], move, expected_version=view["version"])
        assert r.status_code == 201, r.get_json()
        scan.text(r.data)
        accepted.append((seat, r.get_json()["events"]))
    else:
        pytest.fail("the game did not end")
    # the end: everything is public, and the record checks out
    full_scan(api, scan, n, scanned, accepted)
    full_scan(api, scan, n)
    for seat in range(n):
        replay = api.client.get(f"/games/{gid}/replay", headers=bearer(tab.tokens[seat]))
        scan.text(replay.data)
        assert replay.get_json()["server_seed"] == public["server_seed"]
    verify = api.client.get(f"/games/{gid}/verify").get_json()
    assert verify["verified"] is True, verify
    return scan


@pytest.mark.parametrize("seed", [1, 2])
def test_hazari_games_leak_nothing(api: Api, seed: int, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    scan = play_over_http(api, "hazari", {"target": 360}, None, seed)
    assert scan.responses > 20
    assert api.service.store.get_secret(scan.tab.game_id) is None  # revealed: the event's copy
    revealed = api.view(scan.tab.game_id)["server_seed"]
    assert revealed
    for token in scan.tab.tokens:
        assert token not in caplog.text
    assert revealed not in caplog.text


@pytest.mark.parametrize(
    ("seed", "seats", "options"),
    [
        (1, 3, {"buy_in": 80, "ante": 10, "min_bet": 10, "cards": 4}),
        (2, 4, {"buy_in": 60, "ante": 10, "min_bet": 10}),
        (3, 6, {"buy_in": 50, "ante": 10, "min_bet": 10, "deck": 36}),
    ],
)
def test_azi_games_leak_nothing(api: Api, seed: int, seats: int, options: dict[str, Any]) -> None:
    scan = play_over_http(api, "azi", options, seats, seed)
    assert scan.responses > 20


def test_murlan_game_leaks_nothing(api: Api) -> None:
    scan = play_over_http(api, "murlan", {}, None, 7, longest_play)
    assert scan.responses > 500


def test_redacted_replay_and_stream_before_the_end(api: Api) -> None:
    """Mid-game, a seat's replay and stream hide the other hands and the seed."""
    tab = api.table("murlan")
    scan = Scanner(api, tab, Truth(api.service, tab.game_id))
    gid = tab.game_id
    public_replay = api.client.get(f"/games/{gid}/replay").get_json()
    assert public_replay["server_seed"] is None
    for seat in range(4):
        token = tab.tokens[seat]
        r = api.client.get(f"/games/{gid}/replay", headers=bearer(token))
        scan.text(r.data)
        replay = r.get_json()
        scan.diff(seat, replay, public_replay, replay["events"][-1]["version"])
        (deal,) = replay["deals"]
        assert set(deal["hands"][str(seat)]) == scan.truth.hand(seat, 6)
        assert all(c == "??" for s, h in deal["hands"].items() if s != str(seat) for c in h)
        # the stream of a game in progress: read its first lines only
        r = api.client.get(
            f"/games/{gid}/events?after=0",
            headers={"Accept": "application/x-ndjson", **bearer(token)},
            buffered=False,
        )
        lines = []
        for chunk in r.iter_encoded():
            lines.extend(ndjson(chunk))
            if len(lines) >= 8:
                break
        r.close()
        scan.text(repr(lines))
        assert lines[0]["kind"] == "view" and lines[0]["view"]["seat"] == seat
        assert [line["version"] for line in lines[1:7]] == [1, 2, 3, 4, 5, 6]


def test_the_scan_catches_leaks(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks above would fail if events went out unredacted or a view showed a hand."""
    from service.engines import table

    real_view = table.view
    monkeypatch.setattr(table, "redact", lambda state, event, viewer: event)
    with pytest.raises(AssertionError):
        play_over_http(api, "azi", {"buy_in": 40}, 3, 1)
    monkeypatch.undo()

    def spying_view(state: table.Table, viewer: int | None) -> dict[str, Any]:
        out = real_view(state, viewer)
        if viewer is not None:
            out["table"]["next_hand"] = real_view(state, (viewer + 1) % state.seat_count)["hand"]
        return out

    monkeypatch.setattr(table, "view", spying_view)
    with pytest.raises(AssertionError, match="sees"):
        play_over_http(api, "azi", {"buy_in": 40}, 3, 1)
