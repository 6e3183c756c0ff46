"""The state of an Azi match and how each event changes it.

The state is one immutable value: match-wide facts (stacks, who left, the
deal counter), the pot being played for (contributions and short marks
that last across an Azi chain) and the current deal (hands, bidding,
tricks). :func:`apply` folds one event into a new state; it trusts the
event (the engine checked the move) but refuses chips that would go
negative or a settlement that does not match the pot.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..base import Event
from ..evolve import evolve
from .events import (
    AntesPaid,
    AziDeclared,
    BetPlaced,
    BiddingEnded,
    BoughtIn,
    Called,
    CardPlayed,
    Declined,
    Discarded,
    Folded,
    HandDealt,
    LeaveRequested,
    MatchEnded,
    PlayerLeft,
    PotSettled,
    PotWon,
    TrickTaken,
)

MAX_ACTIONS = 3
"""Bidding actions a player may take in one bidding; the last only call or fold."""

TRICKS_TO_WIN = 2

# Phases (also the ``phase`` of the view).
DEALING = "dealing"
DISCARDING = "discarding"
BIDDING = "bidding"
PLAYING = "playing"
AZI_BUY_IN = "azi_buy_in"
SETTLING = "settling"
OVER = "over"


@dataclass(frozen=True, slots=True)
class AziOptions:
    """The table options of ``rules/azi.md`` (validated by the engine)."""

    deck: int = 27
    cards: int = 3
    six_on_stage: bool = True
    buy_in: int = 1000
    ante: int = 10
    min_bet: int = 10
    azi_buy_in: str = "half_pot"

    def as_dict(self) -> dict[str, Any]:
        return {
            "deck": self.deck,
            "cards": self.cards,
            "six_on_stage": self.six_on_stage,
            "buy_in": self.buy_in,
            "ante": self.ante,
            "min_bet": self.min_bet,
            "azi_buy_in": self.azi_buy_in,
        }


def _falses(n: int) -> tuple[bool, ...]:
    return (False,) * n


def _zeros(n: int) -> tuple[int, ...]:
    return (0,) * n


@dataclass(frozen=True, slots=True)
class AziState:
    options: AziOptions
    stacks: tuple[int, ...]
    left: tuple[bool, ...]
    leaving: tuple[bool, ...]
    phase: str = DEALING
    deals: int = 0
    """Deals dealt so far: the number ``d`` of the next deal."""
    hand_no: int = 0
    """New hands started (Azi replays not counted)."""
    dealer: int | None = None
    last_winner: int | None = None
    # -- the pot (lasts across an Azi chain) --
    contributions: tuple[int, ...] = ()
    short: tuple[bool, ...] = ()
    azi_count: int = 0
    next_dealer: int | None = None
    replay_seats: tuple[int, ...] = ()
    azi_price: int = 0
    azi_queue: tuple[int, ...] = ()
    pot_winner: int | None = None
    # -- the current deal --
    in_hand: tuple[bool, ...] = ()
    hands: tuple[tuple[str, ...], ...] = ()
    trump_card: str | None = None
    trump: str | None = None
    six_on_stage: bool = False
    discarded: tuple[str | None, ...] = ()
    bids: tuple[int, ...] = ()
    actions: tuple[int, ...] = ()
    folded: tuple[bool, ...] = ()
    highest: int = 0
    leader: int | None = None
    turn: int | None = None
    trick: tuple[tuple[int, str], ...] = ()
    tricks: tuple[int, ...] = ()
    trick_winners: tuple[int, ...] = ()
    played: tuple[str, ...] = ()
    """Cards of the finished tricks of this deal, in play order."""
    over: bool = False
    end_reason: str | None = None

    @classmethod
    def start(cls, options: AziOptions, seats: int) -> AziState:
        return cls(
            options=options,
            stacks=(options.buy_in,) * seats,
            left=_falses(seats),
            leaving=_falses(seats),
            contributions=_zeros(seats),
            short=_falses(seats),
            **_fresh_deal(seats),
        )

    # -- derived facts ---------------------------------------------------------
    @property
    def seats(self) -> int:
        return len(self.stacks)

    @property
    def pot(self) -> int:
        return sum(self.contributions)

    def in_play(self, seat: int) -> bool:
        """Dealt in this deal and not folded (short players included)."""
        return self.in_hand[seat] and not self.folded[seat]

    def players_in_play(self) -> list[int]:
        return [s for s in range(self.seats) if self.in_play(s)]

    def involved(self, seat: int) -> bool:
        """Part of the unsettled pot: dealt in this deal or a contributor."""
        return self.contributions[seat] > 0 or self.in_hand[seat]

    def needs_to_bid(self, seat: int) -> bool:
        """Still has a bidding decision to make (see :func:`_bidder_after`)."""
        return _bidder_after(self, seat - 1, {}) == seat

    def next_seat(self, after: int, wanted: Callable[[int], bool]) -> int | None:
        """The first seat after ``after`` (going round) for which ``wanted`` holds."""
        for step in range(1, self.seats + 1):
            seat = (after + step) % self.seats
            if wanted(seat):
                return seat
        return None

    def led_suit(self) -> str | None:
        return self.trick[0][1][1] if self.trick else None


def _fresh_deal(seats: int) -> dict[str, Any]:
    """The per-deal fields of a state with no deal on the table."""
    return {
        "in_hand": _falses(seats),
        "hands": tuple(() for _ in range(seats)),
        "trump_card": None,
        "trump": None,
        "six_on_stage": False,
        "discarded": (None,) * seats,
        "bids": _zeros(seats),
        "actions": _zeros(seats),
        "folded": _falses(seats),
        "highest": 0,
        "leader": None,
        "turn": None,
        "trick": (),
        "tricks": _zeros(seats),
        "trick_winners": (),
        "played": (),
    }


def _set(values: tuple[Any, ...], seat: int, value: Any) -> tuple[Any, ...]:
    return (*values[:seat], value, *values[seat + 1 :])


def _add(values: tuple[int, ...], seat: int, amount: int) -> tuple[int, ...]:
    return _set(values, seat, values[seat] + amount)


def _pay(state: AziState, seat: int, amount: int) -> dict[str, Any]:
    """Chips from ``seat``'s stack into the pot (never more than he has)."""
    if not 0 <= amount <= state.stacks[seat]:
        raise ValueError(f"seat {seat} cannot pay {amount} from a stack of {state.stacks[seat]}")
    return {
        "stacks": _add(state.stacks, seat, -amount),
        "contributions": _add(state.contributions, seat, amount),
    }


def _bidder_after(state: AziState, after: int, changes: Mapping[str, Any]) -> int | None:
    """The next seat after ``after`` with a bidding decision to make, reading
    the state as ``changes`` would leave it (so a handler needs one ``replace``).

    All-in players have no decision; nor has a player who has matched the
    highest bid since the last raise. While nobody has bid, every player
    still in must open or fold.
    """
    in_hand = changes.get("in_hand", state.in_hand)
    folded = changes.get("folded", state.folded)
    stacks = changes.get("stacks", state.stacks)
    actions = changes.get("actions", state.actions)
    bids = changes.get("bids", state.bids)
    highest = changes.get("highest", state.highest)
    seats = len(stacks)
    for step in range(1, seats + 1):
        seat = (after + step) % seats
        if (
            in_hand[seat]
            and not folded[seat]
            and stacks[seat] > 0
            and actions[seat] < MAX_ACTIONS
            and (highest == 0 or bids[seat] < highest)
        ):
            return seat
    return None


def _buyer_fields(queue: tuple[int, ...]) -> dict[str, Any]:
    """Hand the Azi decision to the first seat in ``queue``, or go deal the replay."""
    if queue:
        return {"azi_queue": queue, "turn": queue[0], "phase": AZI_BUY_IN}
    return {"azi_queue": (), "turn": None, "phase": DEALING}


# -- one function per event; each builds its changes and replaces once -----------
def _antes_paid(state: AziState, e: AntesPaid) -> AziState:
    stacks = tuple(s - a for s, a in zip(state.stacks, e.antes, strict=True))
    if any(s < 0 for s in stacks) or state.pot:
        raise ValueError(f"antes {e.antes} do not fit stacks {state.stacks} / pot {state.pot}")
    return evolve(
        state,
        stacks=stacks,
        contributions=tuple(e.antes),
        short=_falses(state.seats),
        hand_no=e.hand,
        azi_count=0,
        pot_winner=None,
    )


def _hand_dealt(state: AziState, e: HandDealt) -> AziState:
    if e.deal != state.deals:
        raise ValueError(f"deal {e.deal} arrived when deal {state.deals} was due")
    changes = _fresh_deal(state.seats)
    changes.update(
        phase=DISCARDING if state.options.cards == 4 else BIDDING,
        deals=e.deal + 1,
        dealer=e.dealer,
        hands=tuple(tuple(h) for h in e.hands),
        in_hand=tuple(bool(h) for h in e.hands),
        trump_card=e.trump_card,
        trump=e.trump,
        six_on_stage=e.six_on_stage,
        azi_count=state.azi_count + (1 if e.azi else 0),
        next_dealer=None,
        replay_seats=(),
        azi_price=0,
        azi_queue=(),
    )
    if changes["phase"] == BIDDING:
        changes["turn"] = _bidder_after(state, e.dealer, changes)
    return evolve(state, **changes)


def _discarded(state: AziState, e: Discarded) -> AziState:
    changes: dict[str, Any] = {
        "hands": _set(state.hands, e.seat, tuple(c for c in state.hands[e.seat] if c != e.card)),
        "discarded": _set(state.discarded, e.seat, e.card),
    }
    done = changes["discarded"]
    if all(done[s] is not None for s in range(state.seats) if state.in_hand[s]):
        assert state.dealer is not None
        changes["phase"] = BIDDING
        changes["turn"] = _bidder_after(state, state.dealer, changes)
    return evolve(state, **changes)


def _bid(state: AziState, seat: int, changes: dict[str, Any]) -> AziState:
    """Count the action and pass the turn."""
    changes["actions"] = _add(state.actions, seat, 1)
    changes["turn"] = _bidder_after(state, seat, changes)
    return evolve(state, **changes)


def _bet_placed(state: AziState, e: BetPlaced) -> AziState:
    bids = _add(state.bids, e.seat, e.paid)
    if bids[e.seat] != e.amount:
        raise ValueError(f"bet to {e.amount} by seat {e.seat} paid {e.paid}, bids {state.bids}")
    changes = _pay(state, e.seat, e.paid)
    changes.update(bids=bids, highest=e.amount, leader=e.seat)
    return _bid(state, e.seat, changes)


def _called(state: AziState, e: Called) -> AziState:
    changes = _pay(state, e.seat, e.paid)
    changes["bids"] = _add(state.bids, e.seat, e.paid)
    if e.short:  # short for this pot from now on, whatever happens next
        changes["short"] = _set(state.short, e.seat, True)
    return _bid(state, e.seat, changes)


def _folded(state: AziState, e: Folded) -> AziState:
    return _bid(state, e.seat, {"folded": _set(state.folded, e.seat, True)})


def _bidding_ended(state: AziState, e: BiddingEnded) -> AziState:
    short = tuple(flag or s in e.short for s, flag in enumerate(state.short))
    return evolve(state, phase=PLAYING, short=short, leader=e.leader, turn=e.leader)


def _card_played(state: AziState, e: CardPlayed) -> AziState:
    hand = tuple(c for c in state.hands[e.seat] if c != e.card)
    trick = (*state.trick, (e.seat, e.card))
    complete = len(trick) == len(state.players_in_play())
    return evolve(
        state,
        hands=_set(state.hands, e.seat, hand),
        trick=trick,
        turn=None if complete else state.next_seat(e.seat, state.in_play),
    )


def _trick_taken(state: AziState, e: TrickTaken) -> AziState:
    return evolve(
        state,
        tricks=_add(state.tricks, e.winner, 1),
        trick_winners=(*state.trick_winners, e.winner),
        played=state.played + tuple(card for _, card in state.trick),
        trick=(),
        turn=e.winner,
    )


def _pot_won(state: AziState, e: PotWon) -> AziState:
    return evolve(state, phase=SETTLING, pot_winner=e.winner, turn=None)


def _azi_declared(state: AziState, e: AziDeclared) -> AziState:
    return evolve(
        state,
        next_dealer=e.dealer,
        replay_seats=tuple(e.takers),
        azi_price=e.price,
        **_buyer_fields(tuple(e.candidates)),
    )


def _bought_in(state: AziState, e: BoughtIn) -> AziState:
    return evolve(
        state,
        **_pay(state, e.seat, e.paid),
        replay_seats=tuple(sorted((*state.replay_seats, e.seat))),
        **_buyer_fields(tuple(s for s in state.azi_queue if s != e.seat)),
    )


def _declined(state: AziState, e: Declined) -> AziState:
    return evolve(state, **_buyer_fields(tuple(s for s in state.azi_queue if s != e.seat)))


def _pot_settled(state: AziState, e: PotSettled) -> AziState:
    if sum(e.payouts) != state.pot or tuple(e.contributions) != state.contributions:
        raise ValueError(f"settlement {e} does not match the pot {state.contributions}")
    changes = _fresh_deal(state.seats)
    changes.update(
        phase=DEALING,
        stacks=tuple(s + p for s, p in zip(state.stacks, e.payouts, strict=True)),
        contributions=_zeros(state.seats),
        short=_falses(state.seats),
        last_winner=e.winner,
        pot_winner=None,
        azi_count=0,
    )
    return evolve(state, **changes)


def _leave_requested(state: AziState, e: LeaveRequested) -> AziState:
    return evolve(state, leaving=_set(state.leaving, e.seat, True))


def _player_left(state: AziState, e: PlayerLeft) -> AziState:
    changes: dict[str, Any] = {
        "left": _set(state.left, e.player, True),
        "leaving": _set(state.leaving, e.player, False),
    }
    if state.phase == AZI_BUY_IN and e.player in state.azi_queue:
        changes.update(_buyer_fields(tuple(s for s in state.azi_queue if s != e.player)))
    return evolve(state, **changes)


def _match_ended(state: AziState, e: MatchEnded) -> AziState:
    return evolve(state, phase=OVER, over=True, turn=None, end_reason=e.reason)


_APPLY: dict[type[Event], Callable[[AziState, Any], AziState]] = {
    AntesPaid: _antes_paid,
    HandDealt: _hand_dealt,
    Discarded: _discarded,
    BetPlaced: _bet_placed,
    Called: _called,
    Folded: _folded,
    BiddingEnded: _bidding_ended,
    CardPlayed: _card_played,
    TrickTaken: _trick_taken,
    PotWon: _pot_won,
    AziDeclared: _azi_declared,
    BoughtIn: _bought_in,
    Declined: _declined,
    PotSettled: _pot_settled,
    LeaveRequested: _leave_requested,
    PlayerLeft: _player_left,
    MatchEnded: _match_ended,
}


def apply(state: AziState, event: Event) -> AziState:
    """Fold one event; ``state`` itself is never changed."""
    handler = _APPLY.get(type(event))
    if handler is None:
        raise ValueError(f"azi has no event type {event.type!r}")
    return handler(state, event)
