"""``/games/{id}/rematch``: the same game, options and seats again once every person at an
ended table asked; each seat's place in the next game given only to its own token."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from service.games import GameService
from service.store import keys

from .helpers import Api, bearer

YEARS_ON = 10**13  # ms: a clock past any idle limit, to end a table at once


def table_of(
    api: Api, service: GameService, game: str, people: int, **create: Any
) -> tuple[str, list[str]]:
    """A started table of ``people`` persons (seats 0…) and bots; its id and the tokens."""
    made = api.create(game, create.get("options"), create.get("seats"))
    game_id = made["game_id"]
    tokens = []
    for n in range(made["seats"]):
        if n < people:
            r = api.join(game_id, f"Person {n}")
            tokens.append(r.get_json()["token"])
        else:
            r = api.join(game_id, f"Bot {n}", bot=True)
        assert r.status_code == 201
        r.close()
    return game_id, tokens


def ended(service: GameService, game_id: str) -> None:
    assert service.abandon_if_idle(game_id, now_ms=YEARS_ON) or service.load(game_id).over
    assert service.load(game_id).over


def ask(client: FlaskClient, game_id: str, token: str | None, method: str = "post") -> Any:
    return getattr(client, method)(f"/games/{game_id}/rematch", headers=bearer(token))


def test_a_rematch_before_the_end_is_refused_and_changes_nothing(
    api: Api, client: FlaskClient, service: GameService
) -> None:
    game_id, tokens = table_of(api, service, "murlan", 1, options={"turn_timeout_s": 600})
    r = ask(client, game_id, tokens[0])
    assert r.status_code == 409 and r.mimetype == "application/problem+json"
    body = r.get_json()
    assert body["type"].endswith("/game-not-over") and body["code"] == "game-not-over"
    status = ask(client, game_id, tokens[0], "get").get_json()
    assert status["confirmed"] == [1, 2, 3] and status["waiting_for"] == [0]
    assert status["next"] is None


def test_who_may_ask(api: Api, client: FlaskClient, service: GameService) -> None:
    game_id, tokens = table_of(api, service, "murlan", 1)
    ended(service, game_id)
    assert ask(client, game_id, None).status_code == 401
    assert ask(client, game_id, "x" * 43).status_code == 403
    assert ask(client, "no-such-game", tokens[0]).status_code == 404
    for method in ("post", "get"):
        r = ask(client, game_id, "x" * 43, method)
        assert r.status_code == 403 and r.mimetype == "application/problem+json"


def test_the_last_person_to_ask_opens_the_next_game_at_the_same_seats(
    api: Api, client: FlaskClient, service: GameService
) -> None:
    options = {"target": 500, "turn_timeout_s": 90}
    game_id, tokens = table_of(api, service, "hazari", 2, options=options)
    ended(service, game_id)
    first = ask(client, game_id, tokens[0]).get_json()
    assert (first["seat"], first["confirmed"], first["waiting_for"]) == (0, [0, 2, 3], [1])
    assert first["next"] is None
    assert ask(client, game_id, tokens[0]).get_json() == first  # asking again changes nothing
    last = ask(client, game_id, tokens[1]).get_json()
    assert last["waiting_for"] == [] and last["confirmed"] == [0, 1, 2, 3]
    nxt = last["next"]
    assert nxt["seat"] == 1 and nxt["game_id"] != game_id
    old, new = service.load(game_id), service.load(nxt["game_id"])
    assert new.kind == "hazari" and new.options == old.options and new.seated
    assert [(s.name, s.bot) for s in new.seats] == [(s.name, s.bot) for s in old.seats]
    # each person's place, only to their own token, and the same on every ask
    mine = ask(client, game_id, tokens[0], "get").get_json()["next"]
    assert mine["seat"] == 0 and mine["game_id"] == nxt["game_id"]
    assert ask(client, game_id, tokens[0]).get_json()["next"] == mine
    assert mine["token"] != nxt["token"]
    assert api.view(nxt["game_id"], mine["token"])["seat"] == 0
    assert api.view(nxt["game_id"], nxt["token"])["seat"] == 1
    # the tokens are derived, never kept: not in the rematch's record
    kept = service.store.rematches._redis.hgetall(keys.rematch(game_id))
    assert not any(
        t.encode() in v or t.encode() in k
        for t in (mine["token"], nxt["token"])
        for k, v in kept.items()
    )


def test_an_azi_rematch_keeps_its_seat_count_and_stacks_option(
    api: Api, client: FlaskClient, service: GameService
) -> None:
    game_id, tokens = table_of(api, service, "azi", 1, seats=3, options={"buy_in": 300})
    ended(service, game_id)
    nxt = ask(client, game_id, tokens[0]).get_json()["next"]
    new = service.load(nxt["game_id"])
    assert new.seat_count == 3 and new.options["buy_in"] == 300 and nxt["seat"] == 0
