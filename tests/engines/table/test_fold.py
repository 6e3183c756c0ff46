"""``fold`` (runs of engine events handed to the engine alone) against ``apply``
event by event, from the start and from any state along the way."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.devstack import new_game, play
from service.engines import table
from service.engines.base import Event


def played_events(game: str, seed: int) -> list[Event]:
    rng = random.Random(seed)
    seats = 4 if game == "azi" else None  # Azi is played by 2 to 6
    played = new_game(game, seats=seats, rng=rng, game_id=f"fold-{seed}")
    play(played, rng, until=lambda state: state.version > 120)
    return played.events


def with_table_events(events: list[Event], rng: random.Random, count: int) -> list[Event]:
    """``events`` with table events of the bookkeeping kind put in at random
    places after the seats are taken (they fold the same anywhere)."""
    out = list(events)
    seats = sum(isinstance(e, table.SeatTaken) for e in events)
    for _ in range(count):
        seat = rng.randrange(seats)
        extra = rng.choice(
            [table.TurnTimedOut(seat, 60.0), table.SeatAway(seat, 2), table.SeatBack(seat)]
        )
        out.insert(rng.randrange(seats + 1, len(out) + 1), extra)
    return out


def step_by_step(events: list[Event], state: table.Table | None = None) -> list[table.Table]:
    states = []
    for event in events:
        state = table.apply(state, event)
        states.append(state)
    return states


@pytest.mark.parametrize("game", ["murlan", "azi", "hazari"])
@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 12))
def test_fold_is_apply_event_by_event(game: str, seed: int, extra: int) -> None:
    events = with_table_events(played_events(game, seed), random.Random(seed), extra)
    states = step_by_step(events)
    assert table.fold(events) == states[-1]
    for cut in range(1, len(events), 7):
        assert table.fold(events[cut:], states[cut - 1]) == states[-1]
        assert table.fold(events[:cut]) == states[cut - 1]
    assert table.fold([], states[10]) is states[10]


def test_fold_refuses_what_apply_refuses() -> None:
    events = played_events("murlan", 1)
    with pytest.raises(ValueError, match="no events"):
        table.fold([])
    with pytest.raises(ValueError, match="before GameCreated"):
        table.fold(events[1:])
    with pytest.raises(ValueError, match="must be the first event"):
        table.fold([*events[:40], events[0]])
