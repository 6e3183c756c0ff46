"""Thousands of random Azi matches at 2-6 seats, checked after every event.

Random players pick uniformly among the listed legal bodies (a listed bet
becomes a uniform amount in the allowed range); now and then a player
leaves, on his turn or not. Small stacks against the ante keep matches
short; the engine itself has no cap. After every event: chips are
conserved and no card is lost or duplicated. After every match: the
results add up to zero, every move came from ``legal_moves``, settlements
match the pure function, and replaying the events (also through JSON)
rebuilds the live state.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from service.devstack import PlayedGame, new_game, push, run_system_steps
from service.engines import table
from service.engines.azi import ENGINE
from service.engines.azi.cards import deck
from service.engines.azi.events import BiddingEnded, Discarded, HandDealt, PotSettled, PotWon
from service.engines.azi.settle import settle_pot
from service.engines.azi.state import AziState
from service.engines.base import HIDDEN, Event, RuleError
from service.engines.shuffle import Shuffler
from tests.engines.azi.support import assert_listed, check

MATCHES = 1000


def random_options(rng: random.Random) -> dict[str, Any]:
    return {
        "buy_in": rng.choice([20, 30, 50, 100]),
        "ante": 10,
        "min_bet": rng.choice([5, 10, 20]),
        "cards": rng.choice([3, 4]),
        "deck": rng.choice([27, 36]),
        "six_on_stage": rng.random() < 0.7,
        "azi_buy_in": rng.choice(["half_pot", "half_pot", "closed"]),
    }


def random_move(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    bodies = [m for m in legal if m["action"] != "leave"]
    move = rng.choice(bodies)
    if move["action"] == "bet":
        amounts = [m["amount"] for m in bodies if m["action"] == "bet"]
        return {"action": "bet", "amount": rng.randint(min(amounts), max(amounts))}
    return move


def drive(played: PlayedGame, rng: random.Random, leave_rate: float) -> None:
    """Play to the end through the table wrapper, like ``service.devstack.play``,
    but letting any seated player leave at any time."""
    for _ in range(100_000):
        run_system_steps(played)
        state = played.state
        if state.over:
            return
        es: AziState = state.engine_state
        if rng.random() < leave_rate:
            seat = rng.randrange(es.seats)
            if {"action": "leave"} in ENGINE.legal_moves(es, seat):
                push(played, table.decide(state, seat, {"action": "leave"}))
                continue
        to_act = ENGINE.to_act(es)
        assert to_act, f"nobody to act and nothing pending: {es!r}"
        seat = rng.choice(list(to_act))
        move = random_move(ENGINE.legal_moves(es, seat), rng)
        played.moves.append((seat, move))
        push(played, table.decide(state, seat, move))
    raise AssertionError("match did not finish")


def tuplify(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(tuplify(v) for v in value)
    return value


def through_json(event: Event) -> Event:
    cls = ENGINE.event_class(event.type) if event.type in _AZI_TYPES else type(event)
    data = json.loads(json.dumps(event.as_dict()))
    return cls(**{k: tuplify(v) for k, v in data.items()})


_AZI_TYPES = {cls.type for cls in ENGINE.event_types}


def check_match(played: PlayedGame, via_json: bool = True) -> None:
    events = played.events
    states = played.states
    first = next(i for i, e in enumerate(events) if e.type in _AZI_TYPES)
    prev_es: AziState = states[first - 1].engine_state
    settled = 0
    won = 0
    for event, game in zip(events[first:], states[first:], strict=True):
        es: AziState = game.engine_state
        check(es)
        assert max(es.actions, default=0) <= 3
        body = event.move_body()
        if body is not None:
            seat = event.seat_of_move
            assert seat is not None
            assert_listed(prev_es, seat, body)
            if body["action"] != "leave":
                assert seat in ENGINE.to_act(prev_es)
        if isinstance(event, BiddingEnded):
            # Only players all in can be left below the bid.
            assert all(es.stacks[s] == 0 for s in event.short)
        if isinstance(event, PotWon):
            won += 1
        if isinstance(event, PotSettled):
            settled += 1
            assert event.payouts == settle_pot(
                prev_es.contributions, event.winner, prev_es.short[event.winner]
            )
            assert sum(event.payouts) == event.pot
        if isinstance(event, HandDealt):
            for viewer in range(es.seats):
                seen = event.redact(viewer)
                assert isinstance(seen, HandDealt)
                for s, hand in enumerate(seen.hands):
                    assert hand == (event.hands[s] if s == viewer else (HIDDEN,) * len(hand))
        if isinstance(event, Discarded):
            assert event.redact((event.seat + 1) % es.seats) == Discarded(event.seat, HIDDEN)
        if ENGINE.pending(es) == "settle":
            assert ENGINE.to_act(es) == ()
        prev_es = es
    assert won == settled
    final: AziState = played.state.engine_state
    assert final.over and final.pot == 0
    result = ENGINE.result(final)
    assert sum(result["results"]) == 0 and result["over"] is True
    assert result["results"] == [
        s - b for s, b in zip(result["stacks"], result["buy_ins"], strict=True)
    ]
    # Replaying the events rebuilds the live state, also after a trip through JSON.
    assert table.fold(events) == played.state
    if via_json:
        replayed = table.fold(events[:first] + [through_json(e) for e in events[first:]])
        assert replayed.engine_state == final


def test_random_matches_through_the_table() -> None:
    rng = random.Random(20240601)
    hands = azis = 0
    for i in range(MATCHES):
        seats = 2 + i % 5
        played = new_game("azi", random_options(rng), seats=seats, rng=rng, game_id=f"g-{i}")
        drive(played, rng, leave_rate=0.01)
        check_match(played, via_json=i % 4 == 0)
        final: AziState = played.state.engine_state
        hands += final.hand_no
        azis += sum(1 for e in played.events if e.type == "AziDeclared")
    # The sample really exercises many hands and Azi replays.
    assert hands > MATCHES * 3
    assert azis > MATCHES // 30


def test_random_matches_straight_through_the_engine() -> None:
    """A second thousand matches without the table wrapper (cheaper per
    event), same checks after every event and move, other options mix."""
    rng = random.Random(99)
    hands = 0
    for i in range(MATCHES):
        options = random_options(rng)
        options["buy_in"] = rng.choice([30, 60, 100])
        state = ENGINE.initial(ENGINE.parse_options(options), 2 + i % 5)
        shuffler = Shuffler(rng.randbytes(32), f"e-{i}", tuple(f"c{k}" for k in range(6)))
        events: list[Event] = []
        while not state.over:
            if ENGINE.pending(state) is not None:
                new = ENGINE.advance(state, shuffler)
            else:
                seat = rng.choice(ENGINE.to_act(state))
                legal = ENGINE.legal_moves(state, seat)
                move = random_move(legal, rng)
                if rng.random() < 0.005 and {"action": "leave"} in legal:
                    move = {"action": "leave"}
                assert_listed(state, seat, move)
                new = ENGINE.decide(state, seat, move)
            assert new
            for event in new:
                state = ENGINE.apply(state, event)
                check(state)
            events += new
        assert sum(ENGINE.result(state)["results"]) == 0
        assert (
            ENGINE.fold(ENGINE.initial(ENGINE.parse_options(options), state.seats), events) == state
        )
        hands += state.hand_no
    assert hands > MATCHES * 3


def test_views_never_show_another_seats_cards() -> None:
    rng = random.Random(7)
    for i in range(15):
        played = new_game("azi", random_options(rng), seats=2 + i % 5, rng=rng, game_id=f"v-{i}")
        drive(played, rng, leave_rate=0.0)
        for game in played.states[1:]:
            if not game.seated:
                continue
            es: AziState = game.engine_state
            for viewer in range(es.seats):
                text = json.dumps(ENGINE.view(es, viewer))
                # In the four-card deal the dealer's trump card is face up: public.
                others = [
                    c
                    for s, h in enumerate(es.hands)
                    if s != viewer
                    for c in h
                    if c != es.trump_card
                ]
                assert not any(f'"{c}"' in text for c in others)
            public = json.dumps(table.view(game, None))
            hidden = [c for h in es.hands for c in h if c != es.trump_card]
            assert not any(f'"{c}"' in public for c in hidden)


def candidate_moves(state: AziState, seat: int) -> list[dict[str, Any]]:
    """Every body worth trying: each action, each card of the deck, bets
    around and inside the allowed range."""
    moves: list[dict[str, Any]] = [
        {"action": a} for a in ("call", "fold", "buy_in", "decline", "leave")
    ]
    for card in deck(state.options.deck):
        moves += [{"action": "play", "card": card}, {"action": "discard", "card": card}]
    low, high = ENGINE.bet_range(state, seat)
    for amount in {0, low - 1, low, (low + high) // 2, high, high + 1}:
        moves.append({"action": "bet", "amount": amount})
    return moves


def accepted(state: AziState, seat: int, move: dict[str, Any]) -> bool:
    try:
        ENGINE.decide(state, seat, move)
    except RuleError:
        return False
    return True


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    seats=st.integers(2, 6),
    steps=st.integers(0, 120),
    cards=st.sampled_from([3, 4]),
)
def test_legal_moves_are_exactly_the_accepted_moves(
    seed: int, seats: int, steps: int, cards: int
) -> None:
    rng = random.Random(seed)
    state = ENGINE.initial(ENGINE.parse_options({"buy_in": 80, "cards": cards}), seats)
    shuffler = Shuffler(rng.randbytes(32), "h", tuple(f"c{k}" for k in range(seats)))
    for _ in range(steps):
        if state.over:
            break
        if ENGINE.pending(state) is not None:
            state = ENGINE.fold(state, ENGINE.advance(state, shuffler))
            continue
        seat = rng.choice(ENGINE.to_act(state))
        move = random_move(ENGINE.legal_moves(state, seat), rng)
        state = ENGINE.fold(state, ENGINE.decide(state, seat, move))
    for seat in range(seats):
        legal = ENGINE.legal_moves(state, seat)
        bets = [m["amount"] for m in legal if m["action"] == "bet"]
        for move in candidate_moves(state, seat):
            if move["action"] == "bet":
                listed = bool(bets) and min(bets) <= move["amount"] <= max(bets)
            else:
                listed = move in legal
            assert accepted(state, seat, move) == listed, (seat, move, legal)
