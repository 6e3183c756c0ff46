"""The state of a Hazari Lite match and how each event changes it.

:func:`apply` folds one event into a new state; it trusts the event (the
engine checked the move).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ..base import Event
from ..evolve import evolve
from .arrange import Groups
from .events import Arranged, DealScored, Dealt, Hand, MatchEnded, RoundPlayed

SEATS: Final = 4
HAND_SIZE: Final = 13

DEALING: Final = "dealing"
ARRANGING: Final = "arranging"
OVER: Final = "over"


@dataclass(frozen=True, slots=True)
class HazariState:
    """Everything the fold knows. ``deal`` is the number of the current (or
    last) deal, ``-1`` before the first; ``hands`` are the cards each seat
    still holds; ``collected`` the cards each seat won in the current deal."""

    target: int
    phase: str = DEALING
    deal: int = -1
    dealer: int = -1
    hands: tuple[Hand, ...] = ((),) * SEATS
    arrangements: tuple[Groups | None, ...] = (None,) * SEATS
    collected: tuple[Hand, ...] = ((),) * SEATS
    scores: tuple[int, ...] = (0,) * SEATS
    rounds: tuple[RoundPlayed, ...] = ()
    last_points: tuple[int, ...] | None = None
    winners: tuple[int, ...] = ()


def apply(state: HazariState, event: Event) -> HazariState:
    if isinstance(event, Dealt):
        return evolve(
            state,
            phase=ARRANGING,
            deal=event.deal,
            dealer=event.dealer,
            hands=event.hands,
            arrangements=(None,) * SEATS,
            collected=((),) * SEATS,
        )
    if isinstance(event, Arranged):
        arrangements = list(state.arrangements)
        arrangements[event.seat] = event.groups
        return evolve(state, arrangements=tuple(arrangements))
    if isinstance(event, RoundPlayed):
        laid = {c for g in event.laid for c in g}
        hands = tuple(tuple(c for c in h if c not in laid) for h in state.hands)
        collected = list(state.collected)
        collected[event.winner] += tuple(c for g in event.laid for c in g)
        rounds = (*state.rounds, event) if event.round > 1 else (event,)
        return evolve(state, hands=hands, collected=tuple(collected), rounds=rounds)
    if isinstance(event, DealScored):
        scores = tuple(s + p for s, p in zip(state.scores, event.points, strict=True))
        return evolve(state, phase=DEALING, scores=scores, last_points=event.points)
    if isinstance(event, MatchEnded):
        return evolve(state, phase=OVER, winners=event.winners)
    raise TypeError(f"Hazari has no event {event.type or type(event).__name__}")
