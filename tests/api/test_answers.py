"""An ended game's replay and verification: built once, immutable, cached by ETag;
and retention: archived games are still served, tables that never started expire."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

import service.answers as answers
from service.config import load_settings
from service.games import GameService
from service.retention import ARCHIVED, run_pass
from service.store import keys
from tests.testredis import client_of

from .helpers import Api
from .test_events import finish_hazari


def ended_game(api: Api, service: GameService) -> str:
    tab = api.table("hazari", {"target": 360})
    finish_hazari(api, service, tab.game_id, tab.tokens)
    assert service.load(tab.game_id).server_seed is not None
    return tab.game_id


def count_builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real_verify, real_replay = answers.verify_game, answers.build_replay

    def verify(state: Any, events: Any) -> Any:
        calls.append("verify")
        return real_verify(state, events)

    def replay(state: Any, events: Any, viewer: Any) -> Any:
        calls.append("replay")
        return real_replay(state, events, viewer)

    monkeypatch.setattr(answers, "verify_game", verify)
    monkeypatch.setattr(answers, "build_replay", replay)
    return calls


def test_an_ended_games_answers_are_built_once_and_immutable(
    api: Api, client: FlaskClient, service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    gid = ended_game(api, service)
    client_of(service.store).delete(answers.verify_key(gid), answers.replay_key(gid))
    calls = count_builds(monkeypatch)
    first = client.get(f"/games/{gid}/verify")
    assert first.status_code == 200 and first.get_json()["verified"] is True
    assert first.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    etag = first.headers["ETag"]
    assert calls == ["replay", "verify"]  # both answers built at once, and kept
    for _ in range(3):
        again = client.get(f"/games/{gid}/verify")
        assert again.data == first.data and again.headers["ETag"] == etag
    replay = client.get(f"/games/{gid}/replay")
    assert replay.status_code == 200 and replay.get_json()["server_seed"]
    assert calls == ["replay", "verify"], "an ended game's answer was built again"
    cached = client.get(f"/games/{gid}/verify", headers={"If-None-Match": etag})
    assert cached.status_code == 304 and cached.data == b""
    other = client.get(f"/games/{gid}/replay", headers={"If-None-Match": etag})
    assert other.status_code == 200  # another answer, another tag


def test_the_workers_hook_builds_the_answers_when_the_seed_is_revealed(
    api: Api, service: GameService
) -> None:
    gid = ended_game(api, service)
    client_of(service.store).delete(answers.verify_key(gid))
    answers.on_revealed(service.store, gid)
    assert client_of(service.store).exists(answers.verify_key(gid), answers.replay_key(gid)) == 2


def test_a_running_games_verify_is_not_cached_and_marked_expensive(
    api: Api, client: FlaskClient
) -> None:
    from service.api.replays import verify

    tab = api.table("hazari", {"target": 360})
    r = client.get(f"/games/{tab.game_id}/verify")
    assert r.status_code == 200 and r.get_json()["verified"] is None
    assert "ETag" not in r.headers and "immutable" not in r.headers.get("Cache-Control", "")
    assert getattr(verify, "expensive", False) is True


def game_keys_left(service: GameService, gid: str) -> list[bytes]:
    return [k for k in client_of(service.store).scan_iter(f"*{{{gid}}}*")]


def test_archived_games_leave_redis_and_are_still_served(
    api: Api,
    client: FlaskClient,
    service: GameService,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gid = ended_game(api, service)
    replay_before = client.get(f"/games/{gid}/replay").get_json()
    verify_before = client.get(f"/games/{gid}/verify").get_json()
    running = api.table("hazari", {"target": 360}).game_id
    settings = load_settings(archive_url=str(tmp_path / "archive"), archive_after_s=0)
    report = run_pass(service.store, settings)
    assert report.archived == [gid]
    assert (tmp_path / "archive" / f"{gid}.jsonl").exists()
    assert game_keys_left(service, gid) == []
    assert game_keys_left(service, running)  # a running game is left alone
    summary = service.store.index.get(gid)
    assert summary is not None and summary.status == ARCHIVED
    # served from the archive named by the settings in use
    monkeypatch.setattr("service.retention.settings", lambda: settings)
    assert client.get(f"/games/{gid}/replay").get_json() == replay_before
    assert client.get(f"/games/{gid}/verify").get_json() == verify_before
    listed = client.get("/games?status=archived").get_json()["items"]
    assert [g["game_id"] for g in listed] == [gid]
    assert run_pass(service.store, settings).archived == []  # nothing twice


def test_tables_that_never_started_expire_with_their_index_entry(
    api: Api, client: FlaskClient, service: GameService
) -> None:
    """The default CARDROOM_UNJOINED_TTL_S (30 minutes), driven by the pass's clock:
    a table nobody sat at, and one still waiting for seats, expire 30 minutes
    after their last event; a full table does not; the waiting player is told."""
    settings = load_settings()
    assert settings.unjoined_ttl_s == 1800
    empty = api.create("murlan")["game_id"]
    waiting = api.create("murlan")["game_id"]
    r = api.join(waiting, "ann")
    assert r.status_code == 201
    token = r.get_json()["token"]
    started = api.table("hazari", {"target": 360}).game_id
    created = service.store.index.get(empty).created_at  # type: ignore[union-attr]
    last_seat = service.store.last_entry(waiting)[1]  # type: ignore[index]
    assert run_pass(service.store, settings, now_ms=last_seat + 1_799_000).expired == []
    report = run_pass(service.store, settings, now_ms=max(created, last_seat) + 1_800_000)
    assert sorted(report.expired) == sorted([empty, waiting])
    for gid in (empty, waiting):
        assert game_keys_left(service, gid) == [f"cardroom:{{{gid}}}:expired".encode()]
        assert service.store.index.get(gid) is None
        shard = keys.index_shard(gid)
        for key in client_of(service.store).scan_iter(f"cardroom:{{index:{shard}}}:*"):
            if client_of(service.store).type(key) == b"zset":
                assert client_of(service.store).zscore(key, gid) is None
    # the player still waiting gets a clear answer, on every path the table page uses
    seat = {"Authorization": f"Bearer {token}"}
    for r in (
        client.get(f"/games/{waiting}", headers=seat),
        client.get(f"/games/{waiting}/events", headers=seat),
        client.get(f"/games/{waiting}"),
        client.post(f"/games/{waiting}/seats", json={"name": "bob"}),
        client.post(f"/games/{waiting}/moves", json={"move": {"action": "pass"}}, headers=seat),
    ):
        assert r.status_code == 410, (r.request.path, r.get_json())
        assert r.get_json()["type"].endswith("/table-expired")
    ttl = client_of(service.store).ttl(f"cardroom:{{{waiting}}}:expired")
    assert 86_000 < ttl <= 86_400
    assert client.get("/games/neverexisted").status_code == 404
    # a started game is never expired, however old
    far = run_pass(service.store, settings, now_ms=max(created, last_seat) + 10**10)
    assert far.expired == [] and client.get(f"/games/{started}").status_code == 200


def test_a_live_stream_of_a_table_that_expires_ends_and_its_reconnect_gets_410(
    api: Api, client: FlaskClient, service: GameService
) -> None:
    """The table page of a player waiting for others holds a live stream: when
    the table expires, the stream ends at its next keep-alive (instead of
    keeping alive for ever) and the page's reconnect is told why."""
    gid = api.create("murlan")["game_id"]
    token = api.join(gid, "ann").get_json()["token"]
    seat = {"Authorization": f"Bearer {token}", "Accept": "application/x-ndjson"}
    stream = client.get(f"/games/{gid}/events", headers=seat, buffered=False)
    lines = (chunk for chunk in stream.response if chunk)  # no empty write reaches the wire
    assert json.loads(next(lines))["kind"] == "view"
    assert json.loads(next(lines))["kind"] == "keepalive"  # waiting for players
    late = service.store.last_entry(gid)[1] + 1_800_000  # type: ignore[index]
    assert run_pass(service.store, load_settings(), now_ms=late).expired == [gid]
    assert [json.loads(line)["kind"] for line in lines] == []  # it ends, with no 'end'
    stream.close()
    again = client.get(f"/games/{gid}/events", headers=seat)
    assert again.status_code == 410 and again.get_json()["type"].endswith("/table-expired")


def test_a_seat_taken_after_the_check_keeps_the_table(
    api: Api, service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check and the deletion are one script: a seat that lands between the
    pass's look at the table and the deletion keeps it."""
    from service import retention

    gid = api.create("murlan")["game_id"]
    late = service.store.index.get(gid).created_at + 1_800_000  # type: ignore[union-attr]
    real = retention.drop_unjoined

    def seat_first(store: Any, game_id: str, last_entry: str | None = None) -> bool:
        assert api.join(game_id, "just in time").status_code == 201
        return real(store, game_id, last_entry)

    monkeypatch.setattr(retention, "drop_unjoined", seat_first)
    assert run_pass(service.store, load_settings(), now_ms=late).expired == []
    assert service.store.version(gid) == 2 and service.store.index.get(gid) is not None


def scrape_commands(client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> int:
    """Redis commands one ``/metrics`` scrape sends (pipelined ones each counted)."""
    import redis.client

    sent: list[str] = []
    real_command = redis.client.Redis.execute_command
    real_pipeline = redis.client.Pipeline.execute

    def command(self: Any, *args: Any, **options: Any) -> Any:
        sent.append(str(args[0]))
        return real_command(self, *args, **options)

    def pipeline(self: Any, *args: Any, **options: Any) -> Any:
        sent.extend(str(c[0][0]) for c in self.command_stack)
        return real_pipeline(self, *args, **options)

    with monkeypatch.context() as patch:
        patch.setattr(redis.client.Redis, "execute_command", command)
        patch.setattr(redis.client.Pipeline, "execute", pipeline)
        r = client.get("/metrics")
    assert r.status_code == 200
    return len(sent)


def test_a_metrics_scrape_costs_the_same_for_10_and_1000_games(
    api: Api, client: FlaskClient, service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    for _ in range(10):
        api.table("hazari", {"target": 360})
    few = scrape_commands(client, monkeypatch)
    for _ in range(990):
        service.create_game("murlan")
    for _ in range(5):
        api.table("azi", {"buy_in": 60, "ante": 10, "min_bet": 10}, 2)
    many = scrape_commands(client, monkeypatch)
    # the few fixed reads: queue depth, lag, reconciler, heartbeats, store state, last audit
    assert few == many and many <= 6, (few, many)
    text = client.get("/metrics").get_data(as_text=True)
    line = next(x for x in text.splitlines() if x.startswith("cardroom_projection_lag_events "))
    behind = float(line.split()[1])
    redis = client_of(service.store)
    # nothing projects in this app (no worker runs): every stored event is behind
    stored = sum(redis.xlen(k) for k in redis.scan_iter("cardroom:{*}:events", count=1000))
    assert behind == stored >= 1000
