"""The contract every engine in the registry keeps, checked on random games.

Each game is played with random legal moves through the pure table
(``service.engines.table``) and, after every step:

- folding the engine's own events from :meth:`Engine.initial` gives the live
  engine state (and folding all the table's events gives the live table);
- every listed legal move is accepted by ``decide``, which changes nothing;
- a move that is not listed (an unknown action, or a seat moving out of
  turn) is refused with a :class:`RuleError` naming its rule;
- a seat's view shows no card now in another seat's hand that the public
  view does not show (save cards first dealt to the viewer), and redacted
  deal events show only the viewer's own hand;
- no deal gives the same card twice.

The per-game tests under ``tests/engines/<game>/`` check each game's rules in
depth; this module is what a new engine must pass to join the registry.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.devstack import PlayedGame, new_game, push, run_system_steps
from service.engines import table
from service.engines.base import HIDDEN, Engine, Event, RuleError
from service.engines.registry import GAMES, engine_for

STEPS = 150
"""Moves per game: enough to cross several deals, short enough to run fast."""
LISTED_CHECKED = 12
"""At most this many listed moves per seat and step go through ``decide``."""
RULE_CODE = re.compile(r"^[a-z][a-z0-9_]*$")
UNKNOWN = {"action": "no_such_action", "cards": ["no such card"]}


def strings(value: Any) -> set[str]:
    """Every string anywhere in a JSON-ready value (keys included)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {k for k in value if isinstance(k, str)} | {
            s for v in value.values() for s in strings(v)
        }
    if isinstance(value, list | tuple | set | frozenset):
        return {s for v in value for s in strings(v)}
    return set()


def last_deal(events: list[Event]) -> Event | None:
    return next((e for e in reversed(events) if e.is_deal), None)


def check_replay(played: PlayedGame, engine: Engine[Any], engine_state: Any) -> None:
    assert engine_state == played.state.engine_state


def check_moves(state: table.Table, engine: Engine[Any], rng: random.Random) -> None:
    es = state.engine_state
    to_act = engine.to_act(es)
    for seat in to_act:
        legal = engine.legal_moves(es, seat)
        assert legal, f"seat {seat} must act but lists no move"
        for move in rng.sample(legal, min(len(legal), LISTED_CHECKED)):
            assert table.decide(state, seat, move), f"{move} by seat {seat} caused nothing"
        assert state.engine_state is es
        with pytest.raises(RuleError) as refused:
            table.decide(state, seat, UNKNOWN)
        assert RULE_CODE.match(refused.value.rule), refused.value.rule
    waiting = [s for s in range(state.seat_count) if s not in to_act]
    if to_act and waiting:
        seat = rng.choice(waiting)
        own = engine.legal_moves(es, seat)
        others = [m for m in engine.legal_moves(es, to_act[0]) if m not in own]
        if others:
            with pytest.raises(RuleError) as refused:
                table.decide(state, seat, others[0])
            assert RULE_CODE.match(refused.value.rule), refused.value.rule


def check_hidden(state: table.Table, engine: Engine[Any], deal: Event | None) -> None:
    """A seat sees no card now in another seat's hand beyond what the public
    sees, save cards dealt to itself (a card it gave away, where the rules
    have one change hands)."""
    if deal is None or state.over:
        return
    hands: tuple[tuple[str, ...], ...] = deal.hands  # type: ignore[attr-defined]
    dealt = [c for h in hands for c in h]
    assert len(dealt) == len(set(dealt)), f"a card dealt twice in {deal}"
    public = strings(engine.view(state.engine_state, None))
    views = [engine.view(state.engine_state, seat) for seat in range(len(hands))]
    now = [strings(v.get("hand", [])) for v in views]
    for viewer, own in enumerate(hands):
        others = set().union(*(h for seat, h in enumerate(now) if seat != viewer))
        seen = strings(views[viewer]) - public - set(own)
        assert not seen & others, f"seat {viewer} sees {sorted(seen & others)} of others"
        redacted: tuple[tuple[str, ...], ...] = table.redact(state, deal, viewer).hands  # type: ignore[attr-defined]
        for seat, hand in enumerate(redacted):
            expected = hands[seat] if seat == viewer else tuple(HIDDEN for _ in hands[seat])
            assert hand == expected


def seats_for(game: str, rng: random.Random) -> int:
    engine = engine_for(game)
    return rng.randint(engine.min_seats, min(engine.max_seats, 4))


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_every_engine_keeps_the_contract(game: str, seed: int) -> None:
    rng = random.Random(seed)
    engine = engine_for(game)
    played = new_game(game, seats=seats_for(game, rng), rng=rng, game_id=f"conf-{seed}")
    options = {k: v for k, v in played.state.options.items() if k not in table.COMMON_OPTIONS}
    engine_state = engine.initial(options, played.state.seat_count)
    folded = 0
    for _ in range(STEPS):
        run_system_steps(played)
        for event in played.events[folded:]:
            if not isinstance(event, table.TABLE_EVENTS):
                engine_state = engine.apply(engine_state, event)
        folded = len(played.events)
        check_replay(played, engine, engine_state)
        state = played.state
        check_hidden(state, engine, last_deal(played.events))
        if state.over:
            break
        check_moves(state, engine, rng)
        seat = rng.choice(list(engine.to_act(state.engine_state)))
        move = rng.choice(engine.legal_moves(state.engine_state, seat))
        push(played, table.decide(state, seat, move))
    assert table.fold(played.events) == played.state
