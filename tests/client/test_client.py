"""The client against a real server: typed answers, problems as exceptions,
automatic idempotency keys, a 409 decided again, ``Retry-After`` honoured and
a silent stream noticed."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from cardroom_client import (
    CardroomError,
    Client,
    GaveUp,
    Move,
    ProblemError,
    RetryPolicy,
    View,
    models,
)

from service.devstack import Serve

from .faults import LosingTransport

pytestmark = pytest.mark.xdist_group("client-server")


def four_seats(client: Client, game: str = "hazari") -> tuple[str, list[str]]:
    created = client.create_game(game, options={"target": 360} if game == "hazari" else None)
    tokens = [client.take_seat(created.game_id, f"p{i}").token for i in range(4)]
    assert all(tokens)
    return created.game_id, [t for t in tokens if t]


def test_every_read_is_typed(server: Serve) -> None:
    with Client(server.url) as client:
        game_id, tokens = four_seats(client)
        view = client.view(game_id, tokens[0])
        assert isinstance(view, models.HazariView) and view.seat == 0
        assert view.hand and len(view.hand) == 13
        page = client.events(game_id, tokens[0], after=0, limit=3)
        assert [e.version for e in page.events] == [1, 2, 3]
        listed = client.list_games(game="hazari", limit=5)
        assert game_id in [item.game_id for item in listed.items]
        assert client.healthz().status == "ok"
        assert client.livez().status == "ok"
        assert client.replay(game_id).format == "cardroom-replay-v1"
        assert "paths" in client.openapi()


def test_a_refusal_is_a_problem_error_with_its_fields(server: Serve) -> None:
    with Client(server.url) as client, pytest.raises(ProblemError) as caught:
        client.create_game("murlan", options={"turn_timeout_s": -5})
    error = caught.value
    assert error.status == 422
    assert error.type.endswith("/bad-option")
    assert error.code.startswith("option")
    assert error.params["option"] == "turn_timeout_s"
    assert error.extensions["option"] == "turn_timeout_s"
    assert error.request_id


def test_a_lost_answer_is_sent_again_with_its_key_and_lands_once(server: Serve) -> None:
    losing = LosingTransport("/moves")
    with Client(server.url) as setup, Client(server.url, transport=losing) as client:
        game_id, tokens = four_seats(setup)
        before = setup.view(game_id).version
        move = setup.view(game_id, tokens[0]).legal_moves
        assert move
        accepted = client.move(game_id, tokens[0], move[0])
        assert losing.lost and losing.lost[0].status_code == 201
        assert accepted.version == setup.view(game_id).version == before + 1


def test_a_stale_view_is_read_again_and_decided_again(server: Serve) -> None:
    with Client(server.url) as client:
        game_id, tokens = four_seats(client)
        stale = client.view(game_id, tokens[0])
        other = client.view(game_id, tokens[1])
        assert other.legal_moves
        client.move(game_id, tokens[1], other.legal_moves[0])
        seen: list[int] = []

        def decide(view: View) -> Move:
            seen.append(view.version)
            assert view.legal_moves
            return view.legal_moves[0]

        accepted = client.play(game_id, tokens[0], decide, stale)
    assert accepted is not None
    assert seen == [stale.version, stale.version + 1]


def test_retry_after_is_honoured(own_server: Callable[..., Serve]) -> None:
    serve = own_server(CARDROOM_LIMIT_MOVES="20/minute")
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        time.sleep(seconds)

    impatient = RetryPolicy(retry_for_s=0)
    with (
        Client(serve.url, policy=impatient) as setup,
        Client(serve.url, policy=RetryPolicy(sleep=sleep)) as client,
    ):
        game_id, tokens = four_seats(setup)
        view = setup.view(game_id, tokens[0])
        assert view.legal_moves
        refused: list[int] = []
        while 429 not in refused and len(refused) < 40:  # spend seat 0's budget
            with pytest.raises(CardroomError) as caught:
                setup.move(game_id, tokens[0], {"action": "pass"})
            error = caught.value
            cause = error if isinstance(error, ProblemError) else error.__cause__
            assert isinstance(cause, ProblemError)
            refused.append(cause.status)
        assert isinstance(caught.value, GaveUp) and refused[-1] == 429, refused
        accepted = client.move(game_id, tokens[0], view.legal_moves[0])
    assert accepted.version == view.version + 1
    assert slept and all(0 < s <= 4 for s in slept), slept


def test_a_silent_stream_is_noticed_and_resumed(server: Serve) -> None:
    """No line for twice the keep-alive: the client reconnects from its cursor."""
    with Client(server.url, keepalive_s=0.2) as client:
        created = client.create_game("murlan")
        stream = client.stream(created.game_id, after=0)
        lines = [next(stream) for _ in range(2)]
        assert [line.kind for line in lines] == ["view", "event"]
        lines += [next(stream) for _ in range(2)]  # each after a silence: a new view
        client.take_seat(created.game_id, "late")
        while lines[-1].kind != "event":
            lines.append(next(stream))
        stream.close()
    assert stream.stats.silences >= 2
    assert stream.stats.connections >= 3
    events = [line.version for line in lines if line.kind == "event"]
    assert events == [1, 2]
