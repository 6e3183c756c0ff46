"""Name → engine. Imported lazily so each engine module stays independent."""

from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import Any

from .base import Engine, OptionError

GAMES: tuple[str, ...] = ("hazari", "azi", "murlan")


@cache
def engine_for(game: str) -> Engine[Any]:
    if game not in GAMES:
        raise OptionError(
            "game",
            f"unknown game {game!r}: choose one of {', '.join(GAMES)}",
            "option-choice",
            choices=list(GAMES),
        )
    engine: Engine[Any] = import_module(f"service.engines.{game}").ENGINE
    return engine
