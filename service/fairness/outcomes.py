"""Who wins a game, and what a fair deal makes of it at a table of bots.

Every bot at a table plays the engine's one bot (:meth:`Engine.bot_move`), and
its seed is derived from the committed server seed: a game of bots is fully
decided by that seed. Who wins it is therefore a feature of the deal like any
other, and its expected distribution is that of games of bots played on
fresh seeds with the published shuffle. No closed form exists, so it is
simulated: ``python -m service.fairness.outcomes`` plays the games (the bots'
moves in the worker's order: the lowest seat to act first) and writes
``data/outcomes.json``, which the report reads. Anyone can rerun it and get
the same games; a test replays the first of them.

Each finished game gives two observations: the winning **seat** and the
winner's **position** from the first deal's dealer (Murlan's ``dealer`` is the
seat given the first card). Azi's winner is the seat with the most chips at
the end; when two or more share the most, the value is the seat count (a
tie). At a table of bots whose options were simulated the rows are tested
(``bot_winner_seat``, ``bot_winner_position``); at any other table, and at
every table with a person, who wins is decided by the people's play too, and
the rows (``winner_seat``, ``winner_position``) are descriptive only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

DATA: Final = Path(__file__).resolve().parent / "data" / "outcomes.json"
SEED_TEXT: Final = "cardroom fairness outcomes v1"
OUTCOME_EVENTS: Final = frozenset({"MatchWon", "MatchEnded"})
"""The events that end a game with a winner (Murlan's, Hazari's and Azi's)."""
TESTED: Final = ("bot_winner_seat", "bot_winner_position")
DESCRIBED: Final = ("winner_seat", "winner_position")
SIMULATED_TABLES: Final[tuple[tuple[str, int, int], ...]] = (
    # game, seats, games simulated
    ("murlan", 4, 400),
    ("hazari", 4, 1500),
    ("azi", 4, 1500),
)
"""The tables of bots whose outcomes are simulated, with the default options."""
FIRST_GAMES: Final = 20
"""How many games' winners the table lists one by one (a test replays some)."""


def winner_of(event: Any, seats: int) -> int | None:
    """The winning seat of a game-ending event (``seats``: a tie), or ``None``."""
    if event.type not in OUTCOME_EVENTS:
        return None
    if hasattr(event, "winner"):
        return int(event.winner)
    if hasattr(event, "winners"):
        winners = tuple(event.winners)
        return int(winners[0]) if len(winners) == 1 else seats
    stacks = tuple(event.stacks)
    top = max(stacks)
    return stacks.index(top) if stacks.count(top) == 1 else seats


def options_key(game: str, options: Mapping[str, Any], seats: int) -> str:
    """A short name for a game's options (those of the engine, not the table's
    turn limit) and seat count: a simulated table is looked up by it."""
    engine = {k: v for k, v in sorted(options.items()) if k != "turn_timeout_s"}
    text = json.dumps([game, engine, seats], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


@cache
def table() -> dict[str, dict[str, Any]]:
    """The committed simulations, by :func:`options_key`."""
    if not DATA.exists():
        return {}
    return dict(json.loads(DATA.read_text(encoding="utf-8")))


def simulated_context(game: str, options: Mapping[str, Any], seats: int, by: str) -> str | None:
    """The context of a tested outcome (``by``: ``seat`` or ``position``), or
    ``None`` when these options were not simulated."""
    key = options_key(game, options, seats)
    return f"sim:outcome:{key}:{by}" if key in table() else None


def outcome_pmf(key: str, by: str) -> tuple[dict[int, float], int] | None:
    """The simulated distribution of the winner's seat or position, and the
    number of games it was counted from."""
    entry = table().get(key)
    if entry is None or by not in ("seat", "position"):
        return None
    counts = {int(k): int(v) for k, v in entry[by].items()}
    seats = int(entry["seats"])
    games = int(entry["games"])
    return {v: counts.get(v, 0) / games for v in range(seats + 1)}, games


@dataclass(frozen=True, slots=True)
class Outcome:
    """One game's result as the report counts it."""

    winner: int
    position: int
    seats: int


def outcome_fields(
    table_kind: str,
    game: str,
    options: Mapping[str, Any],
    outcome: Outcome,
    all_bots: bool,
) -> list[str]:
    """The counters' fields of one game's outcome (see the module's text)."""
    seats = outcome.seats
    position = seats if outcome.winner == seats else outcome.position
    out: list[str] = []
    for feature, by, value in (
        ("seat", "seat", outcome.winner),
        ("position", "position", position),
    ):
        context = simulated_context(game, options, seats, by) if all_bots else None
        name = f"bot_winner_{feature}" if context else f"winner_{feature}"
        out.append(f"{table_kind}|{name}|all|{context or f'u:{seats + 1}'}|{value}")
    return out


# -- the simulation --------------------------------------------------------------------------
def bot_game(
    game: str,
    seats: int,
    index: int,
    seed_text: str = SEED_TEXT,
    people: frozenset[int] = frozenset(),
    creator: int | None = None,
) -> list[Any]:
    """Game ``index`` of the simulation, played to its end: every event. Every
    seat is a bot with its derived seed (``people``: seats taken by a person
    instead, with his own seed, who plays as the bot would; ``creator``: the
    seat marked the table creator's; both for tests)."""
    from service.engines import table as tables
    from service.engines.shuffle import commitment

    server_seed = hashlib.sha256(f"{seed_text}:{game}:{index}".encode()).digest()
    game_id = f"outcome-{game}-{index}"
    events: list[Any] = list(tables.create(game_id, game, None, seats, commitment(server_seed)))
    state = tables.fold(events)
    for seat in range(state.seat_count):
        person = seat in people
        seed = f"person-{seat}" if person else None
        taken = tables.take_seat(
            state, f"seat-{seat}", seed, not person, server_seed, seat == creator
        )
        state = tables.fold(taken, state)
        events += taken
    for _ in range(500_000):
        while tables.pending(state) is not None:
            step = tables.advance(state, server_seed)
            state = tables.fold(step, state)
            events += step
        if state.over:
            return events
        seat = min(state.engine.to_act(state.engine_state))
        move = tables.decide(state, seat, state.engine.bot_move(state.engine_state, seat))
        state = tables.fold(move, state)
        events += move
    raise AssertionError(f"{game_id} did not finish")


def play_bots(game: str, seats: int, index: int, seed_text: str = SEED_TEXT) -> tuple[int, int]:
    """Game ``index`` of the simulation: the winner and the first deal's dealer."""
    first: int | None = None
    for event in bot_game(game, seats, index, seed_text):
        if first is None and getattr(event, "is_deal", False):
            first = int(getattr(event, "dealer"))  # noqa: B009 (a deal has one)
        winner = winner_of(event, seats)
        if winner is not None:
            assert first is not None, "a game is won after its first deal"
            return winner, first
    raise AssertionError(f"game {index} of {game} ended without a winner")


def simulate(game: str, seats: int, games: int) -> dict[str, Any]:
    from service.engines import table as tables

    options = tables.create("x", game, None, seats, "0" * 64)[0].options  # type: ignore[attr-defined]
    by_seat: Counter[int] = Counter()
    by_position: Counter[int] = Counter()
    first: list[list[int]] = []
    for index in range(games):
        winner, dealer = play_bots(game, seats, index)
        by_seat[winner] += 1
        by_position[seats if winner == seats else (winner - dealer) % seats] += 1
        if index < FIRST_GAMES:
            first.append([winner, dealer])
    return {
        "game": game,
        "options": {k: v for k, v in sorted(options.items()) if k != "turn_timeout_s"},
        "seats": seats,
        "games": games,
        "method": f"games of bots, server seed sha256('{SEED_TEXT}:{game}:<i>'), game id "
        f"'outcome-{game}-<i>', every seat a bot with its derived seed, i = 0..N-1",
        "seat": {str(k): v for k, v in sorted(by_seat.items())},
        "position": {str(k): v for k, v in sorted(by_position.items())},
        "first_games": first,
        "_key": options_key(game, options, seats),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=float, default=1.0, help="games: this times the default")
    parser.add_argument("--only", action="append", help="simulate this game only (repeatable)")
    args = parser.parse_args(argv)
    doc: dict[str, Any] = {}
    for game, seats, games in SIMULATED_TABLES:
        if args.only and game not in args.only:
            continue
        entry = simulate(game, seats, max(1, int(games * args.scale)))
        doc[entry.pop("_key")] = entry
        print(game, entry["seat"], entry["position"], flush=True)
    if args.only:  # keep the other games' tables as they are now
        table.cache_clear()
        doc = {**{k: v for k, v in table().items() if v["game"] not in args.only}, **doc}
    DATA.write_text(json.dumps(dict(sorted(doc.items())), indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
