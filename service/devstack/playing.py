"""Whole games played through the pure engines, in memory: :func:`new_game`
opens a table and fills its seats, :func:`play` plays it to the end with a
policy per seat (:func:`random_legal` by default), checking every move.
Shared by the tests and the benchmarks."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from service.engines import table
from service.engines.base import Event
from service.engines.shuffle import commitment

Policy = Callable[[table.Table, int, list[dict[str, Any]], random.Random], dict[str, Any]]


def random_legal(
    state: table.Table, seat: int, legal: list[dict[str, Any]], rng: random.Random
) -> dict[str, Any]:
    """Pick uniformly among the listed legal moves."""
    return rng.choice(legal)


@dataclass
class PlayedGame:
    events: list[Event] = field(default_factory=list)
    states: list[table.Table] = field(default_factory=list)
    server_seed: bytes = b""
    moves: list[tuple[int, dict[str, Any]]] = field(default_factory=list)

    @property
    def state(self) -> table.Table:
        return self.states[-1]


def new_game(
    game: str,
    options: Mapping[str, Any] | None = None,
    seats: int | None = None,
    rng: random.Random | None = None,
    game_id: str = "g-test",
    client_seeds: list[str] | None = None,
) -> PlayedGame:
    rng = rng or random.Random(0)
    played = PlayedGame(server_seed=rng.randbytes(32))
    created = table.create(game_id, game, options, seats, commitment(played.server_seed))
    push(played, created)
    for i in range(played.state.seat_count):
        seed = client_seeds[i] if client_seeds else f"seed-{i}-{rng.randrange(10**6)}"
        push(played, table.take_seat(played.state, f"player{i}", seed))
    return played


def push(played: PlayedGame, events: list[Event]) -> None:
    state = played.states[-1] if played.states else None
    for event in events:
        state = table.apply(state, event)
        played.events.append(event)
        played.states.append(state)


def run_system_steps(played: PlayedGame) -> None:
    while table.pending(played.state) is not None:
        push(played, table.advance(played.state, played.server_seed))


def play(
    played: PlayedGame,
    rng: random.Random,
    policies: Mapping[int, Policy] | None = None,
    default: Policy = random_legal,
    max_moves: int = 200_000,
    until: Callable[[table.Table], bool] | None = None,
) -> PlayedGame:
    """Play until the game is over (or ``until`` holds), checking that every
    chosen move is accepted."""
    policies = policies or {}
    for _ in range(max_moves):
        run_system_steps(played)
        state = played.state
        if state.over or (until is not None and until(state)):
            return played
        to_act = state.engine.to_act(state.engine_state)
        assert to_act, f"nobody to act and nothing pending in {state.engine_state!r}"
        seat = rng.choice(list(to_act))
        legal = state.engine.legal_moves(state.engine_state, seat)
        assert legal, f"seat {seat} must act but has no legal move"
        move = policies.get(seat, default)(state, seat, legal, rng)
        played.moves.append((seat, move))
        push(played, table.decide(state, seat, move))
    raise AssertionError("game did not finish")
