"""A deterministic Azi player: bids by hand strength, plays tricks sensibly.

Strength is an estimate of the chance to take two of the three tricks:
each card's chance to take a trick is judged from the cards still unseen
(higher cards of its suit, and for side suits the danger of being trumped),
and the chance of two successes out of three follows from those. Bidding
weighs that chance against the pot odds and the number of opponents still
in; the lead is worth a little extra and an early position (many players
still to speak) asks for a better hand. Strong hands bet big: twice the pot,
three times it with the strongest; everything only when the stack left behind
such a bet would be smaller than the pot (a short stack is committed anyway),
so a full stack is never pushed in on one hand's cards. In play the bot wins a trick as cheaply as
it safely can and throws its weakest card otherwise. It joins an Azi replay
when the price is small next to its stack.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..base import JSON, RuleError
from .cards import deck, playable, power, rank_of, suit_of, trick_winner
from .state import AZI_BUY_IN, BIDDING, DISCARDING, MAX_ACTIONS, PLAYING, AziState

SIDE_SUIT_TRUMP_RISK = 0.8
"""Chance, per opponent, that a winning side-suit card is not trumped."""


def card_value(state: AziState, card: str) -> int:
    """Strength of a card on its own: trumps above side suits, rank within."""
    assert state.trump is not None
    return power(card, suit_of(card), state.trump, state.six_on_stage)


def weakest_card(state: AziState, seat: int, cards: Iterable[str]) -> str:
    """The card worth least (lowest side-suit card first, trumps last)."""
    return min(cards, key=lambda c: (card_value(state, c), c[1]))


def _unseen(state: AziState, seat: int) -> list[str]:
    """Cards the seat has not seen: not in its hand, not played, not shown out of play."""
    seen = set(state.hands[seat]) | set(state.played) | {c for _, c in state.trick}
    if state.options.cards == 3 and state.trump_card is not None:
        seen.add(state.trump_card)
    own_discard = state.discarded[seat]
    if own_discard is not None:
        seen.add(own_discard)
    return [c for c in deck(state.options.deck) if c not in seen]


def _opponent_cards(state: AziState, seat: int) -> int:
    return sum(len(state.hands[s]) for s in state.players_in_play() if s != seat)


def _beaters(state: AziState, card: str, led: str, unseen: Sequence[str]) -> int:
    """Unseen cards that beat ``card`` in a trick whose first card is ``led``
    (``card`` itself when it leads)."""
    assert state.trump is not None
    mine = power(card, suit_of(led), state.trump, state.six_on_stage)
    return sum(1 for c in unseen if power(c, suit_of(led), state.trump, state.six_on_stage) > mine)


def card_chance(state: AziState, seat: int, card: str, unseen: Sequence[str]) -> float:
    """Rough chance that ``card`` takes a trick it is played to."""
    if not unseen:
        return 1.0
    opponents = len(state.players_in_play()) - 1
    held = min(1.0, _opponent_cards(state, seat) / len(unseen))
    higher_same = sum(
        1 for c in unseen if suit_of(c) == suit_of(card) and rank_of(c) > rank_of(card)
    )
    if suit_of(card) == state.trump:
        return (1.0 - held) ** _beaters(state, card, card, unseen)
    return (1.0 - held) ** higher_same * SIDE_SUIT_TRUMP_RISK ** max(opponents, 0)


def strength(state: AziState, seat: int) -> float:
    """Estimated chance of taking two tricks with the seat's hand."""
    unseen = _unseen(state, seat)
    chances = [card_chance(state, seat, c, unseen) for c in state.hands[seat]]
    have = state.tricks[seat]
    need = max(0, 2 - have)
    # Poisson-binomial: the chance of at least ``need`` successes.
    dist = [1.0]
    for p in chances:
        nxt = [0.0] * (len(dist) + 1)
        for k, q in enumerate(dist):
            nxt[k] += q * (1 - p)
            nxt[k + 1] += q * p
        dist = nxt
    return sum(dist[need:])


# -- bidding ---------------------------------------------------------------------
OPEN_MARGIN = 1.15
"""Open only with a hand this much better than an even share of the pot…"""
OPEN_MARGIN_PER_PLAYER_BEHIND = 0.1
"""…and more per opponent still to speak after us (early position is riskier)."""
LEAD_BONUS = 1.1
"""Leading the first trick (as the bid leader) is worth about this factor."""
RAISE_AT = 0.5
RAISE_MARGIN = 1.6
CALL_MARGIN = 1.1


def _bid(state: AziState, seat: int) -> JSON:
    in_play = state.players_in_play()
    opponents = len(in_play) - 1
    fair = 1.0 / (opponents + 1)
    s = strength(state, seat)
    if state.leader is None or state.leader == seat:
        s = min(1.0, s * LEAD_BONUS)
    low = state.highest + state.options.min_bet
    high = state.bids[seat] + state.stacks[seat]
    can_bet = state.actions[seat] < MAX_ACTIONS - 1 and high >= low
    pot = state.pot
    if state.highest == 0:
        behind = sum(
            1 for o in in_play if o != seat and state.stacks[o] > 0 and state.actions[o] == 0
        )
        if can_bet and s >= fair * (OPEN_MARGIN + OPEN_MARGIN_PER_PLAYER_BEHIND * behind):
            return {"action": "bet", "amount": bet_size(s, low, high, pot)}
        return {"action": "fold"}
    owed = min(state.highest - state.bids[seat], state.stacks[seat])
    if can_bet and s >= max(RAISE_AT, fair * RAISE_MARGIN):
        return {"action": "bet", "amount": bet_size(s, low, high, pot)}
    if s * (pot + owed) > owed * CALL_MARGIN:
        return {"action": "call"}
    return {"action": "fold"}


STRONG = 0.8
"""A hand this strong bets three pots…"""
GOOD = 0.6
"""…this strong two pots; a fair one the smallest bid."""


def bet_size(s: float, low: int, high: int, pot: int) -> int:
    """The bid for a hand of strength ``s``, between the smallest bid ``low`` and
    everything ``high``: ``low`` with fair hands, twice the pot above it with good
    ones, three times with strong ones. All in only when what such a bet would
    leave behind is less than the pot: a short stack is committed anyway, while a
    full one is never put in on one hand (whoever calls it risks the match on
    three cards, and whoever folds leaves the bot a pot it would take smaller)."""
    if s >= STRONG:
        size = 3 * pot + low
    elif s >= GOOD:
        size = 2 * pot + low
    else:
        return low
    if high - size < pot:
        return high
    return max(low, min(high, size))


# -- play -------------------------------------------------------------------------
def _play(state: AziState, seat: int) -> JSON:
    assert state.trump is not None
    hand = state.hands[seat]
    cards = playable(hand, state.led_suit(), state.trump)
    unseen = _unseen(state, seat)
    if not state.trick:
        return {"action": "play", "card": _lead(state, seat, cards, unseen)}
    players = state.players_in_play()
    last = len(state.trick) == len(players) - 1
    winning = [c for c in cards if _takes(state, seat, c)]
    if not winning:
        return {"action": "play", "card": weakest_card(state, seat, cards)}
    if last:
        return {"action": "play", "card": weakest_card(state, seat, winning)}
    led = state.trick[0][1]
    safe = [c for c in winning if _beaters(state, c, led, unseen) == 0]
    if safe:
        return {"action": "play", "card": weakest_card(state, seat, safe)}
    return {"action": "play", "card": max(winning, key=lambda c: card_value(state, c))}


def _takes(state: AziState, seat: int, card: str) -> bool:
    assert state.trump is not None
    return trick_winner((*state.trick, (seat, card)), state.trump, state.six_on_stage) == seat


def _lead(state: AziState, seat: int, cards: Sequence[str], unseen: Sequence[str]) -> str:
    """Lead a sure or likely winner; otherwise give the weakest card away."""
    best = max(cards, key=lambda c: (card_chance(state, seat, c, unseen), card_value(state, c)))
    if card_chance(state, seat, best, unseen) >= 0.5:
        return best
    return weakest_card(state, seat, cards)


AZI_STACK_SHARE = 5
"""Buy into an Azi only when the price is at most a fifth of the stack."""


# -- the move ------------------------------------------------------------------------
def choose_move(state: AziState, seat: int) -> JSON:
    """The bot's move for ``seat`` (a legal body; never ``leave``)."""
    if state.phase == DISCARDING:
        return {"action": "discard", "card": weakest_card(state, seat, state.hands[seat])}
    if state.phase == BIDDING and state.turn == seat:
        return _bid(state, seat)
    if state.phase == PLAYING and state.turn == seat:
        return _play(state, seat)
    if state.phase == AZI_BUY_IN and state.turn == seat:
        # Joining costs half the pot to play for one and a half pots against
        # players it expects to outplay; it stays out when that is a big bite.
        if state.azi_price * AZI_STACK_SHARE <= state.stacks[seat]:
            return {"action": "buy_in"}
        return {"action": "decline"}
    raise RuleError("not_your_turn", f"seat {seat} has no move to make in phase {state.phase}")
