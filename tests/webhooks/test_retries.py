"""Retries, the delivery log, redelivery and pausing, over HTTP with a receiver
on loopback that fails on purpose."""

from __future__ import annotations

import itertools
from typing import Any

from .conftest import Rig
from .support import Receiver, bearer, eventually, subscribe, take_seats

AZI = {"buy_in": 40, "ante": 10, "min_bet": 10}


def open_waiting(rig: Rig, receiver: Receiver) -> dict[str, Any]:
    """A dealt three-seat Azi table where seat 0 or 1 acts first, both subscribed
    to turn_started before the last seat was taken: exactly one delivery, as
    nobody moves. (The dealer is drawn: a table where seat 2 acts first is left.)"""
    for _ in range(20):
        r = rig.client.post("/games", json={"game": "azi", "seats": 3, "options": AZI})
        game_id = r.get_json()["game_id"]
        tokens = take_seats(rig.client, game_id, 2)
        hooks = [
            subscribe(rig.client, game_id, t, receiver.url(f"/s{i}")) for i, t in enumerate(tokens)
        ]
        tokens += take_seats(rig.client, game_id, 1)
        view = rig.client.get(f"/games/{game_id}").get_json()
        while not view["to_act"]:
            rig.wait(game_id, view["version"])
            view = rig.client.get(f"/games/{game_id}").get_json()
        if view["to_act"] != [2]:
            return {"game_id": game_id, "tokens": tokens, "hooks": hooks}
    raise AssertionError("seat 2 acted first at twenty tables")


def log_of(rig: Rig, game_id: str, token: str, hook: str) -> list[dict[str, Any]]:
    r = rig.client.get(f"/games/{game_id}/webhooks/{hook}/deliveries", headers=bearer(token))
    assert r.status_code == 200, r.get_json()
    items: list[dict[str, Any]] = r.get_json()["items"]
    return items


def the_delivery(rig: Rig, table: dict[str, Any], receiver: Receiver) -> tuple[int, dict[str, Any]]:
    """The seat whose turn it is (its path got the hits) and its one delivery."""
    seat = 0 if receiver.hits[0].path == "/s0" else 1
    hook = table["hooks"][seat]["id"]
    entries = log_of(rig, table["game_id"], table["tokens"][seat], hook)
    assert len(entries) == 1, entries
    return seat, entries[0]


def test_a_receiver_that_fails_twice_gets_three_attempts_at_growing_intervals(
    rig: Rig, receiver: Receiver
) -> None:
    receiver.answers.extend([500, 500])
    table = open_waiting(rig, receiver)
    hits = receiver.wait_for(lambda h: len(h) >= 3)
    seat = 0 if hits[0].path == "/s0" else 1
    hook = table["hooks"][seat]["id"]

    def done() -> bool:
        entries = log_of(rig, table["game_id"], table["tokens"][seat], hook)
        return entries[0]["status"] == "delivered"

    eventually(done, 10, "the third attempt logged")
    (entry,) = log_of(rig, table["game_id"], table["tokens"][seat], hook)
    attempts = entry["attempts"]
    assert [a["status"] for a in attempts] == [500, 500, 200]
    assert [a["reply"] for a in attempts] == ["nope", "nope", "ok"]
    assert all(a["ms"] >= 0 for a in attempts)
    waits = [a["retry_in_ms"] for a in attempts]
    assert waits[2] is None and 0 < waits[0] < waits[1]  # backoff: growing intervals
    base_ms = rig.runtime.settings.webhook_retry_base_s * 1000
    assert base_ms <= waits[0] <= 1.5 * base_ms and 2 * base_ms <= waits[1] <= 3 * base_ms
    for before, after in itertools.pairwise(attempts):
        assert after["at"] - before["at"] >= before["retry_in_ms"]  # never early
    ids = {h.headers["Cardroom-Delivery"] for h in hits}
    assert ids == {entry["id"]} and len({h.body for h in hits}) == 1  # one delivery, retried
    assert len(receiver.hits) == 3


def test_redelivery_keeps_the_delivery_id_and_body(rig: Rig, receiver: Receiver) -> None:
    table = open_waiting(rig, receiver)
    receiver.wait_for(lambda h: len(h) >= 1)
    seat, entry = the_delivery(rig, table, receiver)
    eventually(
        lambda: the_delivery(rig, table, receiver)[1]["status"] == "delivered", 10, "delivered"
    )
    path = f"/games/{table['game_id']}/webhooks/{entry['webhook_id']}/deliveries/{entry['id']}"
    r = rig.client.post(path + "/redeliver", headers=bearer(table["tokens"][seat]))
    assert r.status_code == 202, r.get_json()
    assert r.get_json()["id"] == entry["id"]
    hits = receiver.wait_for(lambda h: len(h) >= 2)
    assert hits[1].headers["Cardroom-Delivery"] == hits[0].headers["Cardroom-Delivery"]
    assert hits[1].headers["Cardroom-Delivery"] == entry["id"]
    assert hits[1].body == hits[0].body
    eventually(
        lambda: len(the_delivery(rig, table, receiver)[1]["attempts"]) == 2, 10, "two attempts"
    )
    # another seat's token cannot redeliver it, nor see the log
    other = bearer(table["tokens"][1 - seat])
    assert rig.client.post(path + "/redeliver", headers=other).status_code == 404
    r = rig.client.get(
        f"/games/{table['game_id']}/webhooks/{entry['webhook_id']}/deliveries", headers=other
    )
    assert r.status_code == 404 and r.get_json()["type"].endswith("/webhook-not-found")
    r = rig.client.post(
        f"/games/{table['game_id']}/webhooks/{entry['webhook_id']}/deliveries/nope/redeliver",
        headers=bearer(table["tokens"][seat]),
    )
    assert r.status_code == 404 and r.get_json()["type"].endswith("/delivery-not-found")


def test_a_receiver_that_keeps_failing_is_paused_with_a_reason(
    rig: Rig, receiver: Receiver
) -> None:
    receiver.answers.extend([503] * 50)
    table = open_waiting(rig, receiver)
    pause_after = rig.runtime.settings.webhook_pause_after
    receiver.wait_for(lambda h: len(h) >= pause_after, 15)
    seat = 0 if receiver.hits[0].path == "/s0" else 1
    token, hook = table["tokens"][seat], table["hooks"][seat]["id"]

    def listed() -> dict[str, Any]:
        r = rig.client.get(f"/games/{table['game_id']}/webhooks", headers=bearer(token))
        item: dict[str, Any] = r.get_json()["items"][0]
        return item

    eventually(lambda: listed()["status"] == "paused", 10, "paused")
    paused = listed()["paused"]
    assert paused["reason"] == "failing" and paused["failures"] == pause_after
    assert paused["last"] == "HTTP 503"
    (entry,) = log_of(rig, table["game_id"], token, hook)
    assert entry["status"] == "paused" and len(entry["attempts"]) == pause_after
    assert len(receiver.hits) == pause_after  # nothing more is sent while paused
    # the seat redelivers once its receiver works: the subscription resumes
    receiver.answers.clear()
    path = f"/games/{table['game_id']}/webhooks/{hook}/deliveries/{entry['id']}/redeliver"
    assert rig.client.post(path, headers=bearer(token)).status_code == 202
    eventually(lambda: listed()["status"] == "active", 10, "resumed")
    eventually(lambda: log_of(rig, table["game_id"], token, hook)[0]["status"] == "delivered")
    assert listed()["failures"] == 0 and listed()["paused"] is None
