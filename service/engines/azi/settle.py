"""Settling an Azi pot: who gets which chips once a hand has a winner.

This is a pure function of the pot's contributions so that anyone (a
worker, an auditor, a test) can recompute a settlement from the event log
alone. Every chip of the pot is paid out exactly once: the payouts are
non-negative whole chips and add up to the pot.

The rule (``rules/azi.md``, "Settlement"): let ``C_i`` be what seat ``i``
put into the pot across the whole Azi chain and ``P = sum(C)``.

- A winner who was never short takes all of ``P``.
- A short winner takes ``floor(P * C_w / C_max)``. The rest goes back to the
  other seats that put chips in, in proportion to their ``C_i``: each gets
  the floor of its exact share, and the odd chips left over go one each by
  largest remainder, ties to the lower seat.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import EngineError


class SettlementError(EngineError):
    """Inputs that do not describe a pot (negative chips, no such winner…)."""


def short_winner_share(contributions: Sequence[int], winner: int) -> int:
    """``floor(P * C_w / C_max)``: what a short winner takes from the pot."""
    pot = sum(contributions)
    largest = max(contributions)
    if largest == 0:
        return 0
    return pot * contributions[winner] // largest


def split_by_largest_remainder(amount: int, weights: Sequence[int]) -> tuple[int, ...]:
    """Split ``amount`` chips in proportion to ``weights``.

    Each share is the floor of ``amount * w / sum(weights)``; the chips the
    floors leave over go one each to the largest remainders, ties to the
    lower index. Seats with weight 0 get nothing. Exact integer arithmetic.
    """
    total = sum(weights)
    if amount < 0 or any(w < 0 for w in weights):
        raise SettlementError(f"cannot split {amount} chips by weights {list(weights)}")
    if total == 0:
        if amount:
            raise SettlementError(f"cannot split {amount} chips among nobody")
        return tuple(0 for _ in weights)
    shares = [amount * w // total for w in weights]
    remainders = [amount * w % total for w in weights]
    odd = amount - sum(shares)
    # Largest remainder first; equal remainders go to the lower seat.
    order = sorted((i for i, w in enumerate(weights) if w > 0), key=lambda i: (-remainders[i], i))
    for i in order[:odd]:
        shares[i] += 1
    return tuple(shares)


def settle_pot(contributions: Sequence[int], winner: int, winner_short: bool) -> tuple[int, ...]:
    """The payout of every seat (indexed like ``contributions``).

    ``contributions[i]`` is everything seat ``i`` put into this pot (antes,
    bets and Azi buy-ins across the chain); ``winner_short`` says whether the
    winner was ever short (called all in without matching) in this pot.
    """
    if not 0 <= winner < len(contributions):
        raise SettlementError(f"winner {winner} is not a seat of {len(contributions)}")
    if any(isinstance(c, bool) or not isinstance(c, int) or c < 0 for c in contributions):
        raise SettlementError(f"contributions must be whole chips >= 0: {list(contributions)}")
    pot = sum(contributions)
    payouts = [0] * len(contributions)
    if not winner_short:
        payouts[winner] = pot
        return tuple(payouts)
    taken = short_winner_share(contributions, winner)
    others = [0 if i == winner else c for i, c in enumerate(contributions)]
    refunds = split_by_largest_remainder(pot - taken, others)
    payouts = list(refunds)
    payouts[winner] = taken
    if sum(payouts) != pot:  # pragma: no cover - guarded by the arithmetic above
        raise SettlementError(f"payouts {payouts} do not add up to the pot {pot}")
    return tuple(payouts)
