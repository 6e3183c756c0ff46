"""The state of a Murlan match and how each event changes it.

The state is one immutable value in three parts: the current trick, the
current hand (cards held, finishers, the exchange) and the match (scores,
target, winner). :func:`apply` folds one event into a new state; it trusts
the event (the engine checked the move).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, NamedTuple

from ..base import Event
from .combos import CARD_CODES, Combo, classify
from .events import (
    CardGiven,
    CardGivenBack,
    CardsPlayed,
    ExchangeSkipped,
    HandDealt,
    HandEnded,
    MatchWon,
    Passed,
    PlayStarted,
    TableCleared,
    TargetRaised,
    TopTied,
    WentOut,
)

SEATS: Final = 4
FIRST_TARGET: Final = 21
STRAIGHT_BEATS: Final = ("one_higher", "any_higher")
"""The ``straight_beats`` option by ``any_higher``: ``STRAIGHT_BEATS[state.any_higher]``."""

# phases
DEALING: Final = "dealing"
EXCHANGE: Final = "exchange"
PLAYING: Final = "playing"
OVER: Final = "over"


# The state is built from NamedTuples rather than frozen dataclasses: they are
# just as immutable and comparable with ``==``, and several times cheaper to
# rebuild, which a random playout does a hundred times a hand. It is split so
# that a pass or a play rebuilds only the small part it changes.
class Trick(NamedTuple):
    """The table during play: whose turn, the combination to beat (``None``
    when the player to act leads), its cards and player, the passes since,
    and the card the opening lead must include (``-1``: none)."""

    turn: int = -1
    table: Combo | None = None
    cards: tuple[int, ...] = ()
    seat: int = -1
    passes: int = 0
    must_include: int = -1


class Deal(NamedTuple):
    """One hand of the match: its number (= deal number), the seats' sorted
    card codes, the finishers so far, and this hand's exchange."""

    number: int = -1
    hands: tuple[tuple[int, ...], ...] = ((), (), (), ())
    out: tuple[int, ...] = ()
    given: int = -1
    given_back: int = -1
    exchange_skipped: bool = False
    exchange_parties: tuple[int, ...] = ()
    """(first finisher, last finisher) of this hand's exchange, once it began."""


class Match(NamedTuple):
    """Across hands: scores by seat, the target, the previous hand's full
    finishing order (for the exchange) and the winner once over."""

    scores: tuple[int, ...] = (0, 0, 0, 0)
    target: int = FIRST_TARGET
    last_order: tuple[int, ...] = ()
    winner: int = -1


class MurlanState(NamedTuple):
    """The whole state: the table's options (``any_higher`` is
    ``straight_beats: any_higher``), the phase (``dealing``, ``exchange``,
    ``playing``, ``over``) and its three parts."""

    any_higher: bool
    exchange_min_rank: int
    phase: str = DEALING
    deal: Deal = Deal()
    trick: Trick = Trick()
    match: Match = Match()


def _with(state: MurlanState, deal: Deal, trick: Trick) -> MurlanState:
    return MurlanState(
        state.any_higher, state.exchange_min_rank, state.phase, deal, trick, state.match
    )


def next_in(hands: Sequence[tuple[int, ...]], seat: int) -> int:
    """The next seat after ``seat`` still holding cards."""
    for step in range(1, SEATS + 1):
        s = (seat + step) % SEATS
        if hands[s]:
            return s
    return -1


def remove_cards(hand: tuple[int, ...], cards: tuple[int, ...]) -> tuple[int, ...]:
    if len(cards) == 1:
        i = hand.index(cards[0])
        return hand[:i] + hand[i + 1 :]
    gone = set(cards)
    return tuple([x for x in hand if x not in gone])


def _set_hand(
    hands: tuple[tuple[int, ...], ...], seat: int, hand: tuple[int, ...]
) -> tuple[tuple[int, ...], ...]:
    return (*hands[:seat], hand, *hands[seat + 1 :])


def _move_card(
    hands: tuple[tuple[int, ...], ...], code: int, giver: int, taker: int
) -> tuple[tuple[int, ...], ...]:
    hands = _set_hand(hands, giver, remove_cards(hands[giver], (code,)))
    return _set_hand(hands, taker, tuple(sorted((*hands[taker], code))))


# -- one fold step per event type ---------------------------------------------------
def _apply_dealt(state: MurlanState, e: HandDealt) -> MurlanState:
    hands = tuple(tuple(sorted(CARD_CODES[c] for c in h)) for h in e.hands)
    phase = EXCHANGE if e.deal > 0 else PLAYING
    return state._replace(phase=phase, deal=Deal(e.deal, hands), trick=Trick())


def _apply_given(state: MurlanState, e: CardGiven) -> MurlanState:
    code = CARD_CODES[e.card]
    hands = _move_card(state.deal.hands, code, e.from_seat, e.to_seat)
    parties = (e.to_seat, e.from_seat)
    return state._replace(
        deal=state.deal._replace(hands=hands, given=code, exchange_parties=parties)
    )


def _apply_skipped(state: MurlanState, e: ExchangeSkipped) -> MurlanState:
    parties = (e.first_finisher, e.last_finisher)
    return state._replace(deal=state.deal._replace(exchange_skipped=True, exchange_parties=parties))


def _apply_given_back(state: MurlanState, e: CardGivenBack) -> MurlanState:
    code = CARD_CODES[e.card]
    hands = _move_card(state.deal.hands, code, e.seat, e.to_seat)
    return state._replace(deal=state.deal._replace(hands=hands, given_back=code))


def _apply_started(state: MurlanState, e: PlayStarted) -> MurlanState:
    must = CARD_CODES[e.must_include] if e.must_include is not None else -1
    return state._replace(phase=PLAYING, trick=Trick(turn=e.leader, must_include=must))


def _apply_played(state: MurlanState, e: CardsPlayed) -> MurlanState:
    cards = tuple([CARD_CODES[c] for c in e.cards])
    deal = state.deal
    seat = e.seat
    hands = _set_hand(deal.hands, seat, remove_cards(deal.hands[seat], cards))
    new_deal = deal._replace(hands=hands)
    trick = Trick(next_in(hands, seat), classify(cards), cards, seat, 0, -1)
    return _with(state, new_deal, trick)


def _apply_passed(state: MurlanState, e: Passed) -> MurlanState:
    t = state.trick
    trick = Trick(next_in(state.deal.hands, e.seat), t.table, t.cards, t.seat, t.passes + 1, -1)
    return _with(state, state.deal, trick)


def _apply_cleared(state: MurlanState, e: TableCleared) -> MurlanState:
    return _with(state, state.deal, Trick(e.leader))


def _apply_went_out(state: MurlanState, e: WentOut) -> MurlanState:
    return state._replace(deal=state.deal._replace(out=(*state.deal.out, e.seat)))


def _apply_hand_ended(state: MurlanState, e: HandEnded) -> MurlanState:
    match = state.match._replace(scores=e.scores, last_order=e.order)
    return state._replace(phase=DEALING, trick=state.trick._replace(turn=-1), match=match)


def _apply_raised(state: MurlanState, e: TargetRaised) -> MurlanState:
    return state._replace(match=state.match._replace(target=e.target))


def _apply_top_tied(state: MurlanState, e: TopTied) -> MurlanState:
    return state


def _apply_won(state: MurlanState, e: MatchWon) -> MurlanState:
    return state._replace(phase=OVER, match=state.match._replace(winner=e.winner))


_APPLY: Final[dict[type[Event], Callable[[MurlanState, Any], MurlanState]]] = {
    HandDealt: _apply_dealt,
    CardGiven: _apply_given,
    ExchangeSkipped: _apply_skipped,
    CardGivenBack: _apply_given_back,
    PlayStarted: _apply_started,
    CardsPlayed: _apply_played,
    Passed: _apply_passed,
    TableCleared: _apply_cleared,
    WentOut: _apply_went_out,
    HandEnded: _apply_hand_ended,
    TargetRaised: _apply_raised,
    TopTied: _apply_top_tied,
    MatchWon: _apply_won,
}


def apply(state: MurlanState, event: Event) -> MurlanState:
    """Fold one event; ``state`` itself is never changed."""
    handler = _APPLY.get(type(event))
    if handler is None:
        raise ValueError(f"murlan cannot apply {event.type or type(event).__name__}")
    return handler(state, event)
