"""``POST /games`` with ``bots``, the table option ``bot_delay_s`` and the
unknown-option error's list of the known ones."""

from __future__ import annotations

import json
from typing import Any, cast

import pytest
from flask.testing import FlaskClient

from service.config import Settings, load_settings
from service.engines.shuffle import derived_client_seed
from service.games import GameService
from service.runtime import Runtime
from workers.embedded import EmbeddedWorker

from .helpers import bearer

SERVER_DELAY_S = 30.0
BOT_MOVES = {"BetPlaced", "Called", "Folded", "CardPlayed"}


@pytest.fixture
def settings() -> Settings:
    """A server whose bots think for half a minute unless the table says otherwise."""
    return load_settings(
        rate_limit="100000/second", stream_keepalive_s=0.2, bot_delay_s=SERVER_DELAY_S
    )


def _create(client: FlaskClient, body: dict[str, Any], **headers: str) -> Any:
    r = client.post("/games", json=body, headers=headers)
    r.close()
    return r


def test_bots_named_at_creation_take_their_seats_at_once(
    client: FlaskClient, service: GameService
) -> None:
    bots = [{"seat": 1, "name": "Ana"}, {"seat": 3, "name": "Blerim"}]
    r = _create(client, {"game": "murlan", "bots": bots})
    assert r.status_code == 201, r.get_json()
    created = r.get_json()
    rows = created["seat_list"]
    assert [(s["seat"], s["name"], s["bot"]) for s in rows] == [
        (0, None, False),
        (1, "Ana", True),
        (2, None, False),
        (3, "Blerim", True),
    ]
    assert created["version"] == 3 and created["status"] == "seating"
    seed = service.store.get_secret(created["game_id"])
    assert seed is not None
    assert rows[3]["client_seed"] == derived_client_seed(seed, 3)
    assert rows[3]["seed_origin"] == "derived"
    # players get the lowest free seats; the last one deals
    first = client.post(f"/games/{created['game_id']}/seats", json={"name": "p"}).get_json()
    second = client.post(f"/games/{created['game_id']}/seats", json={"name": "q"}).get_json()
    assert (first["seat"], second["seat"]) == (0, 2)
    view = client.get(f"/games/{created['game_id']}", headers=bearer(first["token"])).get_json()
    assert view["status"] == "playing" and len(view["hand"]) > 0


@pytest.mark.parametrize(
    ("bots", "constraint"),
    [
        ([{"seat": 4, "name": "x"}], "out of range"),
        ([{"seat": 0, "name": "x"}, {"seat": 0, "name": "y"}], "named twice"),
        ([{"seat": s, "name": "x"} for s in range(4)], "at most 3"),
        ([{"seat": 1, "name": "\u0007"}], "printable"),
    ],
)
def test_bad_bots_are_a_422_naming_bots_and_open_nothing(
    client: FlaskClient, service: GameService, bots: list[dict[str, Any]], constraint: str
) -> None:
    before = service.list_games(None, None, 100, None)[0]
    r = _create(client, {"game": "murlan", "bots": bots})
    assert r.status_code == 422 and r.mimetype == "application/problem+json"
    problem = r.get_json()
    assert problem["option"] == "bots" and constraint in problem["detail"], problem
    assert service.list_games(None, None, 100, None)[0] == before


@pytest.mark.parametrize(
    "body",
    [
        {"game": "murlan", "bots": [{"seat": "1", "name": "x"}]},
        {"game": "murlan", "bots": [{"seat": 1}]},
        {"game": "murlan", "bots": [{"seat": 1, "name": ""}]},
        {"game": "murlan", "bots": []},
    ],
)
def test_malformed_bots_are_a_422_naming_the_field(
    client: FlaskClient, body: dict[str, Any]
) -> None:
    r = _create(client, body)
    assert r.status_code == 422
    assert r.get_json()["field"].startswith("bots"), r.get_json()


def test_bots_at_creation_are_idempotent_with_the_key(client: FlaskClient) -> None:
    body = {"game": "azi", "seats": 3, "bots": [{"seat": 2, "name": "B"}]}
    key = {"idempotency_key": "table-with-a-bot-1"}
    secret = {"Client-Secret": "s" * 32}
    first = _create(client, {**body, **key}, **secret)
    again = _create(client, {**body, **key}, **secret)
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json()["game_id"] == first.get_json()["game_id"]
    other = _create(client, {**body, "bots": [{"seat": 1, "name": "B"}], **key}, **secret)
    assert other.status_code == 422 and other.get_json()["code"] == "idempotency-key-reused"


def _play_humans(client: FlaskClient, worker: EmbeddedWorker, game_id: str, token: str) -> int:
    """The human's first legal move whenever it is its turn, the workers drained
    in between, for a bounded number of rounds; how many moves it made."""
    made = 0
    for _ in range(12):
        worker.drain()
        view = client.get(f"/games/{game_id}", headers=bearer(token)).get_json()
        if view["status"] == "ended" or not view["legal_moves"]:
            return made
        body = {"move": view["legal_moves"][0], "expected_version": view["version"]}
        r = client.post(f"/games/{game_id}/moves", json=body, headers=bearer(token))
        assert r.status_code == 201, r.get_json()
        r.close()
        made += 1
    return made


def _bot_table(client: FlaskClient, options: dict[str, Any]) -> tuple[str, str]:
    bots = [{"seat": 0, "name": "bot"}]
    created = _create(client, {"game": "azi", "seats": 2, "options": options, "bots": bots})
    assert created.status_code == 201, created.get_json()
    game_id = created.get_json()["game_id"]
    seat = client.post(f"/games/{game_id}/seats", json={"name": "me"})
    seat.close()
    return game_id, seat.get_json()["token"]


def test_a_table_of_delay_zero_has_its_bots_move_at_once(
    client: FlaskClient, service: GameService
) -> None:
    worker = EmbeddedWorker(cast(Runtime, service.runtime))
    game_id, token = _bot_table(client, {"bot_delay_s": 0})
    assert client.get(f"/games/{game_id}").get_json()["options"]["bot_delay_s"] == 0
    made = _play_humans(client, worker, game_id, token)
    worker.drain()
    view = client.get(f"/games/{game_id}").get_json()
    assert made >= 1 and view["to_act"] != [0]  # the bot never keeps the table waiting
    events = client.get(f"/games/{game_id}/events?limit=1000").get_json()["events"]
    assert any(e["type"] in BOT_MOVES and e.get("seat") == 0 for e in events)


def test_without_the_option_the_servers_delay_holds_the_bot(
    client: FlaskClient, service: GameService
) -> None:
    worker = EmbeddedWorker(cast(Runtime, service.runtime))
    game_id, token = _bot_table(client, {})
    assert "bot_delay_s" not in client.get(f"/games/{game_id}").get_json()["options"]
    for _ in range(3):
        worker.drain()
        view = client.get(f"/games/{game_id}", headers=bearer(token)).get_json()
        if view["to_act"] == [0]:
            break
        move = {"move": view["legal_moves"][0]}
        client.post(f"/games/{game_id}/moves", json=move, headers=bearer(token)).close()
    worker.drain()
    before = client.get(f"/games/{game_id}").get_json()
    assert before["to_act"] == [0]  # the bot's turn, and it thinks for 30 s
    worker.drain()
    assert client.get(f"/games/{game_id}").get_json()["version"] == before["version"]


@pytest.mark.parametrize("value", [-0.5, 10.5, "fast", True, float("inf")])
def test_a_bad_bot_delay_is_a_422_naming_it(client: FlaskClient, value: object) -> None:
    body = json.dumps({"game": "hazari", "options": {"bot_delay_s": value}})
    r = client.post("/games", data=body, content_type="application/json")
    assert r.status_code == 422, r.get_json()
    assert r.get_json()["option"] == "bot_delay_s"


@pytest.mark.parametrize(
    ("game", "seats", "known"),
    [
        ("murlan", None, ["bot_delay_s", "exchange_min_rank", "straight_beats", "turn_timeout_s"]),
        ("hazari", None, ["bot_delay_s", "target", "turn_timeout_s"]),
        (
            "azi",
            2,
            [
                "ante",
                "azi_buy_in",
                "bot_delay_s",
                "buy_in",
                "cards",
                "deck",
                "min_bet",
                "six_on_stage",
                "turn_timeout_s",
            ],
        ),
    ],
)
def test_an_unknown_option_lists_every_known_one(
    client: FlaskClient, game: str, seats: int | None, known: list[str]
) -> None:
    body: dict[str, Any] = {"game": game, "options": {"turn_timout_s": 30}}
    if seats:
        body["seats"] = seats
    r = _create(client, body)
    problem = r.get_json()
    assert r.status_code == 422 and problem["code"] == "option-unknown"
    assert problem["option"] == "turn_timout_s" and problem["params"]["known"] == known
    assert f"known: {', '.join(known)}" in problem["detail"]


def test_a_table_with_bots_named_at_creation_verifies(
    client: FlaskClient, service: GameService
) -> None:
    """Bots seated at the seats the creation named (not the lowest free ones) are
    checked as such; a bot put at a chosen seat once a person sits is not."""
    from dataclasses import replace

    from service.engines import table
    from service.replay import RecordedEvent, audit

    bots = [{"seat": 1, "name": "Ana"}, {"seat": 3, "name": "Blerim"}]
    game_id = _create(client, {"game": "murlan", "bots": bots}).get_json()["game_id"]
    for name in ("p", "q"):
        assert client.post(f"/games/{game_id}/seats", json={"name": name}).status_code == 201
    seed = service.store.get_secret(game_id)
    assert seed is not None
    stored = service.store.read(game_id, 0, 1000)
    recorded = [RecordedEvent(s.version, s.event) for s in stored]
    assert audit(recorded, seed.hex()).ok

    # the same seats, a person first: the bot's chosen seat is then out of order
    seats = [r for r in recorded if isinstance(r.event, table.SeatTaken)]
    person = next(r for r in seats if not r.event.bot)
    opening = [r for r in recorded if r.version < seats[0].version]
    moved = [person, *[r for r in seats[:3] if r is not person]]
    rest = [r for r in recorded if r.version > seats[2].version]
    renumbered = [replace(r, version=i + 1) for i, r in enumerate([*opening, *moved, *rest])]
    assert not audit(renumbered, seed.hex()).ok
