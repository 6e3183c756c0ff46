"""Small event makers for the store suite.

The contract tests write table events of an Azi table: the store does not
check game rules, and every event it reads back must decode through the
game's schemas, so any game with an engine would do.
"""

from __future__ import annotations

import random

from service.devstack import PlayedGame, new_game, play
from service.engines import table
from service.engines.base import Event
from service.engines.registry import GAMES
from service.engines.shuffle import commitment

CONTRACT_GAME = "azi"
SEATS = {"azi": 4}


def created(game_id: str = "g1", game: str = CONTRACT_GAME, seats: int = 2) -> table.GameCreated:
    (event,) = table.create(game_id, game, None, seats, commitment(b"s" * 32))
    assert isinstance(event, table.GameCreated)
    return event


def timeouts(n: int, start: int = 0) -> list[Event]:
    """``n`` distinguishable events that are valid anywhere in a stream."""
    return [table.TurnTimedOut(seat=0, after_s=float(start + i)) for i in range(n)]


def random_game(game: str, seed: int, game_id: str = "g-test") -> PlayedGame:
    rng = random.Random(seed)
    played = new_game(game, rng=rng, seats=SEATS.get(game), game_id=game_id)
    return play(played, rng)


__all__ = ["GAMES", "created", "random_game", "timeouts"]
