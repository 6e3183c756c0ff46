"""Murlan: a four-player climbing game with 54 cards, played to 21 and beyond.

The rules are ``rules/murlan.md``; ``docs/rules/murlan.md`` records the
choices made where they are silent. The engine is a pure fold: seats' moves
(``play``, ``pass``, ``give_back``) are checked by :meth:`MurlanEngine.decide`
and become events; the deal and the automatic half of the exchange come from
:meth:`MurlanEngine.advance`. Cards are held as the integer codes of
:mod:`.murlan_combos` inside the state and written as canonical strings in
events and views.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Final, NamedTuple

from . import murlan_bot
from .base import HIDDEN, JSON, Engine, Event, Move, OptionError, RuleError
from .murlan_combos import (
    CARD_CODES,
    CARD_NAMES,
    DECK_SIZE,
    RANK_COUNT,
    RANK_OF,
    RANK_ORDER,
    RANK_START,
    SINGLE,
    SINGLES,
    Combo,
    beat_failure,
    card_code,
    classify,
    names,
    nth_play,
    parse_play,
    play_blocks,
    plays,
    quads,
)
from .shuffle import Shuffler

SEATS: Final = 4
POINTS_BY_PLACE: Final = (3, 2, 1, 0)
FIRST_TARGET: Final = 21
TARGET_STEP: Final = 10
LAST_TARGET: Final = 51
TEN: Final = RANK_ORDER.index("T")

STRAIGHT_BEATS: Final = ("one_higher", "any_higher")
EXCHANGE_MIN_RANKS: Final = (4, 3)
DEFAULT_OPTIONS: Final[dict[str, Any]] = {
    "straight_beats": "one_higher",
    "exchange_min_rank": 4,
}

# phases
DEALING: Final = "dealing"
EXCHANGE: Final = "exchange"
PLAYING: Final = "playing"
OVER: Final = "over"

MOVE_FIELDS: Final[dict[str, frozenset[str]]] = {
    "play": frozenset({"action", "cards"}),
    "pass": frozenset({"action"}),
    "give_back": frozenset({"action", "card"}),
}
"""The fields each move may have: anything else is refused, so that a
misspelt field is not silently ignored."""


# -- events -------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class HandDealt(Event):
    """All 54 cards dealt one at a time, the first to ``dealer`` (seat ``deal mod 4``).

    ``hands`` hold each seat's cards in the order received; ``deal`` is also
    the hand number.
    """

    type: ClassVar[str] = "HandDealt"
    is_deal: ClassVar[bool] = True
    deal: int
    dealer: int
    hands: tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class CardGiven(Event):
    """The exchange's automatic half: the last finisher of the previous hand
    gives his highest card to the first finisher. Only those two see it."""

    type: ClassVar[str] = "CardGiven"
    from_seat: int
    to_seat: int
    card: str

    def redact(self, viewer: int | None) -> Event:
        if viewer in (self.from_seat, self.to_seat):
            return self
        return replace(self, card=HIDDEN)


@dataclass(frozen=True, slots=True)
class ExchangeSkipped(Event):
    """No exchange this hand: the last finisher was dealt both jokers."""

    type: ClassVar[str] = "ExchangeSkipped"
    last_finisher: int
    first_finisher: int
    reason: str = "both_jokers"


@dataclass(frozen=True, slots=True)
class CardGivenBack(Event):
    """The first finisher's ``give_back`` move; only the two seats see the card."""

    type: ClassVar[str] = "CardGivenBack"
    seat: int
    to_seat: int
    card: str

    def move_body(self) -> JSON:
        return {"action": "give_back", "card": self.card}

    def redact(self, viewer: int | None) -> Event:
        if viewer in (self.seat, self.to_seat):
            return self
        return replace(self, card=HIDDEN)


@dataclass(frozen=True, slots=True)
class PlayStarted(Event):
    """The hand's play begins with ``leader``; ``must_include`` is ``"3S"`` on
    the first hand's opening lead, else ``None``."""

    type: ClassVar[str] = "PlayStarted"
    leader: int
    must_include: str | None = None


@dataclass(frozen=True, slots=True)
class CardsPlayed(Event):
    """A ``play`` move: ``cards`` in canonical order and the combination they form."""

    type: ClassVar[str] = "CardsPlayed"
    seat: int
    cards: tuple[str, ...]
    combination: str

    def move_body(self) -> JSON:
        return {"action": "play", "cards": list(self.cards)}


@dataclass(frozen=True, slots=True)
class Passed(Event):
    """A ``pass`` move: it only skips this turn."""

    type: ClassVar[str] = "Passed"
    seat: int

    def move_body(self) -> JSON:
        return {"action": "pass"}


@dataclass(frozen=True, slots=True)
class TableCleared(Event):
    """Everyone else still holding cards passed: the table is cleared and
    ``leader`` leads (the last player to play, or the next one still in
    when he has gone out)."""

    type: ClassVar[str] = "TableCleared"
    leader: int


@dataclass(frozen=True, slots=True)
class WentOut(Event):
    """``seat`` played his last card and finished in ``place`` (1-3)."""

    type: ClassVar[str] = "WentOut"
    seat: int
    place: int


@dataclass(frozen=True, slots=True)
class HandEnded(Event):
    """Three players are out. ``order`` lists the seats first to last;
    ``points`` and ``scores`` are indexed by seat."""

    type: ClassVar[str] = "HandEnded"
    hand: int
    order: tuple[int, ...]
    points: tuple[int, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TargetRaised(Event):
    """Two or more players reached the target in one hand: it rises by 10."""

    type: ClassVar[str] = "TargetRaised"
    reached: tuple[int, ...]
    target: int


@dataclass(frozen=True, slots=True)
class TopTied(Event):
    """At the last target several players share the highest total: another hand."""

    type: ClassVar[str] = "TopTied"
    seats: tuple[int, ...]
    score: int


@dataclass(frozen=True, slots=True)
class MatchWon(Event):
    type: ClassVar[str] = "MatchWon"
    winner: int
    scores: tuple[int, ...]


# -- state ----------------------------------------------------------------------
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


def _next_in(hands: Sequence[tuple[int, ...]], seat: int) -> int:
    """The next seat after ``seat`` still holding cards."""
    for step in range(1, SEATS + 1):
        s = (seat + step) % SEATS
        if hands[s]:
            return s
    return -1


def _remove(hand: tuple[int, ...], cards: tuple[int, ...]) -> tuple[int, ...]:
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
    hands = _set_hand(hands, giver, _remove(hands[giver], (code,)))
    return _set_hand(hands, taker, tuple(sorted((*hands[taker], code))))


def give_back_choices(hand: tuple[int, ...], min_rank: int) -> tuple[int, ...]:
    """Cards the first finisher may return: ranks ``min_rank``..10, else his lowest rank."""
    low = RANK_ORDER.index(str(min_rank))
    allowed = tuple(c for c in hand if low <= RANK_OF[c] <= TEN)
    if allowed:
        return allowed
    lowest = RANK_OF[hand[0]]
    return tuple(c for c in hand if RANK_OF[c] == lowest)


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
    event_types: ClassVar[tuple[type[Event], ...]] = (
        HandDealt,
        CardGiven,
        ExchangeSkipped,
        CardGivenBack,
        PlayStarted,
        CardsPlayed,
        Passed,
        TableCleared,
        WentOut,
        HandEnded,
        TargetRaised,
        TopTied,
        MatchWon,
    )

    # -- setting up ---------------------------------------------------------
    def parse_options(self, raw: Mapping[str, Any]) -> JSON:
        options = dict(DEFAULT_OPTIONS)
        for key, value in raw.items():
            if key == "straight_beats":
                if not isinstance(value, str) or value not in STRAIGHT_BEATS:
                    allowed = " or ".join(STRAIGHT_BEATS)
                    raise OptionError(key, f"straight_beats must be {allowed}, not {value!r}")
            elif key == "exchange_min_rank":
                if isinstance(value, bool) or value not in EXCHANGE_MIN_RANKS:
                    raise OptionError(key, f"exchange_min_rank must be 4 or 3, not {value!r}")
            else:
                known = ", ".join(DEFAULT_OPTIONS)
                raise OptionError(str(key), f"unknown option {key!r} for murlan (known: {known})")
            options[key] = value
        return options

    def initial(self, options: Mapping[str, Any], seats: int) -> MurlanState:
        if seats != SEATS:
            raise OptionError("seats", f"murlan is played by {SEATS} players, not {seats}")
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
        leader = last if hands[last] else _next_in(hands, last)
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
        handler = _APPLY.get(type(event))
        if handler is None:
            raise ValueError(f"murlan cannot apply {event.type or type(event).__name__}")
        return handler(state, event)

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
        if state.phase == EXCHANGE and seat == state.match.last_order[0]:
            choices = give_back_choices(state.deal.hands[seat], state.exchange_min_rank)
            return [{"action": "give_back", "card": CARD_NAMES[c]} for c in choices]
        return []

    def view(self, state: MurlanState, viewer: int | None) -> JSON:
        deal, trick, match = state.deal, state.trick, state.match
        table: JSON | None = None
        if trick.table is not None:
            table = {
                "cards": names(trick.cards),
                "combination": trick.table.kind,
                "seat": trick.seat,
                "passes": trick.passes,
            }
        playing = state.phase == PLAYING
        out: JSON = {
            "phase": state.phase,
            "hand_number": deal.number,
            "dealer": deal.number % SEATS if deal.number >= 0 else None,
            "turn": trick.turn if playing else None,
            "to_act": list(self.to_act(state)),
            "table": table,
            "leading": playing and trick.table is None,
            "must_include": CARD_NAMES[trick.must_include] if trick.must_include >= 0 else None,
            "hand_counts": [len(h) for h in deal.hands],
            "out": list(deal.out),
            "scores": list(match.scores),
            "target": match.target,
            "exchange": _exchange_view(state, viewer),
            "options": {
                "straight_beats": STRAIGHT_BEATS[state.any_higher],
                "exchange_min_rank": state.exchange_min_rank,
            },
            "winners": [match.winner] if match.winner >= 0 else [],
        }
        if viewer is not None and 0 <= viewer < SEATS:
            out["hand"] = names(deal.hands[viewer])
        return out

    def is_over(self, state: MurlanState) -> bool:
        return state.phase == OVER

    def result(self, state: MurlanState) -> JSON:
        out: JSON = {"scores": list(state.match.scores), "target": state.match.target}
        if state.phase == OVER:
            out["winners"] = [state.match.winner]
        return out

    # -- automatic players --------------------------------------------------------
    def bot_move(self, state: MurlanState, seat: int) -> JSON:
        if state.phase == EXCHANGE and seat == state.match.last_order[0]:
            choices = give_back_choices(state.deal.hands[seat], state.exchange_min_rank)
            card = murlan_bot.give_back(state.deal.hands[seat], choices)
            return {"action": "give_back", "card": CARD_NAMES[card]}
        self._check_turn(state, seat)
        choice = murlan_bot.choose_play(state, seat, legal_plays(state))
        if choice is None:
            return {"action": "pass"}
        return {"action": "play", "cards": names(choice)}

    def timeout_move(self, state: MurlanState, seat: int) -> JSON:
        """Pass when passing is allowed, else lead the lowest legal play (a
        single); in the exchange, give back the lowest allowed card."""
        if state.phase == EXCHANGE and seat == state.match.last_order[0]:
            choices = give_back_choices(state.deal.hands[seat], state.exchange_min_rank)
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


def _exchange_view(state: MurlanState, viewer: int | None) -> JSON | None:
    """This hand's exchange; its cards are shown only to the two seats in it.

    The parties are the ones recorded with the exchange itself: once the hand
    ends, the match's finishing order already names the next exchange's."""
    deal = state.deal
    if deal.number <= 0 or not deal.exchange_parties:
        return None
    first, last = deal.exchange_parties
    party = viewer in (first, last)

    def shown(code: int) -> str | None:
        if code < 0:
            return None
        return CARD_NAMES[code] if party else HIDDEN

    return {
        "first_finisher": first,
        "last_finisher": last,
        "skipped": deal.exchange_skipped,
        "card_given": shown(deal.given),
        "card_given_back": shown(deal.given_back),
    }


# -- fast playouts --------------------------------------------------------------------
Chooser = Callable[[int], int]
"""``choose(n)`` picks an index in ``range(n)``: a random or searching policy."""


def play_out(state: MurlanState, choose: Chooser) -> MurlanState:
    """Finish the current hand, each move being ``legal_moves(...)[choose(n)]``
    with ``n`` the number of legal moves (plays in their listed order, then
    ``pass`` when allowed).

    The result equals making those moves through :meth:`MurlanEngine.decide`
    and :meth:`MurlanEngine.apply`, but the moves in between are made on
    local variables, with no move bodies or events: this is the loop random
    playouts and searching bots run thousands of times. The chosen play is
    found by index in the blocks of :func:`~.murlan_combos.play_blocks`
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
    # Following a single, the lowest code that beats it (55: nothing does).
    floor = -1
    if table is not None and table.kind is SINGLE:
        floor = RANK_START[table.value + 1] if table.value + 1 < RANK_COUNT else DECK_SIZE + 1
    # Passes that clear the table: everyone else still in, or everyone if the
    # last player has gone out.
    needed = players_in - 1 if last >= 0 and hands[last] else players_in
    while True:
        hand = hands[turn]
        play: tuple[int, ...] | None
        if floor >= 0:
            # The commonest position, inlined: higher singles, then quads, then pass.
            start = bisect_left(hand, floor)
            held = bombs[turn]
            singles = len(hand) - start
            k = choose(singles + len(held) + 1)
            if k < singles:
                play = (hand[start + k],)
            elif k < singles + len(held):
                play = held[k - singles]
            else:
                play = None
        elif must >= 0:
            options = [p for p in plays(hand, table, any_higher) if must in p]
            play = options[choose(len(options))]
        else:
            blocks = play_blocks(hand, table, any_higher)
            count = sum([b[0] for b in blocks])
            k = choose(count + (table is not None))
            play = nth_play(blocks, k) if k < count else None
        if play is None:
            passes += 1
            if passes >= needed:
                turn, leader_in = last, bool(hands[last])
                table, cards, last, passes, floor = None, (), -1, 0, -1
                if leader_in:  # he leads again; if he went out, the next one still in
                    continue
            while True:  # the next seat still holding cards
                turn = (turn + 1) % SEATS
                if hands[turn]:
                    break
            continue
        if len(play) == len(hand) and len(out) == SEATS - 2:
            deal = state.deal._replace(hands=tuple(hands), out=tuple(out))
            before = state._replace(deal=deal, trick=Trick(turn, table, cards, last, passes, must))
            for event in ENGINE.decide(before, turn, {"action": "play", "cards": names(play)}):
                before = ENGINE.apply(before, event)
            return before
        if len(play) == len(hand):
            hands[turn] = ()
            out.append(turn)
            players_in -= 1
            needed = players_in
        else:
            hands[turn] = _remove(hand, play)
            needed = players_in - 1
            if bombs[turn]:
                gone = set(play)
                bombs[turn] = [q for q in bombs[turn] if gone.isdisjoint(q)]
        if len(play) == 1:
            table = SINGLES[play[0]]
            floor = RANK_START[table.value + 1] if table.value + 1 < RANK_COUNT else DECK_SIZE + 1
        else:
            table, floor = classify(play), -1
        cards, last, passes, must = play, turn, 0, -1
        while True:
            turn = (turn + 1) % SEATS
            if hands[turn]:
                break


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
    hands = _set_hand(deal.hands, seat, _remove(deal.hands[seat], cards))
    new_deal = Deal(
        deal.number, hands, deal.out, deal.given, deal.given_back, deal.exchange_skipped
    )
    trick = Trick(_next_in(hands, seat), classify(cards), cards, seat, 0, -1)
    return _with(state, new_deal, trick)


def _apply_passed(state: MurlanState, e: Passed) -> MurlanState:
    t = state.trick
    trick = Trick(_next_in(state.deal.hands, e.seat), t.table, t.cards, t.seat, t.passes + 1, -1)
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

ENGINE: Final = MurlanEngine()
