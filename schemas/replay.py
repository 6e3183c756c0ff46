"""The ``cardroom-replay-v1`` document as pydantic models, for its JSON Schema.

``service/replay.py`` writes the document; these models describe it (and are
what ``docs/replay-format.md`` publishes). Events are typed per game by the
event schemas of :mod:`schemas.events`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from service.engines.registry import GAMES

from .events import event_json_schema


class ReplaySeat(BaseModel):
    seat: int = Field(ge=0)
    name: str
    client_seed: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    bot: bool
    seed_origin: Literal["player", "derived", "unrecorded"] | None = Field(
        default=None,
        description=(
            "Who chose client_seed: 'player' (it came with the seat request), 'derived' "
            "(the server derived it from the committed server seed, see seed_derivation) "
            "or 'unrecorded' (a game stored before origins were recorded: a seed the "
            "server drew then was random and not committed). Absent from documents "
            "written before this field existed."
        ),
    )
    seed_derivation: str | None = Field(
        default=None,
        description=(
            "Derived seeds only: how to derive it again, hex(HMAC-SHA256(server_seed, "
            '"client-seed:<seat>"))[:32].'
        ),
    )
    creator: bool | None = Field(
        default=None,
        description=(
            "The seat of the table's creator: the first person's seat taken by the client "
            "that opened the table. Absent from documents written before it was recorded."
        ),
    )


class ReplayDeal(BaseModel):
    model_config = ConfigDict(extra="allow")

    deal: int = Field(ge=0, description="The deal number d of the shuffle.")
    dealer: int = Field(ge=0)
    deck_size: Literal[27, 36, 52, 54]
    deal_order: list[int] | None = Field(
        description="Seats in the order they got cards (null until the seed is revealed)."
    )
    hands: dict[str, list[str]] = Field(
        description="Hands as dealt, by seat; '??' hides a card the viewer may not see."
    )


class ReplayEvent(BaseModel):
    model_config = ConfigDict(extra="allow")

    version: int = Field(ge=1)
    type: str
    schema_version: int = Field(ge=1)
    at: str | None = Field(default=None, description="When it was stored (ISO 8601, UTC).")
    seat: int | None = None
    move: dict[str, Any] | None = Field(
        default=None, description="The move body exactly as submitted (move events only)."
    )


class ReplayDocument(BaseModel):
    format: Literal["cardroom-replay-v1"]
    algorithm: Literal["cardroom-shuffle-v1"]
    game_id: str
    game: Literal["hazari", "azi", "murlan"]
    options: dict[str, Any]
    status: Literal["seating", "playing", "ended"]
    complete: bool = Field(description="True once the game has ended and the seed is public.")
    seats: list[ReplaySeat]
    commitment: str = Field(pattern=r"^[0-9a-f]{64}$")
    server_seed: str | None = Field(pattern=r"^[0-9a-f]{64}$")
    deals: list[ReplayDeal]
    events: list[ReplayEvent]
    result: dict[str, Any]


def replay_json_schema() -> dict[str, Any]:
    """The document's JSON Schema, with each game's event schemas under ``$defs``."""
    schema = ReplayDocument.model_json_schema()
    defs = schema.setdefault("$defs", {})
    for game in GAMES:
        defs[f"{game}_events"] = event_json_schema(game)
    return schema
