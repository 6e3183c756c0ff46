"""Hazari Lite as a pure engine: deal, arrange ("say up"), four rounds, scores.

The only choice a player makes in a deal is how to split 13 cards into
groups of 3, 3, 3 and 4 (strongest first). Once the fourth player has said
up, the rounds follow from the arrangements alone, so the move that
completes the table also returns every round, the deal's score and, when
the match is decided, its end. Chance (the deck and the first dealer) comes
only from the shuffler in :meth:`HazariEngine.advance` and is recorded in
the :class:`Dealt` event, so folding the events always rebuilds the state.

Rules: ``rules/hazari.md``. Combination values: :mod:`.combos`. The
auto-arranger (bots, timeouts, the ``legal_moves`` suggestion):
:mod:`.arrange`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final

from ..base import JSON, Engine, Event, Move, OptionError, RuleError
from ..cards import CardError
from ..shuffle import Shuffler
from .arrange import GROUP_SIZES, Groups
from .bot import choose_move
from .combos import CARD_STRS, POINTS, card_index, describe_key, key
from .events import EVENT_TYPES, Arranged, DealScored, Dealt, Hand, MatchEnded, RoundPlayed
from .state import ARRANGING, DEALING, OVER, SEATS, HazariState, apply
from .view import sorted_hand, table_view

DECK_SIZE: Final = 52
DEFAULT_TARGET: Final = 1000
TARGET_RANGE: Final = (360, 10_000)


# -- helpers ----------------------------------------------------------------------


def _short(value: object, limit: int = 60) -> str:
    """``repr(value)``, cut short: error messages echo what was sent."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _group_text(group: Sequence[str]) -> str:
    return f"{describe_key(key(group))}: {' '.join(group)}"


def parse_arrangement(move: Move, hand: Sequence[str]) -> Groups:
    """Check an ``arrange`` body against ``hand``; return its groups in
    canonical notation, or raise :class:`RuleError` naming the broken rule."""
    _check_arrange_move(move)
    groups = _read_groups(_raw_groups(move))
    _check_uses_hand(groups, hand)
    _check_group_order(groups)
    return tuple(groups)


def _check_arrange_move(move: Move) -> None:
    """The move is an object with ``action`` 'arrange', ``groups`` and nothing else."""
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


def _raw_groups(move: Move) -> Sequence[Sequence[Any]]:
    """``groups`` as sent, checked to be four lists of 3, 3, 3 and 4 items."""
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
    return raw


def _read_groups(raw: Sequence[Sequence[Any]]) -> list[Hand]:
    """Every group's cards parsed into canonical notation."""
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
    return groups


def _check_uses_hand(groups: Sequence[Hand], hand: Sequence[str]) -> None:
    """The groups hold each card once, and only cards of ``hand``."""
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


def _check_group_order(groups: Sequence[Hand]) -> None:
    """The three-card groups go strongest first, and the four-card group is the weakest."""
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
                raise OptionError(
                    str(name), f"unknown Hazari option {name!r} (known: target)", "option-unknown"
                )
            if isinstance(value, bool) or not isinstance(value, int):
                raise OptionError(
                    "target",
                    f"target must be a whole number of points, not {value!r}",
                    "option-not-whole",
                )
            low, high = TARGET_RANGE
            if not low <= value <= high:
                raise OptionError(
                    "target",
                    f"target {value} is out of range {low}..{high}",
                    "option-out-of-range",
                    value=value,
                    min=low,
                    max=high,
                )
            options["target"] = value
        return options

    def initial(self, options: Mapping[str, Any], seats: int) -> HazariState:
        if seats != SEATS:
            raise OptionError(
                "seats",
                f"Hazari is played by exactly 4 players, not {seats}",
                "seats-out-of-range",
                min=SEATS,
                max=SEATS,
            )
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
        return apply(state, event)

    def to_act(self, state: HazariState) -> tuple[int, ...]:
        if state.phase != ARRANGING:
            return ()
        return tuple(s for s in range(SEATS) if state.arrangements[s] is None)

    def legal_moves(self, state: HazariState, seat: int) -> list[JSON]:
        """Only the auto-arranger's suggestion: there are far too many legal
        arrangements to list (``legal_moves_complete`` is false)."""
        if seat not in self.to_act(state):
            return []
        return [choose_move(state, seat)]

    # -- what people see ------------------------------------------------------
    def view(self, state: HazariState, viewer: int | None) -> JSON:
        return table_view(state, viewer, self.to_act(state))

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
        return choose_move(state, seat)

    def timeout_move(self, state: HazariState, seat: int) -> JSON:
        return self.bot_move(state, seat)


ENGINE: Final = HazariEngine()
