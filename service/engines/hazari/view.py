"""What one seat (or the public) may see of a Hazari Lite table, as JSON.

Everything here is public except ``hand`` and ``arrangement``, which are
only the viewer's own; the last deal's rounds are laid open to all.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..base import JSON
from ..cards import RANKS, SUITS
from .state import ARRANGING, SEATS, HazariState


def _sort_key(card: str) -> tuple[int, int]:
    return (-RANKS.index(card[0]), SUITS.index(card[1]))


def sorted_hand(cards: Sequence[str]) -> list[str]:
    """Highest rank first, then clubs, diamonds, hearts, spades."""
    return sorted(cards, key=_sort_key)


def table_view(state: HazariState, viewer: int | None, to_act: tuple[int, ...]) -> JSON:
    out: JSON = {
        "phase": state.phase,
        "deal": state.deal if state.deal >= 0 else None,
        "dealer": state.dealer if state.dealer >= 0 else None,
        "first_to_lay": (state.dealer + 1) % SEATS if state.dealer >= 0 else None,
        "target": state.target,
        "scores": list(state.scores),
        "said_up": [a is not None for a in state.arrangements]
        if state.phase == ARRANGING
        else [False] * SEATS,
        "to_act": list(to_act),
        "hand_counts": [len(h) for h in state.hands],
        "last_deal": _last_deal(state),
        "winners": list(state.winners),
    }
    if viewer is not None and 0 <= viewer < SEATS:
        out["hand"] = sorted_hand(state.hands[viewer])
        own = state.arrangements[viewer] if state.phase == ARRANGING else None
        out["arrangement"] = [list(g) for g in own] if own is not None else None
    return out


def _last_deal(state: HazariState) -> JSON | None:
    if not state.rounds:
        return None
    return {
        "deal": state.rounds[0].deal,
        "rounds": [
            {
                "round": r.round,
                "leader": r.leader,
                "order": list(r.order),
                "laid": [list(g) for g in r.laid],
                "combos": list(r.combos),
                "winner": r.winner,
                "points": r.points,
            }
            for r in state.rounds
        ],
        "points": list(state.last_points) if state.last_points is not None else None,
    }
