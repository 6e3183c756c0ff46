"""Hazari Lite as a pure engine: deal, arrange ("say up"), four rounds, scores.

The only choice a player makes in a deal is how to split 13 cards into
groups of 3, 3, 3 and 4 (strongest first). Once the fourth player has said
up, the rounds follow from the arrangements alone, so the move that
completes the table also returns every round, the deal's score and, when
the match is decided, its end. Chance (the deck and the first dealer) comes
only from the shuffler in :meth:`HazariEngine.advance` and is recorded in
the :class:`Dealt` event, so folding the events always rebuilds the state.

Rules: ``rules/hazari.md``. Combination values: :mod:`.hazari_eval`. The
auto-arranger (bots, timeouts, the ``legal_moves`` suggestion):
:mod:`.hazari_arrange`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Final

from .base import HIDDEN, JSON, Engine, Event, Move, OptionError, RuleError
from .cards import RANKS, SUITS, CardError
from .hazari_arrange import GROUP_SIZES, Groups, arrange
from .hazari_eval import CARD_STRS, POINTS, card_index, describe_key, key
from .shuffle import Shuffler

SEATS: Final = 4
HAND_SIZE: Final = 13
DECK_SIZE: Final = 52
DEFAULT_TARGET: Final = 1000
TARGET_RANGE: Final = (360, 10_000)

Hand = tuple[str, ...]


# -- events ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Dealt(Event):
    """A new deal: 13 cards each, dealt one at a time from ``dealer + 1``."""

    type: ClassVar[str] = "Dealt"
    is_deal: ClassVar[bool] = True
    deal: int
    dealer: int
    hands: tuple[Hand, ...]


@dataclass(frozen=True, slots=True)
class Arranged(Event):
    """A seat said up with this arrangement; hidden from the others until
    the rounds lay it open."""

    type: ClassVar[str] = "Arranged"
    seat: int
    groups: tuple[Hand, ...]

    def move_body(self) -> JSON:
        return {"action": "arrange", "groups": [list(g) for g in self.groups]}

    def redact(self, viewer: int | None) -> Event:
        if viewer == self.seat:
            return self
        return replace(self, groups=tuple(tuple(HIDDEN for _ in g) for g in self.groups))


@dataclass(frozen=True, slots=True)
class RoundPlayed(Event):
    """One round: every seat's group laid face up (``laid`` and ``combos`` are
    indexed by seat, ``order`` is the laying order); ``winner`` collects the
    cards, worth ``points``."""

    type: ClassVar[str] = "RoundPlayed"
    deal: int
    round: int
    leader: int
    order: tuple[int, ...]
    laid: tuple[Hand, ...]
    combos: tuple[str, ...]
    winner: int
    points: int


@dataclass(frozen=True, slots=True)
class DealScored(Event):
    """The card points each seat collected this deal (they add up to 360)
    and the running totals."""

    type: ClassVar[str] = "DealScored"
    deal: int
    points: tuple[int, ...]
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MatchEnded(Event):
    """Someone reached the target with the single highest total."""

    type: ClassVar[str] = "MatchEnded"
    scores: tuple[int, ...]
    winners: tuple[int, ...]


EVENT_TYPES: Final[tuple[type[Event], ...]] = (Dealt, Arranged, RoundPlayed, DealScored, MatchEnded)


# -- state -------------------------------------------------------------------------

DEALING: Final = "dealing"
ARRANGING: Final = "arranging"
OVER: Final = "over"


@dataclass(frozen=True, slots=True)
class HazariState:
    """Everything the fold knows. ``deal`` is the number of the current (or
    last) deal, ``-1`` before the first; ``hands`` are the cards each seat
    still holds; ``collected`` the cards each seat won in the current deal."""

    target: int
    phase: str = DEALING
    deal: int = -1
    dealer: int = -1
    hands: tuple[Hand, ...] = ((),) * SEATS
    arrangements: tuple[Groups | None, ...] = (None,) * SEATS
    collected: tuple[Hand, ...] = ((),) * SEATS
    scores: tuple[int, ...] = (0,) * SEATS
    rounds: tuple[RoundPlayed, ...] = ()
    last_points: tuple[int, ...] | None = None
    winners: tuple[int, ...] = ()


# -- helpers ----------------------------------------------------------------------


def _sort_key(card: str) -> tuple[int, int]:
    return (-RANKS.index(card[0]), SUITS.index(card[1]))


def sorted_hand(cards: Sequence[str]) -> list[str]:
    """Highest rank first, then clubs, diamonds, hearts, spades."""
    return sorted(cards, key=_sort_key)


def _short(value: object, limit: int = 60) -> str:
    """``repr(value)``, cut short: error messages echo what was sent."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _group_text(group: Sequence[str]) -> str:
    return f"{describe_key(key(group))}: {' '.join(group)}"


def parse_arrangement(move: Move, hand: Sequence[str]) -> Groups:
    """Check an ``arrange`` body against ``hand``; return its groups in
    canonical notation, or raise :class:`RuleError` naming the broken rule."""
    if not isinstance(move, Mapping):
        raise RuleError("bad_move", f"a move is a JSON object, not {type(move).__name__}")
    action = move.get("action")
    if action != "arrange":
        if action is None:
            raise RuleError(
                "unknown_action", "the move has no 'action'; Hazari's move is 'arrange'"
            )
        raise RuleError(
            "unknown_action", f"unknown action {_short(action)}: Hazari's move is 'arrange'"
        )
    extra = sorted(_short(k, 20) for k in move if k not in ("action", "groups"))
    if extra:
        raise RuleError(
            "unexpected_field", f"'arrange' takes only 'groups', not {', '.join(extra)}"
        )
    if "groups" not in move:
        raise RuleError(
            "missing_groups", "'arrange' needs 'groups': four lists of 3, 3, 3 and 4 cards"
        )
    raw = move["groups"]
    if not isinstance(raw, (list, tuple)):
        raise RuleError(
            "bad_groups", f"'groups' must be a list of four lists of cards, not {_short(raw)}"
        )
    for number, group in enumerate(raw, 1):
        if not isinstance(group, (list, tuple)):
            raise RuleError(
                "bad_groups", f"group {number} must be a list of cards, not {_short(group)}"
            )
    if len(raw) != len(GROUP_SIZES):
        raise RuleError("bad_groups", f"'groups' must hold 4 groups, not {len(raw)}")
    sizes = tuple(len(g) for g in raw)
    if sizes != GROUP_SIZES:
        raise RuleError(
            "bad_group_sizes",
            "groups must have 3, 3, 3 and 4 cards, in that order, "
            f"not {', '.join(map(str, sizes))}",
        )
    groups: list[Hand] = []
    for number, group in enumerate(raw, 1):
        cards: list[str] = []
        for token in group:
            try:
                cards.append(CARD_STRS[card_index(token)])
            except CardError as exc:
                message = str(exc) if len(str(exc)) <= 120 else f"bad card {_short(token)}"
                raise RuleError("bad_card", f"group {number}: {message}") from None
        groups.append(tuple(cards))
    seen: set[str] = set()
    for card in (c for g in groups for c in g):
        if card in seen:
            raise RuleError("duplicate_card", f"{card} appears more than once in the arrangement")
        seen.add(card)
    foreign = [c for g in groups for c in g if c not in hand]
    if foreign:
        missing = sorted_hand([c for c in hand if c not in seen])
        raise RuleError(
            "not_your_card",
            f"{' '.join(foreign)} {'is' if len(foreign) == 1 else 'are'} not in your hand; "
            f"the arrangement must use exactly your 13 cards (left out: {' '.join(missing)})",
        )
    keys = [key(g) for g in groups]
    for i in range(2):
        if keys[i + 1] > keys[i]:
            raise RuleError(
                "groups_out_of_order",
                f"group {i + 2} ({_group_text(groups[i + 1])}) beats group {i + 1} "
                f"({_group_text(groups[i])}): groups go strongest first",
            )
    if keys[3] > keys[2]:
        raise RuleError(
            "four_card_group_not_lowest",
            f"the four-card group {' '.join(groups[3])} (best three: {describe_key(keys[3])}) "
            f"beats group 3 ({_group_text(groups[2])}): it must be the weakest group",
        )
    return tuple(groups)


def play_rounds(state: HazariState) -> list[RoundPlayed]:
    """The four rounds that follow from the arrangements: the first round is
    led by ``dealer + 1``, each later one by the previous winner; the highest
    group wins, and of equal groups the one laid later."""
    arrangements = state.arrangements
    rounds: list[RoundPlayed] = []
    leader = (state.dealer + 1) % SEATS
    for r in range(len(GROUP_SIZES)):
        order = tuple((leader + i) % SEATS for i in range(SEATS))
        laid = tuple(a[r] if a is not None else () for a in arrangements)
        keys = [key(g) for g in laid]
        winner = order[0]
        for seat in order[1:]:
            if keys[seat] >= keys[winner]:
                winner = seat
        points = sum(POINTS[card_index(c)] for g in laid for c in g)
        combos = tuple(describe_key(k) for k in keys)
        rounds.append(RoundPlayed(state.deal, r + 1, leader, order, laid, combos, winner, points))
        leader = winner
    return rounds


def _seat_error(state: HazariState, seat: int) -> RuleError | None:
    """Why ``seat`` may not arrange now, or ``None``."""
    if state.phase == OVER:
        return RuleError("game_over", "the match is over")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < SEATS:
        return RuleError("no_such_seat", f"no seat {seat!r}: Hazari seats are 0-3")
    if state.phase != ARRANGING:
        return RuleError("no_deal", "no deal is in progress: the cards have not been dealt yet")
    if state.arrangements[seat] is not None:
        return RuleError(
            "already_up",
            f"seat {seat} has already said up in deal {state.deal}; "
            "an arrangement cannot be changed",
        )
    return None


# -- the engine ------------------------------------------------------------------


class HazariEngine(Engine[HazariState]):
    name: ClassVar[str] = "hazari"
    min_seats: ClassVar[int] = SEATS
    max_seats: ClassVar[int] = SEATS
    event_types: ClassVar[tuple[type[Event], ...]] = EVENT_TYPES
    legal_moves_complete: ClassVar[bool] = False

    # -- setting up -------------------------------------------------------
    def parse_options(self, raw: Mapping[str, Any]) -> JSON:
        options: JSON = {"target": DEFAULT_TARGET}
        for name, value in raw.items():
            if name != "target":
                raise OptionError(str(name), f"unknown Hazari option {name!r} (known: target)")
            if isinstance(value, bool) or not isinstance(value, int):
                raise OptionError(
                    "target", f"target must be a whole number of points, not {value!r}"
                )
            low, high = TARGET_RANGE
            if not low <= value <= high:
                raise OptionError("target", f"target {value} is out of range {low}..{high}")
            options["target"] = value
        return options

    def initial(self, options: Mapping[str, Any], seats: int) -> HazariState:
        if seats != SEATS:
            raise OptionError("seats", f"Hazari is played by exactly 4 players, not {seats}")
        return HazariState(target=self.parse_options(options)["target"])

    # -- chance ------------------------------------------------------------
    def pending(self, state: HazariState) -> str | None:
        return "deal" if state.phase == DEALING else None

    def advance(self, state: HazariState, shuffler: Shuffler) -> list[Event]:
        if self.pending(state) != "deal":
            return []
        number = state.deal + 1
        deck, stream = shuffler.deal(number, DECK_SIZE)
        # The first dealer is the first draw after deal 0's shuffle; then the
        # deal passes to the next seat.
        dealer = stream.draw(SEATS) if number == 0 else (state.dealer + 1) % SEATS
        hands: list[list[str]] = [[] for _ in range(SEATS)]
        for i, card in enumerate(deck):
            hands[(dealer + 1 + i) % SEATS].append(str(card))
        return [Dealt(number, dealer, tuple(tuple(h) for h in hands))]

    # -- moves ----------------------------------------------------------------
    def decide(self, state: HazariState, seat: int, move: Move) -> list[Event]:
        error = _seat_error(state, seat)
        if error is not None:
            raise error
        groups = parse_arrangement(move, state.hands[seat])
        events: list[Event] = [Arranged(seat, groups)]
        after = self.apply(state, events[0])
        if self.to_act(after):
            return events
        rounds = play_rounds(after)
        points = [0] * SEATS
        for r in rounds:
            points[r.winner] += r.points
        scores = tuple(s + p for s, p in zip(state.scores, points, strict=True))
        events += rounds
        events.append(DealScored(state.deal, tuple(points), scores))
        top = max(scores)
        leaders = tuple(s for s in range(SEATS) if scores[s] == top)
        # The match ends only when the target is reached and the top total is
        # not shared; a shared top total means another deal.
        if top >= state.target and len(leaders) == 1:
            events.append(MatchEnded(scores, leaders))
        return events

    def apply(self, state: HazariState, event: Event) -> HazariState:
        if isinstance(event, Dealt):
            return replace(
                state,
                phase=ARRANGING,
                deal=event.deal,
                dealer=event.dealer,
                hands=event.hands,
                arrangements=(None,) * SEATS,
                collected=((),) * SEATS,
            )
        if isinstance(event, Arranged):
            arrangements = list(state.arrangements)
            arrangements[event.seat] = event.groups
            return replace(state, arrangements=tuple(arrangements))
        if isinstance(event, RoundPlayed):
            laid = {c for g in event.laid for c in g}
            hands = tuple(tuple(c for c in h if c not in laid) for h in state.hands)
            collected = list(state.collected)
            collected[event.winner] += tuple(c for g in event.laid for c in g)
            rounds = (*state.rounds, event) if event.round > 1 else (event,)
            return replace(state, hands=hands, collected=tuple(collected), rounds=rounds)
        if isinstance(event, DealScored):
            scores = tuple(s + p for s, p in zip(state.scores, event.points, strict=True))
            return replace(state, phase=DEALING, scores=scores, last_points=event.points)
        if isinstance(event, MatchEnded):
            return replace(state, phase=OVER, winners=event.winners)
        raise TypeError(f"Hazari has no event {event.type or type(event).__name__}")

    def to_act(self, state: HazariState) -> tuple[int, ...]:
        if state.phase != ARRANGING:
            return ()
        return tuple(s for s in range(SEATS) if state.arrangements[s] is None)

    def legal_moves(self, state: HazariState, seat: int) -> list[JSON]:
        """Only the auto-arranger's suggestion: there are far too many legal
        arrangements to list (``legal_moves_complete`` is false)."""
        if seat not in self.to_act(state):
            return []
        return [self._suggestion(state, seat)]

    # -- what people see ------------------------------------------------------
    def view(self, state: HazariState, viewer: int | None) -> JSON:
        out: JSON = {
            "phase": state.phase,
            "deal": state.deal if state.deal >= 0 else None,
            "dealer": state.dealer if state.dealer >= 0 else None,
            "first_to_lay": (state.dealer + 1) % SEATS if state.dealer >= 0 else None,
            "target": state.target,
            "scores": list(state.scores),
            "said_up": [a is not None for a in state.arrangements]
            if state.phase == ARRANGING
            else [False] * SEATS,
            "to_act": list(self.to_act(state)),
            "hand_counts": [len(h) for h in state.hands],
            "last_deal": self._last_deal(state),
            "winners": list(state.winners),
        }
        if viewer is not None and 0 <= viewer < SEATS:
            out["hand"] = sorted_hand(state.hands[viewer])
            own = state.arrangements[viewer] if state.phase == ARRANGING else None
            out["arrangement"] = [list(g) for g in own] if own is not None else None
        return out

    @staticmethod
    def _last_deal(state: HazariState) -> JSON | None:
        if not state.rounds:
            return None
        return {
            "deal": state.rounds[0].deal,
            "rounds": [
                {
                    "round": r.round,
                    "leader": r.leader,
                    "order": list(r.order),
                    "laid": [list(g) for g in r.laid],
                    "combos": list(r.combos),
                    "winner": r.winner,
                    "points": r.points,
                }
                for r in state.rounds
            ],
            "points": list(state.last_points) if state.last_points is not None else None,
        }

    def is_over(self, state: HazariState) -> bool:
        return state.phase == OVER

    def result(self, state: HazariState) -> JSON:
        out: JSON = {"scores": list(state.scores), "target": state.target}
        if state.phase == OVER:
            out["winners"] = list(state.winners)
        return out

    # -- automatic players -----------------------------------------------------
    def bot_move(self, state: HazariState, seat: int) -> JSON:
        error = _seat_error(state, seat)
        if error is not None:
            raise error
        return self._suggestion(state, seat)

    def timeout_move(self, state: HazariState, seat: int) -> JSON:
        return self.bot_move(state, seat)

    @staticmethod
    def _suggestion(state: HazariState, seat: int) -> JSON:
        groups = arrange(state.hands[seat])
        return {"action": "arrange", "groups": [list(g) for g in groups]}


ENGINE: Final = HazariEngine()
