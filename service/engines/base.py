"""What every game engine is: a pure fold over immutable events.

An engine never performs I/O and never draws randomness of its own. Its
commands (:meth:`Engine.decide`) check a move against the rules and return
the events it causes; :meth:`Engine.apply` folds one event into a new state;
chance arrives only through :meth:`Engine.advance`, which is handed a
:class:`~service.engines.shuffle.Shuffler` and records what it dealt as
events. Replaying the recorded events therefore always rebuilds the same
state, without the server seed.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar, Final, Generic, TypeVar

from .errors import EngineError
from .shuffle import Shuffler

HIDDEN = "??"
"""What a card the viewer may not see is replaced with (counts stay visible)."""

JSON = dict[str, Any]
Move = Mapping[str, Any]


class RuleError(EngineError):
    """A move that breaks a rule.

    ``rule`` is a short stable code (``not_your_turn``, ``must_follow_suit``);
    the message names the move and the state it met.
    """

    def __init__(self, rule: str, message: str) -> None:
        self.rule = rule
        super().__init__(message)


class OptionError(EngineError):
    """A table option that is unknown or out of range; ``option`` names it.

    ``code`` says how it is wrong, in a word a page can say in its player's language
    (:data:`OPTION_CODES`), with its ``params`` (the bounds, the value).
    """

    def __init__(
        self, option: str, message: str, code: str = "option-invalid", **params: Any
    ) -> None:
        self.option = option
        self.code = code
        self.params: dict[str, Any] = {"option": option, **params}
        super().__init__(message)


OPTION_CODES: Final = (
    "option-invalid",
    "option-unknown",
    "option-not-whole",
    "option-out-of-range",
    "option-choice",
    "seats-out-of-range",
)
"""Every code an :class:`OptionError` carries."""


@dataclass(frozen=True, slots=True)
class Event:
    """Base of every engine event: frozen, past tense, JSON-friendly fields only.

    Fields may be ``int``, ``str``, ``bool``, ``None``, tuples of those (also
    nested) or ``dict[str, ...]`` of those. ``type`` is the stable name stored
    in the event stream.
    """

    type: ClassVar[str] = ""
    is_deal: ClassVar[bool] = False
    """Deal events also have ``deal: int``, ``dealer: int`` and
    ``hands: tuple[tuple[str, ...], ...]`` (indexed by seat, ``()`` for a seat
    not dealt in); their other fields are the deal's extras in a replay."""

    def move_body(self) -> JSON | None:
        """The move body (``rules``/``api.md`` shape) when this event records a
        seat's move, else ``None``."""
        return None

    @property
    def seat_of_move(self) -> int | None:
        """The seat that made this move, for move events."""
        return getattr(self, "seat", None) if self.move_body() is not None else None

    def redact(self, viewer: int | None) -> Event:
        """This event as ``viewer`` (a seat, or ``None`` for the public) may see it.

        The default hides every other seat's hand in deal events.
        """
        if self.is_deal:
            hands: tuple[tuple[str, ...], ...] = self.hands  # type: ignore[attr-defined]
            hidden = tuple(
                h if seat == viewer else tuple(HIDDEN for _ in h) for seat, h in enumerate(hands)
            )
            return replace(self, hands=hidden)  # type: ignore[call-arg]
        return self

    def as_dict(self) -> JSON:
        """The event's fields (without ``type``); tuples stay tuples."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def hide(cards: Sequence[str]) -> tuple[str, ...]:
    return tuple(HIDDEN for _ in cards)


S = TypeVar("S")


class Engine(ABC, Generic[S]):
    """The rules of one game. Subclasses are stateless singletons."""

    name: ClassVar[str]
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]
    event_types: ClassVar[tuple[type[Event], ...]]
    legal_moves_complete: ClassVar[bool] = True
    """False when :meth:`legal_moves` lists a suggestion rather than every body."""

    # -- setting up -------------------------------------------------------
    @abstractmethod
    def parse_options(self, raw: Mapping[str, Any]) -> JSON:
        """Validate table options, fill defaults; raise :class:`OptionError`
        naming an unknown option or a bad value."""

    @abstractmethod
    def initial(self, options: Mapping[str, Any], seats: int) -> S:
        """The state before the first deal (options already parsed)."""

    # -- chance and other steps no seat takes -------------------------------
    @abstractmethod
    def pending(self, state: S) -> str | None:
        """The system step due now (``"deal"``, ``"settle"``…), or ``None``
        when the game waits for a seat or is over."""

    @abstractmethod
    def advance(self, state: S, shuffler: Shuffler) -> list[Event]:
        """The events of the step :meth:`pending` names (a new deal drawn from
        the shuffler, a settlement…); ``[]`` if nothing is due."""

    # -- seats' moves ----------------------------------------------------------
    @abstractmethod
    def decide(self, state: S, seat: int, move: Move) -> list[Event]:
        """Check ``move`` by ``seat``; return the events it causes (the move's
        own event first), or raise :class:`RuleError`. Never changes ``state``."""

    @abstractmethod
    def apply(self, state: S, event: Event) -> S:
        """Fold one event into a new state; ``state`` itself is not changed."""

    @abstractmethod
    def to_act(self, state: S) -> tuple[int, ...]:
        """Seats whose move the game is waiting for."""

    @abstractmethod
    def legal_moves(self, state: S, seat: int) -> list[JSON]:
        """Every legal move body for ``seat`` now (``[]`` when not its turn)."""

    # -- what people see -------------------------------------------------------
    @abstractmethod
    def view(self, state: S, viewer: int | None) -> JSON:
        """JSON-ready view for ``viewer`` (``None``: the public). Includes
        ``hand`` (the viewer's cards) for a seat and never another seat's
        hidden cards."""

    @abstractmethod
    def is_over(self, state: S) -> bool: ...

    @abstractmethod
    def result(self, state: S) -> JSON:
        """Final (or running) scores or chip results, JSON-ready."""

    # -- automatic players -----------------------------------------------------
    @abstractmethod
    def bot_move(self, state: S, seat: int) -> JSON:
        """A sensible legal move for ``seat`` (deterministic)."""

    @abstractmethod
    def timeout_move(self, state: S, seat: int) -> JSON:
        """The move made for ``seat`` when its turn times out."""

    # -- helpers every engine gets ---------------------------------------------
    def fold(self, state: S, events: Sequence[Event]) -> S:
        for event in events:
            state = self.apply(state, event)
        return state

    def event_class(self, type_name: str) -> type[Event]:
        for cls in self.event_types:
            if cls.type == type_name:
                return cls
        raise KeyError(f"{self.name} has no event type {type_name!r}")
