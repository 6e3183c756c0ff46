"""What :class:`service.games.GameService` still calls to count projection lag;
the lag keys and their script belong to the store now (:mod:`service.store.lag`,
``store.lag``). Goes once its last caller calls ``store.lag.appended``."""

from __future__ import annotations

from typing import Any

from .store.lag import LagCounts


def appended(redis: Any, game_id: str, events: int, pipe: Any = None) -> None:
    """``events`` new events of ``game_id`` wait for their projection
    (:meth:`service.store.lag.LagCounts.appended`)."""
    LagCounts(redis).appended(game_id, events, pipe)
