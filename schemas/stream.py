"""Events as the API shows them, and the live stream's lines, typed per game.

An event the API shows is its stored form (the models of :mod:`schemas.events`,
the replay format's) plus its place in the stream, ``version``, and when it was
stored, ``at_ms`` (absent from a move's answer). Each game's events form one
union told apart by ``type`` (:data:`HazariEvent`, :data:`AziEvent`,
:data:`MurlanEvent`); two games have events of the same name with other fields
(``HandDealt``, ``MatchEnded``), so everything that holds events says which game
they are of: a move's answer, a page of events and a stream's ``event`` line
carry ``game``.

The schema names of the engines' events start with their game (``MurlanCardsPlayed``
is Murlan's ``CardsPlayed``), those of the table's own events, the same in every
game, with ``Table`` (``TableSeatTaken``); ``type`` is the event's own name.
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model

from service.engines.registry import GAMES

from .events import TABLE, event_classes, event_model, scope_of
from .views import GameView

GameName = Literal["hazari", "azi", "murlan"]


@cache
def api_event_model(game: str, type_name: str) -> type[BaseModel]:
    """``type_name`` of ``game`` as the API shows it (one model per table event)."""
    cls = event_classes(game)[type_name]
    scope = scope_of(cls)
    name = ("Table" if scope == TABLE else game.capitalize()) + type_name
    if scope == TABLE and game != GAMES[0]:
        return api_event_model(GAMES[0], type_name)
    base = event_model(game, type_name)
    version: Any = base.model_fields["schema_version"].annotation
    model: type[BaseModel] = create_model(
        name,
        __base__=base,
        __module__=__name__,
        schema_version=(version, Field(description="The version of the event's schema.")),
        version=(int, Field(ge=1, description="The event's place in the game's stream.")),
        at_ms=(
            int | None,
            Field(default=None, description="When it was stored (ms since the epoch)."),
        ),
    )
    model.model_config["title"] = name
    model.model_rebuild(force=True)
    return model


def _event_union(game: str) -> Any:
    models = tuple(api_event_model(game, name) for name in event_classes(game))
    return Annotated[Union[models], Field(discriminator="type")]  # noqa: UP007


HazariEvent: Any = _event_union("hazari")
AziEvent: Any = _event_union("azi")
MurlanEvent: Any = _event_union("murlan")
EVENT_UNIONS: dict[str, Any] = {"hazari": HazariEvent, "azi": AziEvent, "murlan": MurlanEvent}


def event_union_models(game: str) -> list[type[BaseModel]]:
    """Every API event model of ``game``, in its union's order."""
    return [api_event_model(game, name) for name in event_classes(game)]


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


# -- a move's answer ------------------------------------------------------------------
class _MoveAccepted(_Out):
    version: int = Field(description="The game's version after the move.")
    first_version: int = Field(description="The version of the move's first event.")


class HazariMoveAccepted(_MoveAccepted):
    game: Literal["hazari"]
    events: list[HazariEvent]


class AziMoveAccepted(_MoveAccepted):
    game: Literal["azi"]
    events: list[AziEvent]


class MurlanMoveAccepted(_MoveAccepted):
    game: Literal["murlan"]
    events: list[MurlanEvent]


MoveAccepted = Annotated[
    Union[HazariMoveAccepted, AziMoveAccepted, MurlanMoveAccepted],  # noqa: UP007
    Field(discriminator="game"),
]


# -- a page of events -----------------------------------------------------------------
class _EventsPage(_Out):
    game_id: str
    version: int = Field(description="The game's version now.")
    next_after: int | None = Field(
        description="Pass as `after` for the next page; null at the end."
    )


class HazariEventsPage(_EventsPage):
    game: Literal["hazari"]
    events: list[HazariEvent]


class AziEventsPage(_EventsPage):
    game: Literal["azi"]
    events: list[AziEvent]


class MurlanEventsPage(_EventsPage):
    game: Literal["murlan"]
    events: list[MurlanEvent]


EventsPage = Annotated[
    Union[HazariEventsPage, AziEventsPage, MurlanEventsPage],  # noqa: UP007
    Field(discriminator="game"),
]


# -- the live stream's lines ----------------------------------------------------------
GAME_ID_NOTE = "On the player's stream (`GET /players/me/events`): the game the line is about."
MessageCode = Literal["hello", "good_luck", "well_played", "thanks", "oops", "good_game"]
"""The preset table messages: codes only, worded by each page in its player's language."""


class TableMessage(_Out):
    """A preset message a seat said at the table."""

    id: str = Field(description="Its id: later messages have larger ids.")
    seat: int
    code: MessageCode
    at: int = Field(description="When it was said (ms since the epoch, the server's clock).")


class _Line(_Out):
    version: int
    game_id: str | None = Field(default=None, description=GAME_ID_NOTE)


class ViewLine(_Line):
    """The viewer's whole view: the stream's first line, and after each batch with
    ``views=true``."""

    kind: Literal["view"]
    view: GameView


class _EventLine(_Line):
    kind: Literal["event"]


class HazariEventLine(_EventLine):
    game: Literal["hazari"]
    event: HazariEvent


class AziEventLine(_EventLine):
    game: Literal["azi"]
    event: AziEvent


class MurlanEventLine(_EventLine):
    game: Literal["murlan"]
    event: MurlanEvent


EventLine = Annotated[
    Union[HazariEventLine, AziEventLine, MurlanEventLine],  # noqa: UP007
    Field(discriminator="game"),
]


class KeepaliveLine(_Line):
    """Nothing happened for the keep-alive interval: the connection is alive."""

    kind: Literal["keepalive"]


class EndLine(_Line):
    """The game has ended and its seed is public: that game's lines end (a game's own
    stream closes)."""

    kind: Literal["end"]


class MessageLine(_Line):
    """A preset message a seat said at the table while the stream was open (a game's
    own stream; `GET /games/{id}/messages` lists those said before)."""

    kind: Literal["message"]
    message: TableMessage


class SeatLine(_Line):
    """The player's stream only: a seat bound to the player key joined the stream."""

    kind: Literal["seat"]
    game: GameName
    seat: int


StreamLine = Annotated[
    Union[ViewLine, EventLine, KeepaliveLine, EndLine, MessageLine],  # noqa: UP007
    Field(discriminator="kind"),
]
"""One line of ``GET /games/{id}/events`` with ``Accept: application/x-ndjson``."""
PlayerStreamLine = Annotated[
    Union[ViewLine, EventLine, KeepaliveLine, EndLine, SeatLine],  # noqa: UP007
    Field(discriminator="kind"),
]
"""One line of ``GET /players/me/events``: a game's lines with ``game_id``, and ``seat``."""
STREAM_LINE: TypeAdapter[Any] = TypeAdapter(StreamLine)
PLAYER_STREAM_LINE: TypeAdapter[Any] = TypeAdapter(PlayerStreamLine)
MOVE_ACCEPTED: TypeAdapter[Any] = TypeAdapter(MoveAccepted)
EVENTS_PAGE: TypeAdapter[Any] = TypeAdapter(EventsPage)
PER_GAME: dict[str, tuple[type[BaseModel], ...]] = {
    "MoveAccepted": (HazariMoveAccepted, AziMoveAccepted, MurlanMoveAccepted),
    "EventsPage": (HazariEventsPage, AziEventsPage, MurlanEventsPage),
    "EventLine": (HazariEventLine, AziEventLine, MurlanEventLine),
}
"""The unions on ``game`` the OpenAPI document names, with their members."""
LINE_MODELS: tuple[type[BaseModel], ...] = (
    ViewLine,
    KeepaliveLine,
    EndLine,
    MessageLine,
    SeatLine,
    TableMessage,
)
