"""What one seat (or the public) may see of an Azi table, as JSON.

Everything here is public except ``hand`` and ``discard``, which are only
the viewer's own. Counts of every hand are public.
"""

from __future__ import annotations

from ..base import JSON
from .cards import sorted_cards
from .state import BIDDING, AziState


def _all_in(state: AziState, seat: int) -> bool:
    return state.in_play(seat) and state.stacks[seat] == 0


def _short(state: AziState, seat: int) -> bool:
    """Marked short for this pot, or (while bidding) all in below the bid."""
    live = state.phase == BIDDING and _all_in(state, seat) and state.bids[seat] < state.highest
    return state.short[seat] or live


def _seat_view(state: AziState, s: int) -> JSON:
    """One seat's public row: its chips, cards held, bidding and tricks."""
    return {
        "seat": s,
        "stack": state.stacks[s],
        "contribution": state.contributions[s],
        "in_hand": state.in_hand[s],
        "cards": len(state.hands[s]),
        "discarded": state.discarded[s] is not None,
        "bid": state.bids[s],
        "actions": state.actions[s],
        "folded": state.folded[s],
        "all_in": _all_in(state, s),
        "short": _short(state, s),
        "tricks": state.tricks[s],
        "left": state.left[s],
        "leaving": state.leaving[s],
    }


def _bidding_view(state: AziState) -> JSON:
    """The bidding round: the highest bid, its leader and who stands how."""
    return {
        "highest": state.highest,
        "leader": state.leader,
        "bids": list(state.bids),
        "actions": list(state.actions),
        "folded": [s for s in range(state.seats) if state.folded[s]],
        "all_in": [s for s in range(state.seats) if _all_in(state, s)],
        "short": [s for s in range(state.seats) if _short(state, s)],
    }


def _azi_view(state: AziState) -> JSON | None:
    """The pending azi (a tied pot replayed), or None when there is none."""
    if state.next_dealer is None:
        return None
    return {
        "dealer": state.next_dealer,
        "price": state.azi_price,
        "in_replay": list(state.replay_seats),
        "to_decide": list(state.azi_queue),
    }


def table_view(state: AziState, viewer: int | None, to_act: tuple[int, ...]) -> JSON:
    opts = state.options
    out: JSON = {
        "phase": state.phase,
        "hand_no": state.hand_no,
        "deal": state.deals - 1 if state.deals else None,
        "deals_dealt": state.deals,
        "dealer": state.dealer,
        "azi_replays": state.azi_count,
        "trump": state.trump,
        "trump_card": state.trump_card,
        "six_on_stage": state.six_on_stage,
        "pot": state.pot,
        "ante": opts.ante,
        "min_bet": opts.min_bet,
        "cards_per_hand": opts.cards,
        "stacks": list(state.stacks),
        "contributions": list(state.contributions),
        "hand_counts": [len(h) for h in state.hands],
        "seats": [_seat_view(state, s) for s in range(state.seats)],
        "bidding": _bidding_view(state),
        "trick": [{"seat": s, "card": c} for s, c in state.trick],
        "tricks": list(state.tricks),
        "trick_winners": list(state.trick_winners),
        "played": list(state.played),
        "turn": state.turn,
        "to_act": list(to_act),
        "azi": _azi_view(state),
        "pot_winner": state.pot_winner,
        "last_winner": state.last_winner,
        "over": state.over,
        "end_reason": state.end_reason,
    }
    if viewer is not None and 0 <= viewer < state.seats:
        out["hand"] = sorted_cards(state.hands[viewer])
        out["discard"] = state.discarded[viewer]
    return out
