"""The pure settlement of an Azi pot: exact chips, proportional refunds."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.engines.azi.settle import (
    SettlementError,
    settle_pot,
    short_winner_share,
    split_by_largest_remainder,
)


def test_a_winner_never_short_takes_everything() -> None:
    assert settle_pot([10, 50, 30, 0], 1, False) == (0, 90, 0, 0)
    # Even when he put in less than others: not short means he matched.
    assert settle_pot([10, 5, 30], 0, False) == (45, 0, 0)


def test_short_winner_takes_his_proportion_and_the_rest_goes_back() -> None:
    # P = 10 + 40 + 40 = 90, C_w = 10, C_max = 40: winner takes 90*10/40 = 22.5 -> 22.
    # The rest, 68, goes back 1:1 to seats 1 and 2: 34 each.
    assert settle_pot([10, 40, 40], 0, True) == (22, 34, 34)


def test_short_winner_odd_chip_goes_to_the_lower_seat_on_a_tie() -> None:
    # P = 10 + 20 + 20 = 50; winner takes 50*10/20 = 25; rest 25 split 1:1 ->
    # 12.5 each; the odd chip goes to the lower seat (1).
    assert settle_pot([10, 20, 20], 0, True) == (25, 13, 12)
    # The same pot with the winner in the middle: odd chip still to the lowest seat.
    assert settle_pot([20, 10, 20], 1, True) == (13, 25, 12)


def test_short_winner_odd_chips_by_largest_remainder() -> None:
    # P = 7 + 30 + 20 + 10 = 67, C_max = 30: winner takes floor(67*7/30) = 15.
    # Rest 52 split 30:20:10 -> 26, 17.33, 8.67 -> floors 26, 17, 8 (51), one
    # odd chip to the largest remainder (seat 3: 2/3 > seat 2: 1/3).
    assert settle_pot([7, 30, 20, 10], 0, True) == (15, 26, 17, 9)


def test_short_winner_who_put_in_the_most_takes_everything() -> None:
    assert settle_pot([30, 30, 10], 0, True) == (70, 0, 0)


def test_seats_that_put_nothing_in_get_nothing() -> None:
    assert settle_pot([0, 10, 40, 40, 0], 1, True) == (0, 22, 34, 34, 0)


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(SettlementError):
        settle_pot([10, 10], 2, False)
    with pytest.raises(SettlementError):
        settle_pot([10, -1], 0, True)
    with pytest.raises(SettlementError):
        split_by_largest_remainder(5, [0, 0])


contributions = st.lists(st.integers(min_value=0, max_value=10_000), min_size=2, max_size=6)


@settings(max_examples=400, deadline=None)
@given(contributions, st.data(), st.booleans())
def test_settlement_pays_out_exactly_the_pot(
    pot: list[int], data: st.DataObject, short: bool
) -> None:
    winner = data.draw(st.integers(min_value=0, max_value=len(pot) - 1))
    payouts = settle_pot(pot, winner, short)
    assert sum(payouts) == sum(pot)
    assert all(p >= 0 for p in payouts)
    if not short:
        assert payouts[winner] == sum(pot)
        return
    total = sum(pot)
    largest = max(pot)
    assert payouts[winner] == short_winner_share(pot, winner)
    if largest:
        assert payouts[winner] == (total * pot[winner]) // largest
    rest = total - payouts[winner]
    others = sum(c for i, c in enumerate(pot) if i != winner)
    for i, c in enumerate(pot):
        if i == winner:
            continue
        # Nobody but the winner profits; each refund is within one chip of the exact share.
        assert payouts[i] <= c
        if others:
            exact = Fraction(rest * c, others)
            assert exact - 1 < payouts[i] <= exact + 1
        if c == 0:
            assert payouts[i] == 0


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=10_000), st.lists(st.integers(0, 500), min_size=1))
def test_largest_remainder_split(amount: int, weights: list[int]) -> None:
    if sum(weights) == 0:
        return
    shares = split_by_largest_remainder(amount, weights)
    total = sum(weights)
    assert sum(shares) == amount
    floors = [amount * w // total for w in weights]
    extra = [s - f for s, f in zip(shares, floors, strict=True)]
    assert all(e in (0, 1) for e in extra)
    # Every seat that got an odd chip has a remainder at least as large as any that did not.
    rem = [amount * w % total for w in weights]
    given_rem = [rem[i] for i, e in enumerate(extra) if e]
    missed = [rem[i] for i, e in enumerate(extra) if not e and weights[i] > 0]
    if given_rem and missed:
        assert min(given_rem) >= max(missed)
