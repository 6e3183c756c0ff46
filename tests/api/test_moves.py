"""POST /games/{id}/moves: tokens, engine checks, versions, idempotency, follow-ups."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from service.config import Settings
from service.games import Forbidden, GameService
from service.store import GameNotFound, keys
from service.store.errors import VersionConflict
from tests.testredis import client_of
from workers.embedded import EmbeddedWorker

from .conftest import make_app
from .helpers import Api, Table, bearer


def suggestion(api: Api, tab: Table, seat: int) -> tuple[dict[str, Any], int]:
    view = api.view(tab.game_id, tab.tokens[seat])
    return view["legal_moves"][0], view["version"]


def test_an_accepted_move(api: Api) -> None:
    tab = api.table("hazari")
    move, version = suggestion(api, tab, 1)
    r = api.move(tab.game_id, tab.tokens[1], move, expected_version=version)
    assert r.status_code == 201
    body = r.get_json()
    assert body["version"] == body["first_version"] == version + 1
    (event,) = body["events"]
    assert event["type"] == "Arranged" and event["seat"] == 1
    assert [list(g) for g in event["groups"]] == move["groups"]
    r.get_data()
    r.close()
    # At most one follow-up job per game, however many appends: the one asked
    # for by the append that set the game's marker sees this move before it
    # lets the marker go.
    queued = [j for j in api.service.runtime.queue.jobs if j.args == (tab.game_id,)]
    assert len(queued) <= 1
    assert client_of(api.service.store).exists(keys.followup(tab.game_id))


def test_token_errors(api: Api, client: FlaskClient) -> None:
    tab = api.table("hazari")
    other = api.table("hazari")
    move, _ = suggestion(api, tab, 0)
    version = api.service.store.version(tab.game_id)
    missing = api.move(tab.game_id, None, move)
    assert missing.status_code == 401 and "Bearer" in missing.headers["WWW-Authenticate"]
    wrong = api.move(tab.game_id, "A" * 43, move)
    foreign = api.move(tab.game_id, other.tokens[0], move)
    assert wrong.status_code == foreign.status_code == 403
    assert wrong.get_json()["detail"] == foreign.get_json()["detail"]
    assert other.tokens[0] not in foreign.get_data(as_text=True)
    assert api.move("no-such-game", tab.tokens[0], move).status_code == 404
    assert api.service.store.version(tab.game_id) == version


def _counting(monkeypatch: pytest.MonkeyPatch, service: GameService) -> list[object]:
    """The commands the service sends to its Redis from now on."""
    redis = client_of(service.store)
    sent: list[object] = []
    real = redis.execute_command

    def counting(*args: Any, **options: Any) -> Any:
        sent.append(args[0])
        return real(*args, **options)

    monkeypatch.setattr(redis, "execute_command", counting)
    return sent


def test_a_moves_token_check_and_load_are_one_round_trip(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    tab = api.table("hazari")
    other = api.table("hazari")
    service = api.service
    sent = _counting(monkeypatch, service)
    for cached in (True, False):
        if not cached:
            service.store.states.clear()
        sent.clear()
        seat, state = service.seat_and_state(tab.game_id, tab.tokens[2])
        assert seat == 2 and state == service.load(tab.game_id)
        assert sent[:1] == ["EVALSHA"] and len(sent) == 2  # the check's own load
    sent.clear()
    with pytest.raises(Forbidden):
        service.seat_and_state(tab.game_id, other.tokens[2])
    with pytest.raises(GameNotFound):
        service.seat_and_state("no-such-game", tab.tokens[2])
    assert sent == ["EVALSHA", "EVALSHA"]


def test_illegal_moves_name_the_rule_and_change_nothing(api: Api) -> None:
    tab = api.table("murlan")
    view = api.view(tab.game_id)
    idle = next(s for s in range(4) if s not in view["to_act"])
    r = api.move(tab.game_id, tab.tokens[idle], {"action": "pass"})
    assert r.status_code == 422 and r.get_json()["rule"] == "not_your_turn"
    actor = view["to_act"][0]
    r = api.move(tab.game_id, tab.tokens[actor], {"action": "play", "cards": ["ZZ"]})
    assert r.status_code == 422 and r.get_json()["rule"] == "bad_card"
    assert api.service.store.version(tab.game_id) == view["version"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "move"),
        ({"move": "pass"}, "move"),
        ({"move": {"action": "fly"}}, "move.action"),
        ({"move": {"action": "play", "cards": "3S"}}, "move.cards"),
        ({"move": {"action": "play", "cards": [3]}}, "move.cards.0"),
        ({"move": {"action": "pass", "extra": 1}}, "move.extra"),
        ({"move": {"action": "pass"}, "expected_version": "7"}, "expected_version"),
        ({"move": {"action": "pass"}, "idempotency_key": ""}, "idempotency_key"),
    ],
)
def test_bad_move_bodies_name_the_field(api: Api, body: dict[str, Any], field: str) -> None:
    tab = api.table("murlan")
    actor = api.view(tab.game_id)["to_act"][0]
    r = api.client.post(f"/games/{tab.game_id}/moves", json=body, headers=bearer(tab.tokens[actor]))
    assert r.status_code == 422, r.get_json()
    assert r.get_json()["field"] == field


def test_stale_expected_version_is_a_conflict(api: Api) -> None:
    tab = api.table("hazari")
    move0, version = suggestion(api, tab, 0)
    move1, _ = suggestion(api, tab, 1)
    assert api.move(tab.game_id, tab.tokens[0], move0, expected_version=version).status_code == 201
    r = api.move(tab.game_id, tab.tokens[1], move1, expected_version=version)
    assert r.status_code == 409
    problem = r.get_json()
    assert problem["current_version"] == version + 1
    assert str(version + 1) in problem["detail"]
    assert api.service.store.version(tab.game_id) == version + 1


def test_an_idempotent_retry_lands_once(api: Api) -> None:
    tab = api.table("hazari")
    move, version = suggestion(api, tab, 3)
    body = {"expected_version": version, "idempotency_key": "k-1"}
    first = api.move(tab.game_id, tab.tokens[3], move, **body)
    again = api.move(tab.game_id, tab.tokens[3], move, **body)
    assert first.status_code == again.status_code == 201
    assert first.get_json() == again.get_json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert api.service.store.version(tab.game_id) == version + 1
    reused = api.move(tab.game_id, tab.tokens[3], {"action": "pass"}, idempotency_key="k-1")
    assert reused.status_code == 422 and reused.get_json()["field"] == "idempotency_key"
    assert api.service.store.version(tab.game_id) == version + 1


def test_idempotency_keys_belong_to_one_seat(api: Api) -> None:
    """Two seats that happen to pick the same key each get their move, as
    two accounts may use the same key with an API that scopes them."""
    tab = api.table("hazari")
    version = api.service.store.version(tab.game_id)
    landed = []
    for seat in (3, 2):
        move, _ = suggestion(api, tab, seat)
        r = api.move(tab.game_id, tab.tokens[seat], move, idempotency_key="move-1")
        assert r.status_code == 201, r.get_json()
        assert "Idempotent-Replayed" not in r.headers
        landed.append(r.get_json()["first_version"])
    assert landed == [version + 1, version + 2]
    assert api.service.store.version(tab.game_id) >= version + 2


def test_without_expected_version_a_lost_race_is_decided_again(
    api: Api, service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    tab = api.table("hazari")
    move, version = suggestion(api, tab, 0)
    real_append = service.store.write
    calls: list[int] = []

    def racing_append(append: Any) -> Any:
        game_id, expected = append.game_id, append.expected_version
        calls.append(expected)
        if len(calls) == 1:  # someone else's move lands first
            state = service.load(game_id)
            other = state.engine.legal_moves(state.engine_state, 1)[0]
            service.submit_move(game_id, 1, other)
            raise VersionConflict(game_id, expected, expected + 1)
        return real_append(append)

    monkeypatch.setattr(service.store, "write", racing_append)
    r = api.move(tab.game_id, tab.tokens[0], move)
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["version"] == version + 2


def test_play_as_records_a_timeout(api: Api, service: GameService) -> None:
    tab = api.table("hazari", {"turn_timeout_s": 30})
    move, version = suggestion(api, tab, 2)
    result = service.play_as(tab.game_id, 2, move, version, timed_out=True)
    types = [e["type"] for e in result.body["events"]]
    assert types[:2] == ["TurnTimedOut", "Arranged"]
    assert result.body["events"][0]["after_s"] == 30


def test_wrong_method_is_405(client: FlaskClient) -> None:
    r = client.get("/games/some-id/moves")
    assert r.status_code == 405 and "POST" in r.headers["Allow"]
    assert r.mimetype == "application/problem+json"


def test_a_retry_racing_its_first_attempt_gets_its_answer(
    api: Api, service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first attempt lands after the retry decided on the game but before it
    appended: the retry still answers 201 with the first attempt's body."""
    tab = api.table("hazari")
    move, version = suggestion(api, tab, 0)
    real_append = service.store.write
    first: list[Any] = []
    calls: list[int] = []

    def late_append(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:  # the retry's append: the first attempt lands just before it
            first.append(service.submit_move(tab.game_id, 0, move, version, "k"))
        return real_append(*args, **kwargs)

    monkeypatch.setattr(service.store, "write", late_append)
    r = api.move(tab.game_id, tab.tokens[0], move, expected_version=version, idempotency_key="k")
    assert r.status_code == 201, r.get_json()
    assert r.get_json() == first[0].body
    assert service.store.version(tab.game_id) == version + 1


def test_a_creation_key_opens_one_table_per_client(api: Api) -> None:
    body = {"game": "murlan", "idempotency_key": "new-table"}
    first = api.client.post("/games", json=body, headers={"Client-Id": "app-a"})
    again = api.client.post("/games", json=body, headers={"Client-Id": "app-a"})
    other = api.client.post("/games", json=body, headers={"Client-Id": "app-b"})
    assert first.status_code == again.status_code == other.status_code == 201
    assert again.get_json()["game_id"] == first.get_json()["game_id"]
    assert again.headers["Idempotent-Replayed"] == "true"
    assert other.get_json()["game_id"] != first.get_json()["game_id"]
    by_address = api.client.post("/games", json=body)
    assert by_address.get_json()["game_id"] not in {
        first.get_json()["game_id"],
        other.get_json()["game_id"],
    }


def _murlan_turn(api: Api) -> tuple[Table, int, dict[str, Any], int]:
    """A Murlan table at its first turn, seen by the seat to act (so cached)."""
    tab = api.table("murlan")
    seat = api.view(tab.game_id)["to_act"][0]
    view = api.view(tab.game_id, tab.tokens[seat])
    return tab, seat, view["legal_moves"][0], view["version"]


def test_a_move_after_the_seat_s_view_is_decided_without_a_load(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The view left the game and its seats' hashes cached in this process: the
    move is decided on that state and sent in one command, the append, which
    checks the stream still ends where the cached state does."""
    tab, seat, move, version = _murlan_turn(api)
    sent = _counting(monkeypatch, api.service)
    r = api.move(tab.game_id, tab.tokens[seat], move, expected_version=version)
    assert r.status_code == 201, r.get_json()
    assert sent == ["EVALSHA"]  # the append (it sees to the follow-up itself)
    r.close()
    assert api.service.store.version(tab.game_id) == r.get_json()["version"]


@pytest.mark.parametrize("projects", [True, False])
def test_a_move_with_nothing_else_to_do_is_projected_by_its_append(
    settings: Settings, projects: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the workers are done with a table of people, a move that leaves them
    nothing but the fold (no deal, bot or end follows) is projected by its own
    append: one command, the snapshot at the new version, the turn's timer
    set, and no follow-up. With ``CARDROOM_PROJECT_ON_APPEND=false`` the same
    move is the workers' to project."""
    settings = settings.model_copy(update={"project_on_append": projects})
    app = make_app(settings, RATELIMIT_ENABLED=False)
    service: GameService = app.extensions["cardroom"]
    api = Api(app.test_client(), service)
    tab = api.table("murlan", {"turn_timeout_s": 60})
    worker = EmbeddedWorker(service.runtime)
    worker.drain()  # the deal and its follow-up: nothing is pending now
    redis, game_id = client_of(service.store), tab.game_id
    assert not redis.exists(keys.followup(game_id))
    seat = api.view(game_id)["to_act"][0]
    view = api.view(game_id, tab.tokens[seat])
    sent = _counting(monkeypatch, service)
    r = api.move(game_id, tab.tokens[seat], view["legal_moves"][0])
    assert r.status_code == 201, r.get_json()
    r.close()
    monkeypatch.undo()
    version = r.get_json()["version"]
    assert sent == ["EVALSHA"]
    due = redis.zscore(service.runtime.followups.due_key(game_id), game_id)
    if not projects:
        assert service.store.snapshot_version(game_id) == version - 1
        assert redis.exists(keys.followup(game_id)) and service.runtime.drains.backlog() == 1
        return
    assert service.store.snapshot_version(game_id) == version
    assert service.store.load_snapshot(game_id) == service.load(game_id)
    assert not redis.exists(keys.followup(game_id)) and service.runtime.drains.backlog() == 0
    assert len(service.runtime.queue) == 0 and service.store.lag.read() == (0, 0)
    ((entry_id, _),) = redis.xrevrange(keys.events(game_id), count=1)
    at_ms = int(entry_id.split(b"-")[1])
    nxt = service.load(game_id).engine.to_act(service.load(game_id).engine_state)
    marks = redis.hgetall(keys.meta(game_id))
    assert {k: v for k, v in marks.items() if k.startswith(b"turn:")} == {
        f"turn:{s}".encode(): f"{version}:{at_ms}".encode() for s in nxt
    }
    assert due == at_ms + 60_000  # the next seat's turn times out then
    assert worker.drain() == 0  # nothing was left for the workers


def test_a_stale_cached_state_is_never_the_answer(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process's cached state is a move behind (another API process took it):
    a move pinned to the stream's version, and one not pinned whose seat was
    not to act in the stale state, are both decided again on the current state
    and accepted."""
    tab, seat, move, version = _murlan_turn(api)
    stale = api.service.store.states.entry(tab.game_id)
    assert stale is not None and stale[0].version == version
    assert api.move(tab.game_id, tab.tokens[seat], move).status_code == 201
    for pinned in (True, False):
        current = api.view(tab.game_id)
        actor = current["to_act"][0]
        legal = api.view(tab.game_id, tab.tokens[actor])["legal_moves"][0]
        api.service.store.states.drop(tab.game_id)
        api.service.store.states.put(*stale)  # as if the moves since had been made elsewhere
        extra = {"expected_version": current["version"]} if pinned else {}
        r = api.move(tab.game_id, tab.tokens[actor], legal, **extra)
        assert r.status_code == 201, (pinned, r.get_json())
        assert r.get_json()["first_version"] == current["version"] + 1


def test_a_cached_state_whose_last_entry_a_failover_lost_is_not_built_on(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cached state of the stream's version but with another last entry (a
    failover lost the one it holds and another took its version): the append
    refuses it, and the move is decided on the stream's own state."""
    tab, seat, move, version = _murlan_turn(api)
    state, at_ms = api.service.store.states.entry(tab.game_id) or (None, None)
    assert state is not None and at_ms is not None
    api.service.store.states.drop(tab.game_id)
    api.service.store.states.put(state, at_ms - 1)  # the entry it names is not in the stream
    sent = _counting(monkeypatch, api.service)
    r = api.move(tab.game_id, tab.tokens[seat], move, expected_version=version)
    assert r.status_code == 201, r.get_json()
    # the refused append, the load (that drops the cached state), the append
    assert sent == ["EVALSHA", "EVALSHA", "EVALSHA"]
    assert api.service.store.states.entry(tab.game_id) is not None


def test_a_token_not_among_the_cached_hashes_is_looked_up(api: Api) -> None:
    """The cached hashes may predate a seat taken since: a token not among them
    is looked for among the stored ones before it is refused."""
    tab = api.table("murlan")
    seat = api.view(tab.game_id)["to_act"][0]
    api.view(tab.game_id, tab.tokens[seat])
    service = api.service
    known = service.seats.known.get(tab.game_id)
    assert known is not None
    service.seats.known.put(tab.game_id, {})  # as if no seat had been taken when it was read
    found, _, cached = service.seat_for_move(tab.game_id, tab.tokens[seat])
    assert found == seat and cached is None  # from the stored hashes
    assert service.seats.known.get(tab.game_id) == known
    with pytest.raises(Forbidden):
        service.seat_for_move(tab.game_id, tab.tokens[seat] + "x")
