"""Examples for the OpenAPI document, cut from a real Murlan table played in memory.

The table is opened, seated (two house bots named at creation) and played a few
moves by the pure engines, so every example
of a view, a move's answer, a page of events or a stream line is what the
server would answer for that table, and stays so as the games change.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Final

from service.bodies import event_json, move_body
from service.engines import table
from service.engines.base import Event
from service.engines.shuffle import commitment, derived_client_seed
from service.engines.table.view import seat_rows

from .progress import full_view

GAME_ID: Final = "Xw3kPq0aZ9bLr2Tm"
WEBHOOK_EXAMPLE: Final = {
    "id": "wh_5Jq1xYtA",
    "url": "https://bots.example.com/cardroom/hook",
    "events": ["turn_started", "game_ended"],
    "seat": 0,
    "status": "active",
    "created_at": 1764763200000,
    "failures": 0,
    "paused": None,
    "secret": "whsec_Zb7fQm2kV9pR4tLx8cNw",
}
DELIVERY_EXAMPLE: Final = {
    "id": "dl_8c2Fq0",
    "webhook_id": "wh_5Jq1xYtA",
    "event": "turn_started",
    "seat": 0,
    "version": 10,
    "at": 1764763208500,
    "deadline": 1764763238500,
    "status": "delivered",
    "attempts": [{"at": 1764763208530, "status": 204, "ms": 41.5, "reply": "", "error": None}],
}
EXAMPLES: Final[dict[tuple[str, str], tuple[Any, Any]]] = {
    ("post", "/games/{game_id}/webhooks"): (
        {"url": "https://bots.example.com/cardroom/hook", "events": ["turn_started", "game_ended"]},
        WEBHOOK_EXAMPLE,
    ),
    ("get", "/games/{game_id}/webhooks"): (
        None,
        {"items": [{**WEBHOOK_EXAMPLE, "secret": None}]},
    ),
    ("delete", "/games/{game_id}/webhooks/{hook_id}"): (None, None),
    ("post", "/games/{game_id}/webhooks/{hook_id}/rotate"): (None, WEBHOOK_EXAMPLE),
    ("get", "/games/{game_id}/webhooks/{hook_id}/deliveries"): (
        None,
        {"items": [DELIVERY_EXAMPLE]},
    ),
    ("post", "/games/{game_id}/webhooks/{hook_id}/deliveries/{delivery_id}/redeliver"): (
        None,
        {**DELIVERY_EXAMPLE, "status": "queued", "next_at": 1764763300000},
    ),
    ("get", "/fairness/report"): (
        None,
        {"format": "cardroom-fairness-v1", "games": 412, "deals": 3105, "players": 57},
    ),
    ("get", "/healthz"): (None, {"status": "ok", "redis": "ok"}),
    ("get", "/readyz"): (
        None,
        {"status": "ready", "redis": "ok", "writes": "ok", "scripts": "ok", "workers": 2},
    ),
    ("get", "/livez"): (None, {"status": "ok"}),
    ("post", "/players"): (
        {},
        {"player_id": "pl_3kQz8VwXr2", "player_key": "example-player-key-shown-only-here"},
    ),
    ("get", "/players/me/seats"): (
        None,
        {
            "player_id": "pl_3kQz8VwXr2",
            "seats": [
                {
                    "game_id": "kswaEIGg8QOtyu6w",
                    "game": "murlan",
                    "seat": 3,
                    "token": "example-seat-token",
                    "status": "playing",
                    "version": 57,
                }
            ],
        },
    ),
}
"""Examples of the operations whose :class:`Op` names none: (request, answer)."""

MOVES: Final = 3


@dataclass
class _Played:
    """A table played in memory: its events and the state after each."""

    server_seed: bytes
    events: list[Event] = field(default_factory=list)
    states: list[table.Table] = field(default_factory=list)

    @property
    def state(self) -> table.Table:
        return self.states[-1]

    def push(self, events: list[Event]) -> None:
        state = self.states[-1] if self.states else None
        for event in events:
            state = table.apply(state, event)
            self.events.append(event)
            self.states.append(state)

    def steps(self) -> None:
        while table.pending(self.state) is not None:
            self.push(table.advance(self.state, self.server_seed))


@cache
def _played() -> tuple[_Played, int, int]:
    """The example table after :data:`MOVES` moves, the version its last move
    started at and the seat that made it."""
    rng = random.Random(32)
    played = _Played(rng.randbytes(32))
    bots = [(1, "Blerim (bot)"), (3, "Ana (bot)")]
    seed = played.server_seed
    played.push(
        table.create(GAME_ID, "murlan", {"bot_delay_s": 0}, None, commitment(seed), bots, seed)
    )
    for name in ("Drita", "Luan"):
        played.push(table.take_seat(played.state, name, None, False, seed))
    before, mover = played.state.version, 0
    for _ in range(MOVES):
        played.steps()
        mover = played.state.engine.to_act(played.state.engine_state)[0]
        legal = played.state.engine.legal_moves(played.state.engine_state, mover)
        before = played.state.version
        played.push(table.decide(played.state, mover, legal[0]))
    played.steps()
    return played, before, mover


def _events(played: _Played, first: int, last: int, viewer: int | None) -> list[Any]:
    state = played.state
    return [
        event_json(v, table.redact(state, played.events[v - 1], viewer), 1764763200000 + v * 850)
        for v in range(first, last + 1)
    ]


@cache
def examples() -> dict[str, Any]:
    """Examples by name: requests and answers of the operations."""
    played, before, mover = _played()
    state = played.state
    seat = state.engine.to_act(state.engine_state)[0]
    view = full_view(state, seat)
    legal = view["legal_moves"]
    answer, _ = move_body(state, played.events[before:], mover)
    earlier = played.states[-2]
    return {
        **_opening(played),
        "view": view,
        "move": {
            "move": legal[0] if legal else {"action": "pass"},
            "expected_version": state.version,
            "idempotency_key": "move-7c1d",
        },
        "moved": answer,
        "events": {
            "game_id": GAME_ID,
            "game": "murlan",
            "version": state.version,
            "events": _events(played, 1, 3, None),
            "next_after": 3,
        },
        "stream": [
            {"kind": "view", "version": earlier.version, "view": full_view(earlier, None)},
            {
                "kind": "event",
                "version": state.version,
                "game": "murlan",
                "event": _events(played, state.version, state.version, None)[0],
            },
            {"kind": "keepalive", "version": state.version},
        ],
    }


def _opening(played: _Played) -> dict[str, Any]:
    """The table's opening: its creation (two bots named) and a person's seat."""
    state = played.state
    created_state = played.states[2]  # the table and its two bots
    return {
        "create": {
            "game": "murlan",
            "options": {"bot_delay_s": 0, "turn_timeout_s": 30},
            "bots": [{"seat": 1, "name": "Blerim (bot)"}, {"seat": 3, "name": "Ana (bot)"}],
            "idempotency_key": "3f2a9c4e-table-1",
        },
        "created": {
            "game_id": GAME_ID,
            "game": "murlan",
            "seats": 4,
            "seat_list": seat_rows(created_state),
            "options": created_state.options,
            "commitment": state.commitment,
            "algorithm": "cardroom-shuffle-v1",
            "status": "seating",
            "version": created_state.version,
        },
        "seat": {"name": "Drita", "idempotency_key": "b7d1e0c2a9f84f3e9d21"},
        "seated": {
            "game_id": GAME_ID,
            "seat": 0,
            "name": "Drita",
            "bot": False,
            "client_seed": derived_client_seed(played.server_seed, 0),
            "seed_origin": "derived",
            "token": "kq8mJz1T3yqvT0Zf0f5cWw0q2u8G1eXo",
            "version": 4,
        },
    }
