"""An ended game's replay and verification: built once, immutable, cached by ETag;
and retention: archived games are still served, unjoined tables expire."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

import service.answers as answers
from service.config import load_settings
from service.games import GameService
from service.retention import ARCHIVED, run_pass
from service.store import keys

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
    service.store.redis.delete(answers.verify_key(gid), answers.replay_key(gid))
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
    service.store.redis.delete(answers.verify_key(gid))
    answers.on_revealed(service.store, gid)
    assert service.store.redis.exists(answers.verify_key(gid), answers.replay_key(gid)) == 2


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
    return [k for k in service.store.redis.scan_iter(f"*{{{gid}}}*")]


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


def test_unjoined_tables_expire_with_their_index_entry(
    api: Api, client: FlaskClient, service: GameService
) -> None:
    empty = api.create("murlan")["game_id"]
    joined = api.create("murlan")["game_id"]
    assert api.join(joined, "ann").status_code == 201
    settings = load_settings(unjoined_ttl_s=3600)
    assert run_pass(service.store, settings).expired == []  # not old enough
    later = service.store.index.get(empty).created_at + 3601 * 1000  # type: ignore[union-attr]
    report = run_pass(service.store, settings, now_ms=later)
    assert report.expired == [empty]
    assert game_keys_left(service, empty) == []
    assert service.store.index.get(empty) is None
    shard = keys.index_shard(empty)
    for key in service.store.redis.scan_iter(f"cardroom:{{index:{shard}}}:*"):
        if service.store.redis.type(key) == b"zset":
            assert service.store.redis.zscore(key, empty) is None
    assert client.get(f"/games/{empty}").status_code == 404
    assert client.get(f"/games/{joined}").status_code == 200


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
    assert few == many and many <= 5, (few, many)
    text = client.get("/metrics").get_data(as_text=True)
    line = next(x for x in text.splitlines() if x.startswith("cardroom_projection_lag_events "))
    behind = float(line.split()[1])
    redis = service.store.redis
    # nothing projects in this app (no worker runs): every stored event is behind
    stored = sum(redis.xlen(k) for k in redis.scan_iter("cardroom:{*}:events", count=1000))
    assert behind == stored >= 1000
