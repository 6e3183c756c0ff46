"""Upcasters: how an event stored under an older schema is read today.

Stored events are never rewritten. When an event type's shape changes, its
``schema_version`` goes up by one and a function ``upcast_<Type>_v<n>_v<n+1>``
turns the stored data of version ``n`` into version ``n+1``; reading chains
them up to the current version. The current version of a type is therefore
the end of its chain: a type with no upcaster is at version 1.

Keys are ``(scope, type, from_version)`` where the scope is ``"table"`` for
the table events every game shares, else the game's name (two games may use
the same event name for different shapes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

Data = dict[str, Any]
Upcaster = Callable[[Data], Data]

TABLE: Final = "table"


def upcast_SeatTaken_v1_v2(data: Data) -> Data:
    """v1 predates bots at the table: every seat taken was a person's."""
    return {**data, "bot": False}


def upcast_SeatTaken_v2_v3(data: Data) -> Data:
    """v2 did not record who chose the seat's seed: the player, or the server at
    random (a bot's, or a player's who gave none), which was not committed."""
    return {**data, "seed_origin": "unrecorded"}


def upcast_SeatTaken_v3_v4(data: Data) -> Data:
    """v3 did not mark the seat of the table's creator: none is marked."""
    return {**data, "creator": False}


def upcast_GameAbandoned_v1_v2(data: Data) -> Data:
    """v1 did not state the standings of the abandoned table."""
    return {**data, "standings": None}


UPCASTERS: Final[Mapping[tuple[str, str, int], Upcaster]] = {
    (TABLE, "SeatTaken", 1): upcast_SeatTaken_v1_v2,
    (TABLE, "SeatTaken", 2): upcast_SeatTaken_v2_v3,
    (TABLE, "SeatTaken", 3): upcast_SeatTaken_v3_v4,
    (TABLE, "GameAbandoned", 1): upcast_GameAbandoned_v1_v2,
}


def current_version(scope: str, type_name: str) -> int:
    """The schema version events of this type are written with today."""
    version = 1
    while (scope, type_name, version) in UPCASTERS:
        version += 1
    return version


def upcast(scope: str, type_name: str, version: int, data: Data) -> Data:
    """``data`` stored at ``version`` brought to the current version."""
    while (step := UPCASTERS.get((scope, type_name, version))) is not None:
        data = step(data)
        version += 1
    return data
