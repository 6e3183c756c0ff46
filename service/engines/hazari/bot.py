"""The Hazari Lite bot: the auto-arranger's arrangement of a seat's hand.

Bots and timeouts play it, and ``legal_moves`` offers it as the one
suggestion (:mod:`.arrange` finds it).
"""

from __future__ import annotations

from ..base import JSON
from .arrange import arrange
from .state import HazariState


def choose_move(state: HazariState, seat: int) -> JSON:
    groups = arrange(state.hands[seat])
    return {"action": "arrange", "groups": [list(g) for g in groups]}
