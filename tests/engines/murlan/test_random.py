"""Whole random Murlan matches: cards conserved, 3+2+1+0 a hand, every move
taken from ``legal_moves`` and every listed move accepted, replay equal to
the live state, through the engine, through the table, and by fast playout.

``MURLAN_MATCHES`` raises the number of engine-level matches (default 100;
the playout test adds 600 more).
"""

from __future__ import annotations

import os
import random
from collections import Counter
from typing import Any

from service.devstack import new_game, play
from service.engines import table
from service.engines.base import HIDDEN
from service.engines.murlan import ENGINE
from service.engines.murlan.combos import DECK_SIZE
from service.engines.murlan.events import (
    CardGiven,
    CardGivenBack,
    ExchangeSkipped,
    HandDealt,
    TopTied,
)
from service.engines.murlan.playout import play_out
from service.engines.murlan.state import PLAYING, MurlanState
from service.engines.shuffle import Shuffler
from tests.engines.murlan.support import random_match

MATCHES = int(os.environ.get("MURLAN_MATCHES", "100"))
PLAYOUT_MATCHES = 600


def options_for(seed: int) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if seed % 2:
        options["straight_beats"] = "any_higher"
    if seed % 3 == 0:
        options["exchange_min_rank"] = 3
    return options


def test_random_matches_through_the_engine() -> None:
    seen: Counter[str] = Counter()
    hands = positions = 0
    for seed in range(MATCHES):
        log = random_match(seed, options_for(seed), check_every=37)
        hands += log.hands
        positions += log.checked_positions
        seen.update(type(e).__name__ for e in log.events)
    assert hands >= MATCHES * 7  # reaching 21 takes at least 7 hands of 3 points
    assert positions > MATCHES * 10
    # the random matches reach every kind of event
    for cls in ENGINE.event_types:
        if cls not in (ExchangeSkipped, TopTied):  # rare: checked on built positions
            assert seen[cls.type] > 0, cls.type
    assert seen["TargetRaised"] > 0 and seen["MatchWon"] == MATCHES


def test_matches_through_the_table_replay_and_hide_cards() -> None:
    for seed in range(4):
        rng = random.Random(seed)
        played = play(new_game("murlan", options_for(seed), rng=rng), rng)
        state = played.state
        assert state.over and played.moves
        assert table.fold(played.events) == state
        result = ENGINE.result(state.engine_state)
        assert len(result["winners"]) == 1
        moves = [e.move_body() for e in played.events if e.move_body() is not None]
        assert len(moves) == len(played.moves)
        for body, (_, sent) in zip(moves, played.moves, strict=True):
            assert body == sent  # legal_moves lists canonical bodies, recorded as sent
        check_redaction(played.events)
        for seat in range(4):
            view = table.view(state, seat)
            assert view["legal_moves"] == [] and view["result"] == result


def check_redaction(events: list[Any]) -> None:
    for viewer in (None, 0, 1, 2, 3):
        for event in events:
            seen = event.redact(viewer)
            if isinstance(event, HandDealt):
                for seat, hand in enumerate(seen.hands):
                    assert (hand == event.hands[seat]) == (seat == viewer) or not hand
                    assert len(hand) == len(event.hands[seat])
            elif isinstance(event, (CardGiven, CardGivenBack)):
                party = viewer in (
                    (event.from_seat, event.to_seat)
                    if isinstance(event, CardGiven)
                    else (event.seat, event.to_seat)
                )
                assert (seen.card == event.card) == party
                assert party or seen.card == HIDDEN
            else:
                assert seen == event


# -- the fast playout -------------------------------------------------------------------
def through_engine(state: MurlanState, choices: list[tuple[int, int]]) -> MurlanState:
    """Make ``choices`` (``(n, k)`` pairs) as moves ``legal_moves[k]`` through decide/apply."""
    for n, k in choices:
        (seat,) = ENGINE.to_act(state)
        legal = ENGINE.legal_moves(state, seat)
        assert len(legal) == n
        state = ENGINE.fold(state, ENGINE.decide(state, seat, legal[k]))
    assert state.phase != PLAYING
    return state


def test_play_out_equals_moving_through_the_engine() -> None:
    rng = random.Random(7)
    compared = 0
    for seed in range(40):
        shuffler = Shuffler(rng.randbytes(32), f"p-{seed}", ("a", "b", "c", "d"))
        state = ENGINE.initial(ENGINE.parse_options(options_for(seed)), 4)
        while not ENGINE.is_over(state):
            if ENGINE.pending(state) is not None:
                state = ENGINE.fold(state, ENGINE.advance(state, shuffler))
                continue
            if state.phase != PLAYING or rng.random() < 0.7:
                (seat,) = ENGINE.to_act(state)
                move = rng.choice(ENGINE.legal_moves(state, seat))
                state = ENGINE.fold(state, ENGINE.decide(state, seat, move))
                continue
            choices: list[tuple[int, int]] = []

            def choose(n: int, choices: list[tuple[int, int]] = choices) -> int:
                k = rng.randrange(n)
                choices.append((n, k))
                return k

            fast = play_out(state, choose)
            assert fast == through_engine(state, choices)
            compared += 1
            state = fast
    assert compared > 100


def test_many_matches_by_playout_keep_the_scoring_rules() -> None:
    rng = random.Random(11)
    rnd = rng.random

    def choose(n: int) -> int:
        return int(rnd() * n)

    raised = 0
    for seed in range(PLAYOUT_MATCHES):
        shuffler = Shuffler(rng.randbytes(32), f"m-{seed}", ("a", "b", "c", "d"))
        state = ENGINE.initial(ENGINE.parse_options(options_for(seed)), 4)
        while not ENGINE.is_over(state):
            before = state.match
            events = ENGINE.advance(state, shuffler)
            state = ENGINE.fold(state, events)
            held = sorted(c for hand in state.deal.hands for c in hand)
            assert held == list(range(DECK_SIZE))
            if state.phase != PLAYING:
                (seat,) = ENGINE.to_act(state)
                legal = ENGINE.legal_moves(state, seat)
                assert any(isinstance(e, CardGiven) for e in events)
                state = ENGINE.fold(state, ENGINE.decide(state, seat, legal[choose(len(legal))]))
            state = play_out(state, choose)
            after = state.match
            gained = [a - b for a, b in zip(after.scores, before.scores, strict=True)]
            assert sorted(gained) == [0, 1, 2, 3]
            assert [gained[s] for s in after.last_order] == [3, 2, 1, 0]
            assert all(not state.deal.hands[s] for s in after.last_order[:3])
            assert after.target in (before.target, before.target + 10) and after.target <= 51
            raised += after.target > before.target
            reached = [s for s in range(4) if after.scores[s] >= before.target]
            if ENGINE.is_over(state):
                assert after.winner == max(range(4), key=lambda s: after.scores[s])
                assert after.scores.count(max(after.scores)) == 1
                assert len(reached) == 1 or before.target == 51
            else:
                assert len(reached) != 1
    assert raised > 0
