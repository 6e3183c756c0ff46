"""``cardroom demo``: bot games of every kind through the real stack, verified.

Each game is created, seated with bots and played to its end by the workers'
jobs (on the embedded in-process Redis), exactly as a deployment would; then
its replay document is audited as a third party would audit it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from .config import load_settings
from .engines.base import JSON
from .replay import audit_replay, build_replay
from .runtime import Runtime

DEMO_GAMES: tuple[tuple[str, dict[str, Any], int | None], ...] = (
    ("hazari", {"target": 1000}, None),
    ("murlan", {}, None),
    ("azi", {"buy_in": 200, "ante": 10, "min_bet": 10}, 4),
)


class Progress(Protocol):
    """Where the demo tells how far it is (``cardroom demo``'s bar)."""

    def step(self) -> None: ...

    def note(self, text: str) -> None: ...


class _Silent:
    def step(self) -> None:
        return None

    def note(self, text: str) -> None:
        return None


def play_bot_game(
    runtime: Runtime,
    game: str,
    options: dict[str, Any],
    seats: int | None,
    drain: Callable[[], int],
    max_rounds: int = 100_000,
) -> tuple[Any, list[Any]]:
    """Create a game, fill it with bots and run the workers until it ends."""
    service = runtime.service()
    state = service.create_game(game, options, seats)
    for i in range(state.seat_count):
        service.take_seat(state.game_id, f"bot-{i + 1}", None, bot=True)
    for _ in range(max_rounds):
        drain()
        state = service.load(state.game_id)
        if state.over and state.server_seed is not None:
            break
    else:
        raise RuntimeError(f"{game} game {state.game_id} did not finish")
    return state, service.store.read(state.game_id)


def summary(doc: JSON) -> list[str]:
    lines = [
        f"{doc['game']} game {doc['game_id']}: {len(doc['deals'])} deals, "
        f"{len(doc['events'])} events"
    ]
    names = {s["seat"]: s["name"] for s in doc["seats"]}
    result = doc["result"]
    if "scores" in result:
        scores = ", ".join(f"{names[i]} {s}" for i, s in enumerate(result["scores"]))
        lines.append(f"  scores: {scores}")
    if "results" in result:
        chips = ", ".join(f"{names[i]} {r:+d}" for i, r in enumerate(result["results"]))
        lines.append(f"  chip results: {chips}")
    winners = result.get("winners")
    if winners:
        lines.append("  winner: " + ", ".join(names[w] for w in winners))
    return lines


def run_demo(games: int = 1, progress: Progress | None = None) -> int:
    """Play ``games`` bot games of each kind and audit each; 1 if one failed.
    ``progress`` hears of each game as it starts (:meth:`Progress.note`) and
    ends (:meth:`Progress.step`)."""
    from workers.embedded import EmbeddedWorker

    runtime = Runtime.from_settings(load_settings(redis_url=None, bot_delay_s=0))
    worker = EmbeddedWorker(runtime)
    from workers.context import install

    install(runtime)
    tell = progress or _Silent()
    failures = 0
    started = time.perf_counter()
    for game, options, seats in DEMO_GAMES:
        for n in range(games):
            tell.note(f"{game} game {n + 1} of {games}")
            state, stored = play_bot_game(runtime, game, options, seats, worker.drain)
            doc = build_replay(state, stored, None)
            for line in summary(doc):
                print(line)
            report = audit_replay(doc)
            if report.ok:
                print(
                    f"  verified: commitment ok, {report.deals_checked} deals re-derived from the "
                    f"seed, {report.moves_checked} moves re-played"
                )
            else:
                failures += 1
                print(f"  VERIFICATION FAILED: {report.mismatch}")
            tell.step()
    print(
        f"demo: done in {time.perf_counter() - started:.1f}s; "
        f"{'all games verified' if not failures else f'{failures} failed'}"
    )
    return 1 if failures else 0
