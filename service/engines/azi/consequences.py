"""What the Azi rules force without anyone moving.

After every event the engine asks :func:`consequence` for the next forced
event (the end of the bidding, a trick taken, a pot won, an Azi, a leave
that was waiting for its pot, the end of the match) and appends it, until
none is due. Keeping these decisions in events makes the log say what
happened, and the fold stays a plain function of the events.
"""

from __future__ import annotations

from ..base import Event
from .cards import trick_winner
from .events import (
    AziDeclared,
    BiddingEnded,
    MatchEnded,
    PlayerLeft,
    PotWon,
    TrickTaken,
)
from .state import BIDDING, DEALING, PLAYING, TRICKS_TO_WIN, AziState


def consequence(state: AziState) -> Event | None:
    """The next event due without a move, or ``None``."""
    if state.over:
        return None
    for seat in range(state.seats):
        if state.leaving[seat] and not state.left[seat] and not state.involved(seat):
            return PlayerLeft(seat, state.stacks[seat])
    if state.phase == DEALING and state.pot == 0:
        return _match_end(state)
    if state.phase == BIDDING:
        return _bidding_consequence(state)
    if state.phase == PLAYING:
        return _play_consequence(state)
    return None


def _match_end(state: AziState) -> Event | None:
    seated = [s for s in range(state.seats) if not state.left[s]]
    payers = [s for s in seated if state.stacks[s] >= state.options.ante]
    reason = "left" if len(seated) <= 1 else "ante" if len(payers) < 2 else None
    if reason is None:
        return None
    results = tuple(s - state.options.buy_in for s in state.stacks)
    return MatchEnded(reason, state.stacks, results)


def _bidding_consequence(state: AziState) -> Event | None:
    remaining = state.players_in_play()
    if len(remaining) == 1:
        return PotWon(remaining[0], "all_folded", state.pot)
    if state.turn is not None:
        return None
    leader = state.leader
    if leader is None:
        # Nobody could bid (everyone still in is all in from the ante): the
        # first player after the dealer leads.
        assert state.dealer is not None
        leader = state.next_seat(state.dealer, state.in_play)
        assert leader is not None
    short = tuple(s for s in remaining if state.bids[s] < state.highest)
    return BiddingEnded(leader, state.highest, short)


def _play_consequence(state: AziState) -> Event | None:
    players = state.players_in_play()
    if state.trick and len(state.trick) == len(players):
        assert state.trump is not None
        winner = trick_winner(state.trick, state.trump, state.six_on_stage)
        return TrickTaken(
            len(state.trick_winners) + 1,
            winner,
            tuple(s for s, _ in state.trick),
            tuple(c for _, c in state.trick),
        )
    if state.trick:
        return None
    for seat in players:
        if state.tricks[seat] >= TRICKS_TO_WIN:
            return PotWon(seat, "two_tricks", state.pot)
    if len(state.trick_winners) == 3:
        return _azi(state)
    return None


def _azi(state: AziState) -> AziDeclared:
    takers = tuple(sorted(set(state.trick_winners)))
    dealer = state.trick_winners[-1]
    price = state.pot // 2
    candidates: list[int] = []
    if state.options.azi_buy_in == "half_pot":
        for step in range(1, state.seats + 1):
            seat = (dealer + step) % state.seats
            if (
                seat not in takers
                and not state.left[seat]
                and state.stacks[seat] > 0
                and state.stacks[seat] >= price
            ):
                candidates.append(seat)
    return AziDeclared(takers, dealer, price, tuple(candidates))
