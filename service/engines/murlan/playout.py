"""Fast playouts of a Murlan hand: the loop random playouts and searching
bots run thousands of times.

:func:`play_out` makes the moves of a hand on local variables, with no move
bodies or events, and gives the same state as making them through the
engine (:mod:`.engine`).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from typing import Final

from .combos import (
    DECK_SIZE,
    RANK_COUNT,
    RANK_START,
    SINGLE,
    SINGLES,
    Combo,
    classify,
    names,
    nth_play,
    play_blocks,
    plays,
    quads,
)
from .engine import ENGINE
from .state import PLAYING, SEATS, MurlanState, Trick, remove_cards

Chooser = Callable[[int], int]
"""``choose(n)`` picks an index in ``range(n)``: a random or searching policy."""

FLOOR_ABOVE: Final[tuple[int, ...]] = tuple(
    RANK_START[value + 1] if value + 1 < RANK_COUNT else DECK_SIZE + 1
    for value in range(RANK_COUNT)
)
"""Following a single of rank ``value``, the lowest code that beats it (55: nothing does)."""


def play_out(state: MurlanState, choose: Chooser) -> MurlanState:
    """Finish the current hand, each move being ``legal_moves(...)[choose(n)]``
    with ``n`` the number of legal moves (plays in their listed order, then
    ``pass`` when allowed).

    The result equals making those moves through :meth:`MurlanEngine.decide`
    and :meth:`MurlanEngine.apply`, but the moves in between are made on
    local variables, with no move bodies or events: this is the loop random
    playouts and searching bots run thousands of times. The chosen play is
    found by index in the blocks of :func:`~.combos.play_blocks`
    without building the others. The hand's last move goes through
    ``decide``/``apply``, so scoring and the match's outcome live in one place.
    """
    if state.phase != PLAYING:
        raise ValueError(f"play_out needs a hand in play, not phase {state.phase!r}")
    any_higher = state.any_higher
    hands = list(state.deal.hands)
    out = list(state.deal.out)
    turn, table, cards, last, passes, must = state.trick
    players_in = sum(1 for h in hands if h)
    bombs = [quads(h) for h in hands]  # each seat's quads, kept up to date
    # Following a single, the lowest code that beats it (-1: not following a single).
    floor = FLOOR_ABOVE[table.value] if table is not None and table.kind is SINGLE else -1
    # Passes that clear the table: everyone else still in, or everyone if the
    # last player has gone out.
    needed = players_in - 1 if last >= 0 and hands[last] else players_in
    while True:
        hand = hands[turn]
        play = _choose_play(hand, bombs[turn], table, floor, must, any_higher, choose)
        if play is None:
            passes += 1
            if passes >= needed:
                turn, leader_in = last, bool(hands[last])
                table, cards, last, passes, floor = None, (), -1, 0, -1
                if leader_in:  # he leads again; if he went out, the next one still in
                    continue
        else:
            if len(play) == len(hand) and len(out) == SEATS - 2:
                trick = Trick(turn, table, cards, last, passes, must)
                return _last_play(state, hands, out, trick, play)
            if len(play) == len(hand):
                hands[turn] = ()
                out.append(turn)
                players_in -= 1
                needed = players_in
            else:
                hands[turn] = remove_cards(hand, play)
                needed = players_in - 1
                if bombs[turn]:
                    gone = set(play)
                    bombs[turn] = [q for q in bombs[turn] if gone.isdisjoint(q)]
            if len(play) == 1:
                table = SINGLES[play[0]]
                floor = FLOOR_ABOVE[table.value]
            else:
                table, floor = classify(play), -1
            cards, last, passes, must = play, turn, 0, -1
        turn = _next_holding(hands, turn)


def _choose_play(
    hand: tuple[int, ...],
    held: list[tuple[int, ...]],
    table: Combo | None,
    floor: int,
    must: int,
    any_higher: bool,
    choose: Chooser,
) -> tuple[int, ...] | None:
    """The move ``choose`` picks among the seat's legal moves (``None``: pass),
    ``held`` being its quads and ``floor`` the lowest single that beats the
    table's (-1: not following a single)."""
    if floor >= 0:
        # The commonest position, inlined: higher singles, then quads, then pass.
        start = bisect_left(hand, floor)
        singles = len(hand) - start
        k = choose(singles + len(held) + 1)
        if k < singles:
            return (hand[start + k],)
        if k < singles + len(held):
            return held[k - singles]
        return None
    if must >= 0:
        options = [p for p in plays(hand, table, any_higher) if must in p]
        return options[choose(len(options))]
    blocks = play_blocks(hand, table, any_higher)
    count = sum([b[0] for b in blocks])
    k = choose(count + (table is not None))
    return nth_play(blocks, k) if k < count else None


def _next_holding(hands: list[tuple[int, ...]], turn: int) -> int:
    """The next seat after ``turn`` still holding cards."""
    while True:
        turn = (turn + 1) % SEATS
        if hands[turn]:
            return turn


def _last_play(
    state: MurlanState,
    hands: list[tuple[int, ...]],
    out: list[int],
    trick: Trick,
    play: tuple[int, ...],
) -> MurlanState:
    """The hand's last play, from the position the playout reached, made
    through the engine's ``decide`` and ``apply``."""
    deal = state.deal._replace(hands=tuple(hands), out=tuple(out))
    state = state._replace(deal=deal, trick=trick)
    for event in ENGINE.decide(state, trick.turn, {"action": "play", "cards": names(play)}):
        state = ENGINE.apply(state, event)
    return state
