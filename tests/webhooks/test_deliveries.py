"""Deliveries end to end: a game played over HTTP with subscribed seats, a
receiver on loopback, the embedded worker sending (no connection leaves loopback)."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from service.engines import table
from service.webhooks import payloads
from service.webhooks.receiver import verify_signature

from .conftest import Rig
from .support import Receiver, bearer, eventually, iter_strings, play_out, subscribe, take_seats

AZI = {"buy_in": 40, "ante": 10, "min_bet": 10}
EVERY = ["turn_started", "hand_ended", "game_ended", "seat_away"]


def new_game(rig: Rig, seats: int = 2) -> tuple[str, list[str]]:
    r = rig.client.post("/games", json={"game": "azi", "seats": seats, "options": AZI})
    game_id: str = r.get_json()["game_id"]
    return game_id, take_seats(rig.client, game_id, seats)


def turns_from_replay(rig: Rig, game_id: str) -> list[tuple[int, int]]:
    """Each time a seat (a person, not the bot) was to act, as ``(seat, version its
    turn began at)``, folding the stored events and looking at the end of each
    append (its events share their time)."""
    _, stored = rig.runtime.service().events(game_id)
    state: table.Table | None = None
    seen: set[tuple[int, int]] = set()
    for i, item in enumerate(stored):
        state = table.fold([item.event], state)
        if i + 1 < len(stored) and stored[i + 1].at_ms == item.at_ms:
            continue  # not the end of its append
        for seat, since in enumerate(state.turn_since):
            if since and not table.plays_automatically(state, seat):
                seen.add((seat, since))
    return sorted(seen, key=lambda t: t[1])


@pytest.fixture(scope="module")
def played(rig: Rig) -> Iterator[dict[str, Any]]:
    """One Azi game played to its end, both seats subscribed (seat 0 before the
    first deal, seat 1 once seated, which races the first deal)."""
    receiver = Receiver()
    r = rig.client.post("/games", json={"game": "azi", "seats": 2, "options": AZI})
    game_id = r.get_json()["game_id"]
    first = take_seats(rig.client, game_id, 1)
    hook0 = subscribe(rig.client, game_id, first[0], receiver.url("/seat0"), EVERY)
    tokens = first + take_seats(rig.client, game_id, 1)
    hook1 = subscribe(rig.client, game_id, tokens[1], receiver.url("/seat1"), ["turn_started"])
    play_out(rig.client, rig.wait, game_id, tokens, random.Random(7))
    turns = turns_from_replay(rig, game_id)
    least = len(turns) - 1 + 2  # seat 1's first turn may have raced; hand_ended, game_ended
    receiver.wait_for(lambda hits: len(hits) >= least, 20)

    def settled() -> bool:
        log = rig.client.get(
            f"/games/{game_id}/webhooks/{hook0['id']}/deliveries", headers=bearer(tokens[0])
        ).get_json()["items"]
        return all(d["status"] == "delivered" for d in log)

    eventually(settled, 20, "every delivery of seat 0 delivered")
    yield {
        "game_id": game_id,
        "tokens": tokens,
        "hooks": {0: hook0, 1: hook1},
        "receiver": receiver,
        "turns": turns,
    }
    receiver.close()


def test_turn_started_deliveries_match_the_turns_of_the_replay(played: dict[str, Any]) -> None:
    seen = played["receiver"].payloads()
    turns = played["turns"]
    got = Counter(p["seat"] for p in seen if p["event"] == "turn_started")
    want = Counter(seat for seat, _ in turns)
    assert want[0] > 1 and want[1] > 1
    assert got[0] == want[0]
    first_of_seat1 = next(since for seat, since in turns if seat == 1)
    raced = min(p["version"] for p in seen if p["seat"] == 1) > first_of_seat1
    assert got[1] == want[1] - (1 if raced else 0)
    paths = {h.path for h in played["receiver"].hits}
    assert paths == {"/seat0", "/seat1"}
    ids = [p["delivery_id"] for p in seen]
    assert len(ids) == len(set(ids))  # each once: nothing retried, nothing doubled


def test_the_other_events_reach_the_seat_that_asked(played: dict[str, Any]) -> None:
    seen = played["receiver"].payloads()
    seat1 = {p["event"] for p in seen if p["seat"] == 1}
    assert seat1 == {"turn_started"}
    seat0 = Counter(p["event"] for p in seen if p["seat"] == 0)
    assert seat0["game_ended"] == 1 and seat0["hand_ended"] >= 1


def test_every_delivery_is_signed_for_the_documented_verifier(
    rig: Rig, played: dict[str, Any]
) -> None:
    secrets = {0: played["hooks"][0]["secret"], 1: played["hooks"][1]["secret"]}
    for hit in played["receiver"].hits:
        seat = 0 if hit.path == "/seat0" else 1
        header = hit.headers["Cardroom-Signature"]
        assert re.fullmatch(r"t=\d+,v1=[0-9a-f]{64}", header)
        assert verify_signature(secrets[seat], header, hit.body)
        assert not verify_signature(secrets[1 - seat], header, hit.body)
        assert hit.headers["Cardroom-Delivery"].startswith(played["hooks"][seat]["id"] + ".")


def test_no_payload_holds_a_card_a_token_or_a_seed(rig: Rig, played: dict[str, Any]) -> None:
    game_id = played["game_id"]
    state = rig.runtime.service().load(game_id)
    assert state.server_seed is not None  # revealed by now, yet never sent
    _, stored = rig.runtime.service().events(game_id)
    cards = {
        s
        for item in stored
        for s in iter_strings(item.event.as_json() if hasattr(item.event, "as_json") else {})
        if re.fullmatch(r"(?:[2-9TJQKA][CDHS]|BJ|RJ)", s)
    }
    secrets = {*played["tokens"], state.server_seed, played["hooks"][0]["secret"]}
    for hit in played["receiver"].hits:
        text = hit.body.decode()
        payload = hit.body and __import__("json").loads(text)
        assert set(payload) == set(payloads.FIELDS)
        for value in iter_strings(payload):
            assert not re.fullmatch(r"(?:[2-9TJQKA][CDHS]|BJ|RJ)", value), value
            assert value not in cards
        for secret in secrets:
            assert secret not in text
            assert all(secret not in v for v in hit.headers.values())


def test_an_ended_games_subscriptions_end_with_it(rig: Rig, played: dict[str, Any]) -> None:
    game_id, tokens = played["game_id"], played["tokens"]
    listed = rig.client.get(f"/games/{game_id}/webhooks", headers=bearer(tokens[0])).get_json()
    assert [h["status"] for h in listed["items"]] == ["ended"]
    assert "secret" not in listed["items"][0]
    r = rig.client.post(
        f"/games/{game_id}/webhooks",
        json={"url": "http://127.0.0.1:9/x", "events": ["turn_started"]},
        headers=bearer(tokens[0]),
    )
    assert r.status_code == 409 and r.get_json()["type"].endswith("/webhooks-closed")
