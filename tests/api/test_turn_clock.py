"""Views say when the running turn of each seat times out (``turn_limit_s``,
``turn_deadlines_ms``), from the stored time of the event its turn began with."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from service.engines import table
from service.games import GameService

from .helpers import Api, bearer
from .test_events import NDJSON, read_lines


def turn_began(api: Api, game_id: str, seat: int) -> int:
    """The time of the event from which ``seat`` has been to act without a break,
    found by folding the stored events and asking the engine who is to act."""
    states: list[table.Table] = []
    state: table.Table | None = None
    stored = api.service.store.read(game_id)
    for s in stored:
        state = table.apply(state, s.event)
        states.append(state)
    assert state is not None and seat in state.engine.to_act(state.engine_state)
    first = len(states) - 1
    while first > 0 and seat in states[first - 1].engine.to_act(states[first - 1].engine_state):
        first -= 1
    at = stored[first].at_ms
    assert at is not None
    return at


def test_the_seat_to_act_has_a_deadline_of_its_turn_start_plus_the_limit(api: Api) -> None:
    tab = api.table("murlan")
    view = api.view(tab.game_id)
    assert view["turn_limit_s"] == 60 and view["options"]["turn_timeout_s"] == 60
    (seat,) = view["to_act"]
    deadlines = view["turn_deadlines_ms"]
    assert deadlines[seat] == turn_began(api, tab.game_id, seat) + 60_000
    assert [d for s, d in enumerate(deadlines) if s != seat] == [None, None, None]
    # the same in the seat's own view and in another seat's
    assert api.view(tab.game_id, tab.tokens[seat])["turn_deadlines_ms"] == deadlines
    assert api.view(tab.game_id, tab.tokens[(seat + 1) % 4])["turn_deadlines_ms"] == deadlines

    mine = api.view(tab.game_id, tab.tokens[seat])
    assert api.move(tab.game_id, tab.tokens[seat], mine["legal_moves"][0]).status_code == 201
    after = api.view(tab.game_id)
    (nxt,) = after["to_act"]
    last = api.events(tab.game_id)[-1]
    assert after["turn_deadlines_ms"][nxt] == last["at_ms"] + 60_000
    assert after["turn_deadlines_ms"][seat] is None


def test_a_table_s_own_limit_and_no_limit(api: Api) -> None:
    tab = api.table("murlan", {"turn_timeout_s": 30})
    view = api.view(tab.game_id)
    (seat,) = view["to_act"]
    assert view["turn_limit_s"] == 30
    assert view["turn_deadlines_ms"][seat] == turn_began(api, tab.game_id, seat) + 30_000

    free = api.table("murlan", {"turn_timeout_s": 0})
    view = api.view(free.game_id)
    assert view["to_act"] and view["turn_limit_s"] is None
    assert view["turn_deadlines_ms"] == [None, None, None, None]


def test_seats_acting_together_and_a_table_still_seating(api: Api) -> None:
    tab = api.table("hazari")
    view = api.view(tab.game_id)
    assert view["to_act"] == [0, 1, 2, 3]
    began = turn_began(api, tab.game_id, 0)
    assert view["turn_deadlines_ms"] == [began + 60_000] * 4

    waiting = api.create("murlan")["game_id"]
    assert api.join(waiting, "ann").status_code == 201
    view = api.view(waiting)
    assert view["status"] == "seating" and view["turn_limit_s"] == 60
    assert view["turn_deadlines_ms"] == [None, None, None, None]


def test_a_seat_the_bot_plays_has_no_deadline(api: Api) -> None:
    """A bot moves at once (the workers' delay aside), so it has no countdown."""
    for _ in range(40):
        gid = api.create("murlan")["game_id"]
        for i in range(3):
            assert api.join(gid, f"player {i}").status_code == 201
        assert api.join(gid, "Bot 1", bot=True).status_code == 201
        view = api.view(gid)
        if view["to_act"] == [3]:
            assert view["turn_deadlines_ms"] == [None, None, None, None]
            return
    raise AssertionError("the bot never held the first turn in 40 deals")


def test_the_stream_s_views_carry_the_same_clock(
    api: Api, client: FlaskClient, service: GameService
) -> None:
    tab = api.table("murlan")
    view = api.view(tab.game_id, tab.tokens[0])
    lines: list[Any] = read_lines(
        client, f"/games/{tab.game_id}/events?views=true", {**NDJSON, **bearer(tab.tokens[0])}, 1
    )
    assert lines[0]["kind"] == "view"
    streamed = lines[0]["view"]
    assert streamed["turn_deadlines_ms"] == view["turn_deadlines_ms"]
    assert streamed["turn_limit_s"] == view["turn_limit_s"] == 60


def test_a_seat_that_moves_and_acts_again_starts_a_new_turn() -> None:
    """In Murlan a seat whose play nobody can follow leads again at once: its turn
    starts over from that play (the workers time it out from there too)."""
    seen = 0
    for round_ in range(30):
        state = table.fold(table.create(f"g{round_}", "murlan", {}, 4, "c" * 64))
        for i in range(4):
            state = table.fold(table.take_seat(state, f"p{i}", f"s{i}"), state)
        seed = bytes([round_ + 1]) * 32
        while not state.over:
            if table.pending(state):
                events = table.advance(state, seed)
            else:
                seat = min(table.acting(state))
                events = table.decide(state, seat, state.engine.bot_move(state.engine_state, seat))
            for event in events:
                before = state
                state = table.apply(state, event)
                mover = getattr(event, "seat", None)
                for s in table.acting(state):
                    if s == mover or s not in table.acting(before):
                        assert state.turn_since[s] == state.version
                    else:
                        assert state.turn_since[s] == before.turn_since[s]
                    if s == mover and s in table.acting(before):
                        seen += 1
                assert all(
                    state.turn_since[s] == 0 for s in range(4) if s not in table.acting(state)
                )
        if seen:
            return
    raise AssertionError("no seat acted twice in a row in 30 Murlan matches")


def test_the_table_page_tells_the_time_the_deadlines_are_in(api: Api) -> None:
    """The page's countdown measures the device's clock against Redis's (the clock
    of ``turn_deadlines_ms``), not against the API process's own."""
    store = api.service.store
    for send in (api.client.get, api.client.head):
        before = store.now_ms()
        r = send("/table/some-game")
        after = store.now_ms()
        assert r.status_code == 200
        assert before <= int(r.headers["X-Cardroom-Clock-Ms"]) <= after
