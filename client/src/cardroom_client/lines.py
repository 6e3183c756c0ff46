"""The live stream's lines, typed by the contract's line models: what
:mod:`.stream` yields."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, cast

from pydantic import BaseModel

from . import models as m

View = m.HazariView | m.AziView | m.MurlanView
"""A game's view, as ``GET /games/{id}`` answers it: one model per game."""
EventLine = m.HazariEventLine | m.AziEventLine | m.MurlanEventLine
Kind = Literal["view", "event", "keepalive", "end", "seat"]
KINDS: frozenset[str] = frozenset({"view", "event", "keepalive", "end", "seat"})
EVENT_LINES: dict[str, type[EventLine]] = {
    "hazari": m.HazariEventLine,
    "azi": m.AziEventLine,
    "murlan": m.MurlanEventLine,
}


def parse_view(data: object) -> View:
    return m.GameView.model_validate(data).root


@dataclass(frozen=True)
class Line:
    """One NDJSON line of a game's stream or of the player's stream.

    ``game_id`` is the game the line is about (on a game's own stream, that
    game; ``None`` only on a player stream's keep-alive). ``view`` is set on
    ``view`` lines; ``event_line`` on ``event`` lines (the contract's model of
    the line, its ``event`` the typed event); ``raw`` is the line as sent.
    """

    kind: Kind
    version: int
    game_id: str | None
    view: View | None
    event_line: EventLine | None
    raw: dict[str, Any]

    @property
    def event(self) -> BaseModel | None:
        """The event of an ``event`` line, typed by its game and ``type``."""
        return None if self.event_line is None else self.event_line.event

    @property
    def game(self) -> str | None:
        """The game's kind (``hazari``, ``azi``, ``murlan``) where the line says it."""
        if self.view is not None:
            return self.view.game
        found = self.raw.get("game")
        return found if isinstance(found, str) else None


def parse_line(text: str, game_id: str | None = None, game: str | None = None) -> Line | None:
    """A line of the stream, or None for a blank or unknown one (a newer server's
    kind this client does not know is skipped, as the contract allows).
    ``game``: the game's kind where an event line does not say it."""
    if not text.strip():
        return None
    raw = json.loads(text)
    if not isinstance(raw, dict) or raw.get("kind") not in KINDS:
        return None
    view = parse_view(raw["view"]) if raw.get("view") is not None else None
    event_line = None
    model = EVENT_LINES.get(str(raw.get("game") or game))
    if raw["kind"] == "event" and model is not None:
        event_line = model.model_validate({"game": game, **raw})
    found = raw.get("game_id", game_id)
    if found is None and view is not None:
        found = view.game_id
    version = raw.get("version")
    if not isinstance(version, int):
        version = view.version if view is not None else 0
    return Line(
        kind=cast(Kind, raw["kind"]),
        version=version,
        game_id=found if isinstance(found, str) else None,
        view=view,
        event_line=event_line,
        raw=raw,
    )
