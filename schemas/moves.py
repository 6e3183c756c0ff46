"""Move bodies of ``shared/api.md``, one discriminated union on ``action`` per game.

Two games both have a ``play`` (Murlan's takes ``cards``, Azi's a ``card``),
so a move is parsed once the game it is for is known, by :func:`parse_move`.
The models check shape only (unknown fields, wrong types, missing values,
each refused with the field named); every rule is the engine's.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Final, Literal, Union, get_args

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError

Card = Annotated[
    str,
    StringConstraints(min_length=2, max_length=3),
    Field(
        description="A card: rank then suit (`TD`, `AS`; input may say `10D`), or `BJ`/`RJ`.",
        examples=["TD"],
    ),
]


class BodyError(ValueError):
    """A request body (or query) whose shape is wrong; ``field`` names where.

    ``constraint`` says what the value broke (:data:`CONSTRAINTS`) and ``limit`` the
    bound or choices it broke, so a page can say it in its player's language.
    """

    def __init__(
        self, field: str, message: str, constraint: str = "value", limit: Any = None
    ) -> None:
        self.field = field
        self.constraint = constraint
        self.limit = limit
        super().__init__(message)


CONSTRAINTS: Final[dict[str, tuple[str, str | None]]] = {
    # pydantic's error type: (the constraint as the problem names it, the ctx key of its limit)
    "missing": ("required", None),
    "extra_forbidden": ("unknown", None),
    "string_too_short": ("min-length", "min_length"),
    "string_too_long": ("max-length", "max_length"),
    "too_short": ("min-items", "min_length"),
    "too_long": ("max-items", "max_length"),
    "string_pattern_mismatch": ("pattern", "pattern"),
    "greater_than_equal": ("minimum", "ge"),
    "greater_than": ("above", "gt"),
    "less_than_equal": ("maximum", "le"),
    "less_than": ("below", "lt"),
    "literal_error": ("choice", "expected"),
    "enum": ("choice", "expected"),
    "union_tag_invalid": ("choice", "expected_tags"),
    "union_tag_not_found": ("required", None),
    "string_type": ("type", None),
    "int_type": ("type", None),
    "int_parsing": ("type", None),
    "int_from_float": ("type", None),
    "bool_type": ("type", None),
    "bool_parsing": ("type", None),
    "dict_type": ("type", None),
    "list_type": ("type", None),
    "model_type": ("type", None),
    "model_attributes_type": ("type", None),
}
"""What a field broke, by pydantic's error type; any other type is ``value``."""


def _constraint(err: Any) -> tuple[str, Any]:
    name, key = CONSTRAINTS.get(str(err["type"]), ("value", None))
    ctx = err.get("ctx") or {}
    limit = ctx.get(key) if key else None
    if limit is not None and not isinstance(limit, int | float | str):
        limit = str(limit)
    return name, limit


# -- moves ---------------------------------------------------------------------
class _Move(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class HazariArrange(_Move):
    """Lay all 13 cards as four groups (3, 3, 3, 4 cards), strongest first."""

    action: Literal["arrange"]
    groups: Annotated[list[list[Card]], Field(min_length=4, max_length=4)]


class MurlanPlay(_Move):
    """Play a combination that beats the table (or lead one)."""

    action: Literal["play"]
    cards: Annotated[list[Card], Field(min_length=1, max_length=54)]


class MurlanPass(_Move):
    action: Literal["pass"]


class MurlanGiveBack(_Move):
    """The first finisher returns a card in the exchange."""

    action: Literal["give_back"]
    card: Card


class AziBet(_Move):
    """Bet or raise: ``amount`` is the new highest bid."""

    action: Literal["bet"]
    amount: Annotated[int, Field(ge=1, le=1_000_000_000)]


class AziCall(_Move):
    action: Literal["call"]


class AziFold(_Move):
    action: Literal["fold"]


class AziDiscard(_Move):
    """Discard one card (four-card deal only)."""

    action: Literal["discard"]
    card: Card


class AziPlay(_Move):
    action: Literal["play"]
    card: Card


class AziBuyIn(_Move):
    """Join an Azi replay for half the pot."""

    action: Literal["buy_in"]


class AziDecline(_Move):
    action: Literal["decline"]


class AziLeave(_Move):
    """Leave between hands with one's stack."""

    action: Literal["leave"]


HazariMove = Annotated[Union[HazariArrange], Field(discriminator="action")]  # noqa: UP007
MurlanMove = Annotated[Union[MurlanPlay, MurlanPass, MurlanGiveBack], Field(discriminator="action")]  # noqa: UP007
AziMove = Annotated[
    Union[AziBet, AziCall, AziFold, AziDiscard, AziPlay, AziBuyIn, AziDecline, AziLeave],  # noqa: UP007
    Field(discriminator="action"),
]
MOVES: Final[dict[str, Any]] = {"hazari": HazariMove, "murlan": MurlanMove, "azi": AziMove}
AnyMove = Annotated[
    Union[HazariMove, MurlanMove, AziMove],  # noqa: UP007
    Field(description="A move body of the game being played (see the per-game unions)."),
]


def actions(game: str) -> list[str]:
    """The ``action`` values ``game`` knows, in the order of its union."""
    union = get_args(get_args(MOVES[game])[0]) or (get_args(MOVES[game])[0],)
    return [get_args(m.model_fields["action"].annotation)[0] for m in union]


@cache
def _move_adapter(game: str) -> TypeAdapter[Any]:
    return TypeAdapter(MOVES[game])


def parse_move(game: str, raw: object) -> dict[str, Any]:
    """``raw`` checked against the move bodies of ``game``, as a plain dict.

    Raises :class:`BodyError` naming the first wrong field (``move.cards.0``).
    """
    try:
        model: BaseModel = _move_adapter(game).validate_python(raw)
    except ValidationError as exc:
        raise body_error(exc, prefix="move", game=game) from None
    return model.model_dump()


def body_error(exc: ValidationError, prefix: str = "", game: str | None = None) -> BodyError:
    """The first error of ``exc`` as a :class:`BodyError` naming its field."""
    err = exc.errors(include_url=False)[0]
    loc = [str(p) for p in err["loc"]]
    if game is not None and loc and err["type"] not in ("union_tag_invalid", "union_tag_not_found"):
        loc = loc[1:]  # the first element is the union's tag, not a field
    if err["type"] in ("union_tag_invalid", "union_tag_not_found"):
        loc.append("action")
    field = ".".join([prefix, *loc] if prefix else loc) or "body"
    message = err["msg"]
    if game is not None and err["type"] in ("union_tag_invalid", "union_tag_not_found"):
        which = "unknown" if err["type"] == "union_tag_invalid" else "missing"
        message = f"{which} action for {game}: use one of {', '.join(actions(game))}"
    constraint, limit = _constraint(err)
    return BodyError(field, f"{field}: {message}", constraint, limit)
