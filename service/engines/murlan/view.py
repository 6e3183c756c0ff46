"""What one seat (or the public) may see of a Murlan table, as JSON.

Everything here is public except ``hand``, which is only the viewer's own,
and the exchanged cards, which only the two seats in the exchange see.
"""

from __future__ import annotations

from ..base import HIDDEN, JSON
from .combos import CARD_NAMES, names
from .state import PLAYING, SEATS, STRAIGHT_BEATS, MurlanState


def table_view(state: MurlanState, viewer: int | None, to_act: tuple[int, ...]) -> JSON:
    deal, trick, match = state.deal, state.trick, state.match
    table: JSON | None = None
    if trick.table is not None:
        table = {
            "cards": names(trick.cards),
            "combination": trick.table.kind,
            "seat": trick.seat,
            "passes": trick.passes,
        }
    playing = state.phase == PLAYING
    out: JSON = {
        "phase": state.phase,
        "hand_number": deal.number,
        "dealer": deal.number % SEATS if deal.number >= 0 else None,
        "turn": trick.turn if playing else None,
        "to_act": list(to_act),
        "to_beat": table,
        "table": table,  # deprecated: the same as ``to_beat``
        "leading": playing and trick.table is None,
        "must_include": CARD_NAMES[trick.must_include] if trick.must_include >= 0 else None,
        "hand_counts": [len(h) for h in deal.hands],
        "out": list(deal.out),
        "scores": list(match.scores),
        "target": match.target,
        "exchange": _exchange_view(state, viewer),
        "options": {
            "straight_beats": STRAIGHT_BEATS[state.any_higher],
            "exchange_min_rank": state.exchange_min_rank,
        },
        "winners": [match.winner] if match.winner >= 0 else [],
    }
    if viewer is not None and 0 <= viewer < SEATS:
        out["hand"] = names(deal.hands[viewer])
    return out


def _exchange_view(state: MurlanState, viewer: int | None) -> JSON | None:
    """This hand's exchange; its cards are shown only to the two seats in it.

    The parties are the ones recorded with the exchange itself: once the hand
    ends, the match's finishing order already names the next exchange's."""
    deal = state.deal
    if deal.number <= 0 or not deal.exchange_parties:
        return None
    first, last = deal.exchange_parties
    party = viewer in (first, last)

    def shown(code: int) -> str | None:
        if code < 0:
            return None
        return CARD_NAMES[code] if party else HIDDEN

    return {
        "first_finisher": first,
        "last_finisher": last,
        "skipped": deal.exchange_skipped,
        "card_given": shown(deal.given),
        "card_given_back": shown(deal.given_back),
    }
