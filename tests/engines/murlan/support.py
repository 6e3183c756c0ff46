"""Helpers for the Murlan tests (no tests here): hand-built positions, moves,
a fixed-deck shuffler and a random match driver that checks the invariants.

A position is built with :func:`position` from readable card lists
(``{0: "3S 4H", 1: "5D"}``); moves go through :func:`act`, which runs the
engine's ``decide`` and folds the events, as the table does.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from service.engines.base import Event
from service.engines.cards import Card, parse_card
from service.engines.murlan import ENGINE
from service.engines.murlan.combos import CARD_CODES, CARD_NAMES, DECK_SIZE, classify
from service.engines.murlan.events import (
    CardGiven,
    CardGivenBack,
    CardsPlayed,
    HandDealt,
    HandEnded,
    MatchWon,
)
from service.engines.murlan.state import PLAYING, Deal, Match, MurlanState, Trick
from service.engines.shuffle import DealStream, Shuffler

SHUFFLER = Shuffler(bytes(range(32)), "g-murlan", ("a", "b", "c", "d"))


def codes(text: str) -> tuple[int, ...]:
    """Sorted card codes of ``"3S 4H TD"``."""
    return tuple(sorted(CARD_CODES[str(parse_card(t))] for t in text.split()))


def cards(text: str) -> list[str]:
    """Canonical names of ``"3S 4H"``, in the engine's order."""
    return [CARD_NAMES[c] for c in codes(text)]


def position(
    hands: Mapping[int, str] | Sequence[str],
    turn: int,
    table: str | None = None,
    table_seat: int = -1,
    passes: int = 0,
    out: Sequence[int] = (),
    number: int = 1,
    must_include: str | None = None,
    scores: Sequence[int] = (0, 0, 0, 0),
    target: int = 21,
    last_order: Sequence[int] = (),
    **options: Any,
) -> MurlanState:
    """A state in play. Seats missing from ``hands`` hold no cards."""
    if isinstance(hands, Mapping):
        held = tuple(codes(hands.get(s, "")) for s in range(4))
    else:
        held = tuple(codes(h) for h in hands)
    base = ENGINE.initial(ENGINE.parse_options(options), 4)
    table_cards = codes(table) if table else ()
    trick = Trick(
        turn=turn,
        table=classify(table_cards) if table else None,
        cards=table_cards,
        seat=table_seat,
        passes=passes,
        must_include=CARD_CODES[must_include] if must_include else -1,
    )
    return base._replace(
        phase=PLAYING,
        deal=Deal(number=number, hands=held, out=tuple(out)),
        trick=trick,
        match=Match(scores=tuple(scores), target=target, last_order=tuple(last_order)),
    )


def act(state: MurlanState, seat: int, move: Mapping[str, Any]) -> tuple[MurlanState, list[Event]]:
    events = ENGINE.decide(state, seat, move)
    return ENGINE.fold(state, events), events


def play(state: MurlanState, seat: int, text: str) -> tuple[MurlanState, list[Event]]:
    return act(state, seat, {"action": "play", "cards": text.split()})


def pass_(state: MurlanState, seat: int) -> tuple[MurlanState, list[Event]]:
    return act(state, seat, {"action": "pass"})


@dataclass
class FixedDeck:
    """A stand-in for the shuffler that deals a chosen deck (``deal`` only)."""

    deck: list[Card]
    dealt: list[int] = field(default_factory=list)

    def deal(self, deal: int, deck_size: int) -> tuple[list[Card], DealStream]:
        assert deck_size == DECK_SIZE
        self.dealt.append(deal)
        return list(self.deck), DealStream(b"", "unused")


def deck_for(hands: Sequence[str], first: int) -> list[Card]:
    """A deck that deals ``hands`` (by seat) when dealing starts at seat ``first``."""
    per_seat = [[parse_card(t) for t in h.split()] for h in hands]
    sizes = [len(h) for h in per_seat]
    assert sum(sizes) == DECK_SIZE
    deck: list[Card] = []
    seat = first
    while len(deck) < DECK_SIZE:
        if per_seat[seat]:
            deck.append(per_seat[seat].pop(0))
        seat = (seat + 1) % 4
    return deck


# -- random matches --------------------------------------------------------------------
@dataclass
class MatchLog:
    events: list[Event] = field(default_factory=list)
    hands: int = 0
    moves: int = 0
    checked_positions: int = 0
    final: MurlanState | None = None


def random_match(
    seed: int,
    options: Mapping[str, Any] | None = None,
    check_every: int = 0,
    max_moves: int = 100_000,
) -> MatchLog:
    """Play one match with uniformly random legal moves, checking as it goes.

    Every move comes from ``legal_moves`` and must be accepted. When
    ``check_every`` is positive, every ``check_every``-th decision also has
    each of its listed moves tried through ``decide``. Cards are counted at
    every deal and hand end, each hand's points must be 3, 2, 1 and 0, and at
    the end folding the recorded events must rebuild the live state.
    """
    rng = random.Random(seed)
    shuffler = Shuffler(rng.randbytes(32), f"g-{seed}", ("a", "b", "c", "d"))
    start = ENGINE.initial(ENGINE.parse_options(options or {}), 4)
    state = start
    log = MatchLog()
    pile: list[int] = []  # the cards played this hand
    while not ENGINE.is_over(state):
        assert log.moves < max_moves, "match did not end"
        if ENGINE.pending(state) is not None:
            assert ENGINE.to_act(state) == ()
            events = ENGINE.advance(state, shuffler)
        else:
            (seat,) = ENGINE.to_act(state)
            legal = ENGINE.legal_moves(state, seat)
            assert legal, f"seat {seat} must act but has no legal move"
            for other in range(4):
                if other != seat:
                    assert ENGINE.legal_moves(state, other) == []
            if check_every and log.moves % check_every == 0:
                log.checked_positions += 1
                for move in legal:
                    ENGINE.decide(state, seat, move)  # raises if a listed move is refused
            move = rng.choice(legal)
            events = ENGINE.decide(state, seat, move)
            log.moves += 1
        for event in events:
            state = ENGINE.apply(state, event)
            log.events.append(event)
            if isinstance(event, HandDealt):
                pile = []
            if isinstance(event, CardsPlayed):
                pile.extend(CARD_CODES[c] for c in event.cards)
            check_event(state, event, pile)
            if isinstance(event, HandEnded):
                log.hands += 1
    assert ENGINE.fold(start, log.events) == state
    log.final = state
    return log


def check_event(state: MurlanState, event: Event, pile: Sequence[int]) -> None:
    """Invariants after one event; ``pile`` holds the cards played this hand."""
    if isinstance(event, (HandDealt, CardGiven, CardGivenBack, CardsPlayed)):
        every = [*pile, *(c for hand in state.deal.hands for c in hand)]
        assert sorted(every) == list(range(DECK_SIZE)), "a card was lost or duplicated"
        assert all(list(h) == sorted(h) for h in state.deal.hands)
    if isinstance(event, HandEnded):
        assert sorted(event.points) == [0, 1, 2, 3]
        assert sorted(event.order) == [0, 1, 2, 3]
        assert [event.points[s] for s in event.order] == [3, 2, 1, 0]
        # the cards still held are the last finisher's; all others were played
        assert all(not state.deal.hands[s] for s in event.order[:3])
    if isinstance(event, MatchWon):
        assert state.match.scores[event.winner] == max(state.match.scores)
        assert sum(1 for s in state.match.scores if s == max(state.match.scores)) == 1
