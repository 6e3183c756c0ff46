"""The projection kept by the workers, its rebuild, the endpoint and the command."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fakeredis
import pytest

from schemas.fairness import FairnessReport
from service.api import create_app
from service.cli import main as cli
from service.config import load_settings
from service.demo import play_bot_game
from service.fairness import projection, report
from service.games import GameService
from service.replay import build_replay
from service.runtime import Runtime
from service.store import EventStore
from workers.context import install
from workers.embedded import EmbeddedWorker

GAMES: tuple[tuple[str, dict[str, Any], int | None], ...] = (
    ("murlan", {}, None),
    ("azi", {"buy_in": 60, "ante": 10, "min_bet": 10}, 3),
    ("azi", {"buy_in": 60, "ante": 10, "min_bet": 10, "cards": 4, "deck": 36}, 4),
    ("hazari", {"target": 360}, None),
)


# One worker runs the whole module, so its games (``played``) are played once, not once a worker.
pytestmark = pytest.mark.xdist_group("projection")


class Stack:
    def __init__(self) -> None:
        self.runtime = Runtime.from_settings(load_settings(redis_url=None, bot_delay_s=0))
        self.worker = EmbeddedWorker(self.runtime)
        install(self.runtime)
        self.store = EventStore(self.runtime.redis)
        self.service = GameService(self.runtime, self.store)


@pytest.fixture(scope="module")
def played() -> Iterator[tuple[Stack, list[dict[str, Any]]]]:
    stack = Stack()
    docs = []
    for game, options, seats in GAMES:
        state, stored = play_bot_game(stack.runtime, game, options, seats, stack.worker.drain)
        docs.append(build_replay(state, stored, None))
    yield stack, docs


def test_the_workers_count_every_finished_game(played: tuple[Stack, list[dict[str, Any]]]) -> None:
    stack, docs = played
    counts, meta = projection.read(stack.store)
    assert meta == {"games": len(GAMES), "deals": sum(len(d["deals"]) for d in docs)}
    tables = {f.split("|")[0] for f in counts}
    assert tables == {"murlan", "azi/27/3", "azi/36/4", "hazari"}
    for doc in docs:  # each game's own notes are gone once it is counted
        assert not stack.runtime.redis.exists(projection.pending_key(doc["game_id"]))


def test_the_rebuilt_projection_equals_the_live_one(
    played: tuple[Stack, list[dict[str, Any]]],
) -> None:
    stack, _ = played
    live = projection.read(stack.store)
    assert projection.rebuild(stack.store) == live[1]
    assert projection.read(stack.store) == live
    # and counting a game again changes nothing
    game_id = stack.store.list_games(status="ended", limit=1)[0][0].game_id
    events = stack.store.read(game_id)
    from service.engines import table

    state = table.fold([e.event for e in events])
    projection.record(stack.store, game_id, events, state)
    assert projection.read(stack.store) == live


def test_replay_documents_give_the_same_counts(
    played: tuple[Stack, list[dict[str, Any]]],
) -> None:
    stack, docs = played
    assert projection.from_replays(docs) == projection.read(stack.store)


def test_a_games_counts_are_those_of_its_pending_notes(
    played: tuple[Stack, list[dict[str, Any]]],
) -> None:
    """The rebuild counts a stream at once; the workers note it in pieces, as JSON."""
    from service.engines import table

    stack, docs = played
    for doc in docs:
        events = stack.store.read(doc["game_id"])
        state = table.fold([e.event for e in events])
        counts, deals = projection.game_counts(state, events)
        assert deals == len(doc["deals"]) and counts
        assert (counts, deals) == projection.tally(projection.observe(state, events)[0])
        pieces: dict[str, str] = {}
        last = None
        for i in range(0, len(events), 9):
            fields, last = projection.observe(state, events[i : i + 9], last)
            pieces.update(fields)
        assert projection.tally(pieces) == (counts, deals)


def test_a_rebuild_reads_of_a_stream_what_its_whole_fold_says(
    played: tuple[Stack, list[dict[str, Any]]],
) -> None:
    """The rebuild decodes the table's facts, the deals and the pots, and
    folds no play: the same table, the same verdict on whether the game
    counts, the same counts, for finished games, a table abandoned before
    its first deal, a game over whose seed is still secret and a game in play."""
    from service.engines import table

    stack, docs = played
    other = Stack()  # the played games' counts stay as they are
    from service.presence import ABANDONED_IDLE

    waiting = other.service.create_game("hazari", {}, None)
    other.service.take_seat(waiting.game_id, "ann", None)
    # A table abandoned while it was still seating (as tables were before such
    # tables expired instead): stored games of that kind must still be read right.
    seating = other.service.load(waiting.game_id)
    abandoned = table.abandon(seating, ABANDONED_IDLE)
    assert abandoned
    other.store.append(waiting.game_id, abandoned, seating.version)
    other.worker.drain()  # reveals the seed of the abandoned table
    in_play = other.service.create_game("murlan", {}, None)
    for i in range(4):
        other.service.take_seat(in_play.game_id, f"p{i}", None, bot=i > 0)
    other.worker.drain()
    ids = [doc["game_id"] for doc in docs]
    unrevealed = stack.store.read(ids[0])[:-1]  # the same game, before its seed was revealed
    assert unrevealed[-1].event.type != "SeedRevealed"
    verdicts = []
    games = [(stack, game_id) for game_id in ids]
    for where, game_id in [*games, (other, waiting.game_id), (other, in_play.game_id)]:
        events = where.store.read(game_id)
        state = table.fold([e.event for e in events])
        found = projection.counted_stream(where.store, game_id)
        verdicts.append(found is not None)
        assert verdicts[-1] == projection.counted(state), game_id
        if found is None:
            continue
        facts, noted = found
        assert (facts.game_id, facts.kind, facts.options, facts.seats, facts.server_seed) == (
            state.game_id,
            state.kind,
            state.options,
            state.seats,
            state.server_seed,
        )
        assert projection.game_counts(facts, noted) == projection.game_counts(state, events)
    assert verdicts == [True] * len(ids) + [True, False]
    bare = EventStore(fakeredis.FakeRedis())  # a game over, its seed still secret
    bare.append(ids[0], [e.event for e in unrevealed], 0)
    assert table.fold([e.event for e in bare.read(ids[0])]).over
    assert projection.counted_stream(bare, ids[0]) is None


def test_hands_of_a_game_in_play_are_not_counted() -> None:
    stack = Stack()
    state = stack.service.create_game("murlan", {}, None)
    for i in range(4):
        stack.service.take_seat(state.game_id, f"bot-{i}", None, bot=i > 0)
    stack.worker.drain()
    assert any(e.event.type == "HandDealt" for e in stack.store.read(state.game_id))
    counts, meta = projection.read(stack.store)
    assert counts == {} and meta == {}
    pending = stack.runtime.redis.hgetall(projection.pending_key(state.game_id))
    assert b"d:0" in pending  # noted when dealt, published when the game ends


def test_the_report_endpoint(played: tuple[Stack, list[dict[str, Any]]]) -> None:
    stack, _ = played
    app = create_app(
        load_settings(redis_url=None), stack.runtime, {"TESTING": True, "RATELIMIT_ENABLED": False}
    )
    client = app.test_client()
    res = client.get("/fairness/report")
    assert res.status_code == 200
    body = FairnessReport.model_validate(res.get_json())
    assert body.games == len(GAMES)
    rows = [g for t in body.tables for f in t.features for g in f.groups]
    tested = sum(g.p_value is not None for g in rows)
    for name in ("bot-1", "bot-2", "bot-3", "bot-4"):
        mine = FairnessReport.model_validate(
            client.get(f"/fairness/report?player={name}").get_json()
        )
        tested += sum(
            g.p_value is not None and g.group != "all"
            for t in mine.tables
            for f in t.features
            for g in f.groups
        )
    assert body.tests == tested  # every row with a p-value is in the correction
    assert not body.flagged and all(not g.flagged for g in rows)
    murlan = next(t for t in body.tables if t.table == "murlan")
    jokers = next(f for f in murlan.features if f.feature == "jokers")
    every = next(g for g in jokers.groups if g.group == "all")
    assert sum(every.observed) == every.hands == murlan.hands
    assert sum(every.expected) == pytest.approx(every.hands)
    assert every.p_value is None  # hands of one deal are not independent: shown, not tested
    assert {g.group for g in jokers.groups} >= {"seat:0", "pos:3"}
    assert not any(g.group.startswith("player:") for g in jokers.groups)  # with ?player= only
    assert body.players == 4  # bot-1 … bot-4: a name is one player across games

    mine = client.get("/fairness/report?player=bot-2&game=murlan").get_json()
    assert [t["table"] for t in mine["tables"]] == ["murlan"]
    groups = {g["group"] for t in mine["tables"] for f in t["features"] for g in f["groups"]}
    assert groups == {"all", "player:bot-2"}

    for bad in ("?game=poker", "?player=", "?colour=red"):
        res = client.get("/fairness/report" + bad)
        assert res.status_code == 422, bad
        assert res.content_type == "application/problem+json"
    assert client.get("/openapi.json").get_json()["paths"]["/fairness/report"]["get"]


def test_the_page_draws_the_report_without_a_cdn(
    played: tuple[Stack, list[dict[str, Any]]],
) -> None:
    stack, _ = played
    app = create_app(load_settings(redis_url=None), stack.runtime, {"TESTING": True})
    text = app.test_client().get("/fairness").get_data(as_text=True)
    assert "/web/static/js/fairness.js" in text and "How the report works" in text
    assert "https://" not in text.split("<pre")[0]


def test_the_command_prints_the_report_over_replay_files(
    played: tuple[Stack, list[dict[str, Any]]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, docs = played
    files = []
    for i, doc in enumerate(docs):
        path = tmp_path / f"game{i}.json"
        path.write_text(json.dumps(doc))
        files.append(str(path))
    assert cli(["fairness", *files]) == 0
    out = capsys.readouterr().out
    assert f"{len(GAMES)} finished games" in out and "Jokers in hand" in out
    assert cli(["fairness", "--json", "--game", "azi", *files]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {t["table"] for t in doc["tables"]} == {"azi/27/3", "azi/36/4"}
    assert doc["format"] == report.FORMAT


# After every test that reads the module's projection: it adds a game to it.
def test_a_newly_counted_game_reaches_the_report(
    played: tuple[Stack, list[dict[str, Any]]],
) -> None:
    import time

    stack, _ = played
    store, reports = stack.store, report.FairnessReport()
    before = reports.cached_report(store, wait=True)["games"]
    fields = {"d:0": json.dumps(["murlan|jokers|seat:0|hg:54:2:14:0|1"])}
    assert projection.merge(store, "extra-game", fields)
    deadline = time.monotonic() + 10
    while reports.cached_report(store)["games"] != before + 1:  # answered at once, refreshed behind
        assert time.monotonic() < deadline, "the report never caught up"
        time.sleep(0.02)
    assert reports.cached_report(store, wait=True)["games"] == before + 1


def test_counting_on_either_redis(
    played: tuple[Stack, list[dict[str, Any]]], redis_client: Any
) -> None:
    """The notes and the atomic merge behave the same on fakeredis and Redis,
    event by event as the workers fold them, and a second count adds nothing."""
    from service.engines import table
    from service.replay import events_from_replay

    _, docs = played
    store = EventStore(redis_client)
    for doc in docs:
        events = events_from_replay(doc)
        state = None
        for i, rec in enumerate(events):
            state = table.apply(state, rec.event)
            projection.record(store, doc["game_id"], events[i : i + 1], state)
        assert state is not None
        projection.record(store, doc["game_id"], events[-1:], state)  # a retried job
    assert projection.read(store) == projection.from_replays(docs)
