"""``/games/{id}/messages``: preset table messages, codes only, one per seat every 3 s,
heard on the live stream."""

from __future__ import annotations

import json
import threading

from flask.testing import FlaskClient

from schemas.api import STREAM_LINE
from service.api.live import NdjsonLines, Opened, follow, open_game
from service.games import GameService
from service.hub import Hub

from .helpers import Api, bearer


def seated(api: Api) -> tuple[str, list[str]]:
    made = api.create("murlan", {"turn_timeout_s": 600})
    tokens = []
    for n in range(2):
        r = api.join(made["game_id"], f"P{n}")
        tokens.append(r.get_json()["token"])
        r.close()
    return made["game_id"], tokens


def say(client: FlaskClient, game_id: str, token: str | None, body: object) -> object:
    return client.post(f"/games/{game_id}/messages", json=body, headers=bearer(token))


def test_a_seat_says_a_preset_message_and_it_is_listed(api: Api, client: FlaskClient) -> None:
    game_id, tokens = seated(api)
    r = say(client, game_id, tokens[1], {"code": "good_luck"})
    assert r.status_code == 201
    said = r.get_json()
    assert (said["seat"], said["code"]) == (1, "good_luck") and said["at"] > 0
    listed = client.get(f"/games/{game_id}/messages").get_json()["items"]
    assert listed == [said]


def test_one_message_per_seat_every_three_seconds(api: Api, client: FlaskClient) -> None:
    game_id, tokens = seated(api)
    assert say(client, game_id, tokens[0], {"code": "hello"}).status_code == 201
    again = say(client, game_id, tokens[0], {"code": "thanks"})
    assert again.status_code == 429 and again.mimetype == "application/problem+json"
    problem = again.get_json()
    assert problem["code"] == "rate-limited" and problem["budget"] == "messages"
    assert 1 <= int(again.headers["Retry-After"]) <= 3
    # another seat has its own gap
    assert say(client, game_id, tokens[1], {"code": "hello"}).status_code == 201
    codes = [m["code"] for m in client.get(f"/games/{game_id}/messages").get_json()["items"]]
    assert codes == ["hello", "hello"]


def test_no_free_text_and_no_stranger(api: Api, client: FlaskClient) -> None:
    game_id, tokens = seated(api)
    for body in ({"code": "you are bad"}, {"code": "hello", "text": "hi"}, {}):
        r = say(client, game_id, tokens[0], body)
        assert r.status_code == 422 and r.mimetype == "application/problem+json", body
    assert say(client, game_id, None, {"code": "hello"}).status_code == 401
    assert say(client, game_id, "x" * 43, {"code": "hello"}).status_code == 403
    assert say(client, "no-such-game", tokens[0], {"code": "hello"}).status_code == 404
    assert client.get("/games/no-such-game/messages").status_code == 404
    assert client.get(f"/games/{game_id}/messages").get_json()["items"] == []


def test_the_live_stream_carries_each_message_said(api: Api, service: GameService) -> None:
    game_id, _ = seated(api)
    service.store.talk.say(game_id, 0, "hello")  # before the stream: not repeated on it
    hub = Hub(service.store, NdjsonLines(service.store))
    signal = threading.Event()
    state = service.load(game_id)
    first, following = open_game(service, hub, state, None, None, 50, False, signal)
    body = Opened(follow(first, following, signal, keepalive_ms=50))
    lines = (text for text in body if text)  # not the empty texts after long ones
    assert json.loads(next(lines))["kind"] == "view"
    service.store.talk.say(game_id, 1, "well_played")
    line = json.loads(next(lines))
    assert STREAM_LINE.validate_python(line).message.code == "well_played"  # typed
    assert (line["message"]["seat"], line["message"]["code"]) == (1, "well_played")
    assert json.loads(next(lines))["kind"] == "keepalive"  # and nothing more until then
    body.close()
    assert not hub.watches  # the stream's game and its talk are no longer read


def test_messages_are_read_after_the_last_one_had(api: Api, client: FlaskClient) -> None:
    """A client polling the messages passes the last id it has: each message comes once."""
    game_id, tokens = seated(api)
    path = f"/games/{game_id}/messages"
    assert client.get(f"{path}?after=0-0").get_json()["items"] == []
    first = say(client, game_id, tokens[0], {"code": "hello"}).get_json()
    second = say(client, game_id, tokens[1], {"code": "oops"}).get_json()
    assert client.get(f"{path}?after=0-0").get_json()["items"] == [first, second]
    assert client.get(f"{path}?after={first['id']}").get_json()["items"] == [second]
    assert client.get(f"{path}?after={second['id']}").get_json()["items"] == []
    for bad in ("x", "12", "1-2-3", "-1-0", "1 -0"):
        r = client.get(f"{path}?after={bad}")
        assert r.status_code == 400 and r.mimetype == "application/problem+json", bad
        assert r.get_json()["field"] == "after"
    assert client.get(f"{path}?after=0-0&after=0-0").status_code == 400
    assert client.get(f"{path}?since=0-0").status_code == 422
