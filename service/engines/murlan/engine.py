"""Murlan: a four-player climbing game with 54 cards, played to 21 and beyond.

The rules are ``rules/murlan.md``; ``docs/rules/murlan.md`` records the
choices made where they are silent. The engine is a pure fold: seats' moves
(``play``, ``pass``, ``give_back``) are checked by :meth:`MurlanEngine.decide`
and become events; the deal and the automatic half of the exchange come from
:meth:`MurlanEngine.advance`. Cards are held as the integer codes of
:mod:`.combos` inside the state and written as canonical strings in
events and views.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Final

from ..base import JSON, Engine, Event, Move, OptionError, RuleError
from ..shuffle import Shuffler
from . import bot
from .combos import (
    CARD_CODES,
    CARD_NAMES,
    DECK_SIZE,
    RANK_OF,
    RANK_ORDER,
    beat_failure,
    card_code,
    classify,
    names,
    parse_play,
    plays,
)
from .events import (
    EVENT_TYPES,
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
from .state import (
    DEALING,
    EXCHANGE,
    OVER,
    PLAYING,
    SEATS,
    STRAIGHT_BEATS,
    MurlanState,
    apply,
    next_in,
)
from .view import table_view

POINTS_BY_PLACE: Final = (3, 2, 1, 0)
TARGET_STEP: Final = 10
LAST_TARGET: Final = 51
TEN: Final = RANK_ORDER.index("T")

EXCHANGE_MIN_RANKS: Final = (4, 3)
DEFAULT_OPTIONS: Final[dict[str, Any]] = {
    "straight_beats": "one_higher",
    "exchange_min_rank": 4,
}

MOVE_FIELDS: Final[dict[str, frozenset[str]]] = {
    "play": frozenset({"action", "cards"}),
    "pass": frozenset({"action"}),
    "give_back": frozenset({"action", "card"}),
}
"""The fields each move may have: anything else is refused, so that a
misspelt field is not silently ignored."""


def give_back_choices(hand: tuple[int, ...], min_rank: int) -> tuple[int, ...]:
    """Cards the first finisher may return: ranks ``min_rank``..10, else his lowest rank."""
    low = RANK_ORDER.index(str(min_rank))
    allowed = tuple(c for c in hand if low <= RANK_OF[c] <= TEN)
    if allowed:
        return allowed
    lowest = RANK_OF[hand[0]]
    return tuple(c for c in hand if RANK_OF[c] == lowest)


def _give_back_now(state: MurlanState, seat: int) -> tuple[int, ...]:
    """The cards ``seat`` may give back now: none unless the exchange waits for him."""
    if state.phase != EXCHANGE or seat != state.match.last_order[0]:
        return ()
    return give_back_choices(state.deal.hands[seat], state.exchange_min_rank)


def legal_plays(state: MurlanState) -> list[tuple[int, ...]]:
    """Every play (sorted codes) the seat to act may make now."""
    trick = state.trick
    found = plays(state.deal.hands[trick.turn], trick.table, state.any_higher)
    if trick.must_include >= 0:
        found = [p for p in found if trick.must_include in p]
    return found


class MurlanEngine(Engine[MurlanState]):
    name: ClassVar[str] = "murlan"
    min_seats: ClassVar[int] = SEATS
    max_seats: ClassVar[int] = SEATS
    event_types: ClassVar[tuple[type[Event], ...]] = EVENT_TYPES

    # -- setting up ---------------------------------------------------------
    def parse_options(self, raw: Mapping[str, Any]) -> JSON:
        options = dict(DEFAULT_OPTIONS)
        for key, value in raw.items():
            if key == "straight_beats":
                if not isinstance(value, str) or value not in STRAIGHT_BEATS:
                    allowed = " or ".join(STRAIGHT_BEATS)
                    raise OptionError(
                        key,
                        f"straight_beats must be {allowed}, not {value!r}",
                        "option-choice",
                        choices=list(STRAIGHT_BEATS),
                    )
            elif key == "exchange_min_rank":
                if isinstance(value, bool) or value not in EXCHANGE_MIN_RANKS:
                    raise OptionError(
                        key,
                        f"exchange_min_rank must be 4 or 3, not {value!r}",
                        "option-choice",
                        choices=list(EXCHANGE_MIN_RANKS),
                    )
            else:
                known = ", ".join(DEFAULT_OPTIONS)
                raise OptionError(
                    str(key),
                    f"unknown option {key!r} for murlan (known: {known})",
                    "option-unknown",
                )
            options[key] = value
        return options

    def initial(self, options: Mapping[str, Any], seats: int) -> MurlanState:
        if seats != SEATS:
            raise OptionError(
                "seats",
                f"murlan is played by {SEATS} players, not {seats}",
                "seats-out-of-range",
                min=SEATS,
                max=SEATS,
            )
        opts = self.parse_options(options)
        return MurlanState(
            any_higher=opts["straight_beats"] == "any_higher",
            exchange_min_rank=int(opts["exchange_min_rank"]),
        )

    # -- the deal and the exchange's automatic half ------------------------------
    def pending(self, state: MurlanState) -> str | None:
        return "deal" if state.phase == DEALING else None

    def advance(self, state: MurlanState, shuffler: Shuffler) -> list[Event]:
        if state.phase != DEALING:
            return []
        number = state.deal.number + 1
        deck, _ = shuffler.deal(number, DECK_SIZE)
        dealer = number % SEATS
        hands: list[list[str]] = [[] for _ in range(SEATS)]
        for i, card in enumerate(deck):
            # (str(card) without the method call: a joker's rank is "*")
            name = card.rank + card.suit if card.rank != "*" else card.suit + "J"
            hands[(dealer + i) % SEATS].append(name)
        events: list[Event] = [HandDealt(number, dealer, tuple(tuple(h) for h in hands))]
        if number == 0:
            leader = next(s for s in range(SEATS) if "3S" in hands[s])
            events.append(PlayStarted(leader, "3S"))
            return events
        order = state.match.last_order
        first, last = order[0], order[-1]
        if "BJ" in hands[last] and "RJ" in hands[last]:
            events.append(ExchangeSkipped(last, first))
            events.append(PlayStarted(first))
        else:
            highest = max(CARD_CODES[c] for c in hands[last])
            events.append(CardGiven(last, first, CARD_NAMES[highest]))
        return events

    # -- moves -------------------------------------------------------------------
    def decide(self, state: MurlanState, seat: int, move: Move) -> list[Event]:
        if not isinstance(move, Mapping):
            raise RuleError("bad_move", f"a move is an object with an 'action', not {move!r}")
        action = move.get("action")
        if not isinstance(action, str) or action not in MOVE_FIELDS:
            raise RuleError(
                "unknown_action",
                f"unknown action {action!r}: murlan moves are 'play', 'pass' and 'give_back'",
            )
        if len(move) > len(MOVE_FIELDS[action]) or not MOVE_FIELDS[action].issuperset(move):
            extra = sorted(str(k) for k in move if k not in MOVE_FIELDS[action])
            raise RuleError(
                "unexpected_field",
                f"{action} takes only {', '.join(sorted(MOVE_FIELDS[action]))}; "
                f"unexpected {', '.join(map(repr, extra))}",
            )
        phase = state.phase
        if phase == OVER:
            raise RuleError("game_over", "the match is over")
        if phase == DEALING:
            raise RuleError("not_dealt", "the next hand has not been dealt yet")
        if action == "give_back":
            return self._decide_give_back(state, seat, move)
        if phase == EXCHANGE:
            first = state.match.last_order[0]
            raise RuleError(
                "exchange_pending", f"seat {first} must give a card back before play starts"
            )
        turn = state.trick.turn
        if seat != turn:
            raise RuleError("not_your_turn", f"it is seat {turn}'s turn, not seat {seat}'s")
        if action == "pass":
            return self._decide_pass(state, seat)
        if "cards" not in move:
            raise RuleError(
                "no_cards", "a play needs 'cards', e.g. {'action': 'play', 'cards': ['7H']}"
            )
        return self._decide_play(state, seat, move["cards"])

    def _decide_give_back(self, state: MurlanState, seat: int, move: Move) -> list[Event]:
        if state.phase != EXCHANGE:
            raise RuleError("no_exchange", "give_back is only made in the exchange before a hand")
        order = state.match.last_order
        first, last = order[0], order[-1]
        if seat != first:
            raise RuleError(
                "not_your_turn", f"seat {first} (the first finisher) gives back, not seat {seat}"
            )
        if "card" not in move:
            raise RuleError(
                "bad_card", "give_back needs a 'card', e.g. {'action': 'give_back', 'card': '7H'}"
            )
        code = card_code(move["card"])
        hand = state.deal.hands[seat]
        if code not in hand:
            raise RuleError("card_not_in_hand", f"seat {seat} does not hold {CARD_NAMES[code]}")
        choices = give_back_choices(hand, state.exchange_min_rank)
        if code not in choices:
            raise RuleError(
                "give_back_rank",
                f"{CARD_NAMES[code]} may not be given back: give a card ranked "
                f"{state.exchange_min_rank} to 10, or one of your lowest rank if you hold "
                f"none (allowed: {', '.join(names(choices))})",
            )
        return [CardGivenBack(seat, last, CARD_NAMES[code]), PlayStarted(last)]

    @staticmethod
    def _decide_pass(state: MurlanState, seat: int) -> list[Event]:
        trick = state.trick
        if trick.table is None:
            raise RuleError("cannot_pass_lead", f"seat {seat} leads and must play a combination")
        hands = state.deal.hands
        players_in = (bool(hands[0])) + (bool(hands[1])) + (bool(hands[2])) + (bool(hands[3]))
        last = trick.seat
        # Everyone else still in must pass; if the last player has gone out,
        # that is everyone still in.
        needed = players_in - 1 if hands[last] else players_in
        if trick.passes + 1 < needed:
            return [Passed(seat)]
        leader = last if hands[last] else next_in(hands, last)
        return [Passed(seat), TableCleared(leader)]

    @staticmethod
    def _decide_play(state: MurlanState, seat: int, tokens: object) -> list[Event]:
        cards = parse_play(tokens)
        hand = state.deal.hands[seat]
        missing = [c for c in cards if c not in hand]
        if missing:
            raise RuleError(
                "card_not_in_hand", f"seat {seat} does not hold {', '.join(names(missing))}"
            )
        combo = classify(cards)
        if combo is None:
            raise RuleError(
                "not_a_combination",
                f"{' '.join(names(cards))} is not a combination: play a single, a pair, "
                "a triple, a quad or a straight of five or more",
            )
        trick = state.trick
        if trick.must_include >= 0 and trick.must_include not in cards:
            must = CARD_NAMES[trick.must_include]
            raise RuleError("must_include_3s", f"the first play of the match must include {must}")
        if trick.table is not None:
            failure = beat_failure(combo, trick.table, state.any_higher)
            if failure is not None:
                raise RuleError(*failure)
        played = CardsPlayed(seat, tuple([CARD_NAMES[c] for c in cards]), combo.kind)
        if len(cards) < len(hand):
            return [played]
        return [played, *_going_out(state, seat)]

    # -- the fold ---------------------------------------------------------------
    def apply(self, state: MurlanState, event: Event) -> MurlanState:
        return apply(state, event)

    # -- queries -------------------------------------------------------------------
    def to_act(self, state: MurlanState) -> tuple[int, ...]:
        if state.phase == PLAYING:
            return (state.trick.turn,)
        if state.phase == EXCHANGE:
            return (state.match.last_order[0],)
        return ()

    def legal_moves(self, state: MurlanState, seat: int) -> list[JSON]:
        if state.phase == PLAYING:
            if seat != state.trick.turn:
                return []
            moves: list[JSON] = [
                {"action": "play", "cards": [CARD_NAMES[c] for c in p]} for p in legal_plays(state)
            ]
            if state.trick.table is not None:
                moves.append({"action": "pass"})
            return moves
        return [{"action": "give_back", "card": CARD_NAMES[c]} for c in _give_back_now(state, seat)]

    def view(self, state: MurlanState, viewer: int | None) -> JSON:
        return table_view(state, viewer, self.to_act(state))

    def is_over(self, state: MurlanState) -> bool:
        return state.phase == OVER

    def result(self, state: MurlanState) -> JSON:
        out: JSON = {"scores": list(state.match.scores), "target": state.match.target}
        if state.phase == OVER:
            out["winners"] = [state.match.winner]
        return out

    # -- automatic players --------------------------------------------------------
    def bot_move(self, state: MurlanState, seat: int) -> JSON:
        choices = _give_back_now(state, seat)
        if choices:
            card = bot.give_back(state.deal.hands[seat], choices)
            return {"action": "give_back", "card": CARD_NAMES[card]}
        self._check_turn(state, seat)
        choice = bot.choose_play(state, seat, legal_plays(state))
        if choice is None:
            return {"action": "pass"}
        return {"action": "play", "cards": names(choice)}

    def timeout_move(self, state: MurlanState, seat: int) -> JSON:
        """Pass when passing is allowed, else lead the lowest legal play (a
        single); in the exchange, give back the lowest allowed card."""
        choices = _give_back_now(state, seat)
        if choices:
            return {"action": "give_back", "card": CARD_NAMES[choices[0]]}
        self._check_turn(state, seat)
        if state.trick.table is not None:
            return {"action": "pass"}
        return {"action": "play", "cards": names(legal_plays(state)[0])}

    @staticmethod
    def _check_turn(state: MurlanState, seat: int) -> None:
        if state.phase != PLAYING or seat != state.trick.turn:
            raise RuleError("not_your_turn", f"seat {seat} has no move to make now")


def _going_out(state: MurlanState, seat: int) -> list[Event]:
    """What follows ``seat`` playing his last card: his place, and when three
    are out the hand's points and the match's outcome."""
    out = (*state.deal.out, seat)
    events: list[Event] = [WentOut(seat, len(out))]
    if len(out) < SEATS - 1:
        return events
    last = next(s for s in range(SEATS) if s not in out)
    order = (*out, last)
    points = [0] * SEATS
    for place, s in enumerate(order):
        points[s] = POINTS_BY_PLACE[place]
    match = state.match
    scores = tuple(a + b for a, b in zip(match.scores, points, strict=True))
    events.append(HandEnded(state.deal.number, order, tuple(points), scores))
    reached = tuple(s for s in range(SEATS) if scores[s] >= match.target)
    if len(reached) == 1:
        events.append(MatchWon(reached[0], scores))
    elif len(reached) > 1 and match.target < LAST_TARGET:
        events.append(TargetRaised(reached, match.target + TARGET_STEP))
    elif len(reached) > 1:
        top = max(scores)
        leaders = tuple(s for s in range(SEATS) if scores[s] == top)
        if len(leaders) == 1:
            events.append(MatchWon(leaders[0], scores))
        else:
            events.append(TopTied(leaders, top))
    return events


ENGINE: Final = MurlanEngine()
