"""Small event makers for the store suite.

The contract tests write table events of an Azi table: the store does not
check game rules, and every event it reads back must decode through the
game's schemas, so any game with an engine would do.
"""

from __future__ import annotations

import random

from service.engines import game as table
from service.engines.base import Event
from service.engines.registry import GAMES, engine_for
from service.engines.shuffle import commitment
from tests.support import PlayedGame, new_game, play

CONTRACT_GAME = "azi"
SEATS = {"azi": 4}


def created(game_id: str = "g1", game: str = CONTRACT_GAME, seats: int = 2) -> table.GameCreated:
    (event,) = table.create(game_id, game, None, seats, commitment(b"s" * 32))
    assert isinstance(event, table.GameCreated)
    return event


def timeouts(n: int, start: int = 0) -> list[Event]:
    """``n`` distinguishable events that are valid anywhere in a stream."""
    return [table.TurnTimedOut(seat=0, after_s=float(start + i)) for i in range(n)]


def engine_missing(game: str) -> str | None:
    """Why ``game`` cannot be played here, or ``None`` when its engine loads."""
    try:
        engine_for(game)
    except Exception as exc:  # an engine still being written may fail in any way
        return f"{game} engine does not load: {exc!r}"
    return None


def random_game(game: str, seed: int, game_id: str = "g-test") -> PlayedGame:
    rng = random.Random(seed)
    played = new_game(game, rng=rng, seats=SEATS.get(game), game_id=game_id)
    return play(played, rng)


__all__ = ["GAMES", "created", "engine_missing", "random_game", "timeouts"]
