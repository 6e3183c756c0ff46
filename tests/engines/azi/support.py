"""Helpers for the Azi tests (no tests here): hand-built deals, moves, invariants.

A scenario starts from :func:`new_table`, deals chosen cards with
:func:`deal` (the same ``AntesPaid``/``HandDealt`` events a shuffle would
produce, with hands picked by the test) and then moves with :func:`act`.
Every helper checks chip conservation and the cards after each event.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from service.engines.azi import ENGINE
from service.engines.azi.cards import deck
from service.engines.azi.engine import chips_brought, total_chips
from service.engines.azi.events import AntesPaid, HandDealt
from service.engines.azi.state import AziState
from service.engines.base import Event
from service.engines.shuffle import Shuffler

SHUFFLER = Shuffler(bytes(32), "g-azi", ("a", "b", "c", "d", "e", "f"))


def new_table(seats: int = 3, **options: Any) -> AziState:
    return ENGINE.initial(ENGINE.parse_options(options), seats)


def check(state: AziState) -> None:
    """The invariants every state must keep."""
    assert total_chips(state) == chips_brought(state), state
    assert all(s >= 0 for s in state.stacks)
    assert all(c >= 0 for c in state.contributions)
    check_cards(state)


def check_cards(state: AziState) -> None:
    """No card lost or duplicated within the current deal."""
    cards: list[str] = [c for h in state.hands for c in h]
    cards += [c for c in state.discarded if c is not None]
    cards += [c for _, c in state.trick]
    cards += list(state.played)
    if state.trump_card is not None and state.options.cards == 3:
        cards.append(state.trump_card)
    dupes = [c for c, k in Counter(cards).items() if k > 1]
    assert not dupes, f"duplicated cards {dupes}"
    assert set(cards) <= _deck_set(state.options.deck)
    if state.trump_card is not None:
        dealt = sum(1 for s in range(state.seats) if state.in_hand[s]) * state.options.cards
        extra = 1 if state.options.cards == 3 else 0
        assert len(cards) == dealt + extra


@cache
def _deck_set(size: int) -> frozenset[str]:
    return frozenset(deck(size))


def fold(state: AziState, events: Sequence[Event]) -> AziState:
    for event in events:
        state = ENGINE.apply(state, event)
        check(state)
    return state


def deal(
    state: AziState, dealer: int, hands: Mapping[int, str], trump_card: str
) -> tuple[AziState, list[Event]]:
    """Deal the given hands (``{seat: "AS KS 6D"}``) as the next deal.

    A new hand charges the antes of the seats dealt in; an Azi replay does not.
    """
    events: list[Event] = []
    if state.pot == 0:
        antes = tuple(state.options.ante if s in hands else 0 for s in range(state.seats))
        events.append(AntesPaid(state.hand_no + 1, antes))
    cards = tuple(tuple(hands[s].split()) if s in hands else () for s in range(state.seats))
    events.append(
        HandDealt(
            deal=state.deals,
            dealer=dealer,
            hands=cards,
            trump_card=trump_card,
            trump=trump_card[1],
            six_on_stage=state.options.six_on_stage and trump_card[0] == "A",
            azi=state.pot > 0,
        )
    )
    events = ENGINE.with_consequences(state, events)
    return fold(state, events), events


def act(state: AziState, seat: int, action: str, **fields: Any) -> tuple[AziState, list[Event]]:
    """Make a move; it must be one ``legal_moves`` lists (bets: within the listed range)."""
    move = {"action": action, **fields}
    assert_listed(state, seat, move)
    events = ENGINE.decide(state, seat, move)
    return fold(state, events), events


def assert_listed(state: AziState, seat: int, move: Mapping[str, Any]) -> None:
    legal = ENGINE.legal_moves(state, seat)
    if move.get("action") == "bet":
        amounts = [m["amount"] for m in legal if m["action"] == "bet"]
        assert amounts, f"no bet listed for seat {seat}: {legal}"
        assert min(amounts) <= move["amount"] <= max(amounts), (move, legal)
    else:
        assert dict(move) in legal, (move, legal)


def settle(state: AziState) -> tuple[AziState, list[Event]]:
    assert ENGINE.pending(state) == "settle"
    events = ENGINE.advance(state, SHUFFLER)
    return fold(state, events), events


def types(events: Sequence[Event]) -> list[str]:
    return [e.type for e in events]


def play_trick(state: AziState, *plays: tuple[int, str]) -> tuple[AziState, list[Event]]:
    out: list[Event] = []
    for seat, card in plays:
        state, events = act(state, seat, "play", card=card)
        out += events
    return state, out
