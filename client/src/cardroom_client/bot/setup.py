"""Opening the kit's tables and taking its seats, each step saved to the state
file before and after its request (so ``--resume`` repeats it with the same key)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from ..client import Client
from ..errors import ProblemError
from .state import State, TableState

log = logging.getLogger("cardroom_bot")


def ensure_player(client: Client, state: State) -> None:
    """A player key for the state (once), if the server has player keys."""
    if state.player_keys_supported is not None:
        return
    try:
        player = client.create_player()
    except ProblemError as exc:
        if exc.status not in (404, 405):
            raise
        state.player_keys_supported = False
    else:
        state.player_id, state.player_key = player.player_id, player.player_key
        state.player_keys_supported = True
    state.save()


def open_table(
    client: Client,
    state: State,
    table: TableState,
    *,
    options: Mapping[str, Any],
    seats: int | None,
    name: str,
) -> None:
    """Open ``table`` with its ``fill_bots`` house bots and take the kit's seat."""
    # the bots take the first seats and the kit the next free one, so that every
    # seat is taken in seat order, as the audit of the replay expects
    bots = [{"seat": s, "name": f"house bot {s + 1}"} for s in range(table.fill_bots)]
    if table.game_id is None:
        try:
            created = client.create_game(
                table.game,
                options=options,
                seats=seats,
                bots=bots,
                idempotency_key=table.create_key,
            )
            table.bots_seated = True
        except ProblemError as exc:
            if not bots or exc.extensions.get("field") != "bots":
                raise
            # a server without bots at creation: one request per bot seat
            created = client.create_game(
                table.game, options=options, seats=seats, idempotency_key=table.create_key
            )
        table.game_id = created.game_id
        state.save()
    take_seat(client, state, table, name)
    if not table.bots_seated:
        for index in range(table.fill_bots):
            client.take_seat(
                table.game_id,
                f"house bot {index + 1}",
                bot=True,
                idempotency_key=f"{table.seat_key}-bot-{index}",
            )
        table.bots_seated = True
        state.save()


def take_seat(client: Client, state: State, table: TableState, name: str) -> None:
    if table.token is not None or table.game_id is None:
        return
    granted = client.take_seat(
        table.game_id, name, idempotency_key=table.seat_key, player_key=state.player_key
    )
    table.seat, table.token = granted.seat, granted.token
    state.save()
    log.info("seat %s of %s %s", granted.seat, table.game, table.game_id)
