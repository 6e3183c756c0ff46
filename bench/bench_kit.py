"""The bot kit against a real ``cardroom serve`` (its own redis-server, house bots
at delay 0): a match's time from the table's creation to its end; the CPU per move
the kit spends in its own process (stream lines parsed into the typed models,
the move sent and its answer parsed; the example's ``choose`` not counted)
against a floor measured in the same process, the CPU of a bare httpx request
with ``json.loads`` of its answer; and how many tables one player's connection
follows, with their first views.

    python -m bench.bench_kit [--quick] [--tables 64]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

import httpx
from cardroom_client import Client, Move, View
from cardroom_client.bot import Runner, State, TableState
from cardroom_client.bot.loader import load_choose
from cardroom_client.bot.setup import ensure_player, open_table

from service.devstack import Serve

EXAMPLES = Path(__file__).resolve().parents[1] / "client" / "examples"
WIDE = {
    "CARDROOM_LIMIT_MOVES": "100000/minute", "CARDROOM_LIMIT_GAMES": "100000/minute",
    "CARDROOM_LIMIT_SEATS": "100000/minute", "CARDROOM_RATE_LIMIT": "100000/second",
    "CARDROOM_BOT_DELAY_S": "0",
}  # fmt: skip


def cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def one_match(url: str, game: str, options: dict[str, object]) -> tuple[float, int, float]:
    """Seconds from creation to the end, the kit's moves, its CPU seconds (the
    process's, less what the example's ``choose`` spent)."""
    client = Client(url)
    state = State(url=url)
    table = TableState(game=game, fill_bots=3)
    state.tables.append(table)
    ensure_player(client, state)
    cpu, started = cpu_s(), time.monotonic()
    seats = 4 if game == "azi" else None
    open_table(client, state, table, options={**options, "bot_delay_s": 0}, seats=seats,
               name="kit")  # fmt: skip
    choose, in_choose = load_choose(EXAMPLES / f"{game}_bot.py"), [0.0]

    def timed(view: View) -> Move | None:
        before = cpu_s()
        try:
            return choose(view)
        finally:
            in_choose[0] += cpu_s() - before

    runner = Runner(client, timed, state)
    runner.run()
    took, used = time.monotonic() - started, cpu_s() - cpu - in_choose[0]
    client.close()
    return took, runner.moves, used


def floor_cpu_per_request(url: str, game_id: str, count: int) -> float:
    with httpx.Client(base_url=url) as http:
        cpu = cpu_s()
        for _ in range(count):
            http.get(f"/games/{game_id}").json()
        return (cpu_s() - cpu) / count


def many_tables(url: str, tables: int) -> tuple[int, float, int]:
    """Tables one player stream follows: games seen, seconds to every first view,
    connections it took."""
    with Client(url) as client:
        player = client.create_player()
        ids = set()
        for _ in range(tables):
            created = client.create_game(
                "hazari", bots=[{"seat": s, "name": "b"} for s in range(3)]
            )
            client.take_seat(created.game_id, "kit", player_key=player.player_key)
            ids.add(created.game_id)
        started = time.monotonic()
        stream = client.player_stream(player.player_key, views=False)
        seen: set[str] = set()
        for line in stream:
            if line.kind == "view" and line.game_id in ids:
                seen.add(line.game_id)
            if seen == ids or time.monotonic() - started > 60:
                break
        took = time.monotonic() - started
        stream.close()
        return len(seen), took, stream.stats.connections


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="Hazari only, 16 tables")
    parser.add_argument("--tables", type=int, default=64)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        serve = Serve(Path(tmp) / "data", Path(tmp) / "serve.log", **WIDE).start()
        try:
            games: dict[str, dict[str, object]] = {"hazari": {"target": 1000}}
            if not args.quick:
                games |= {"azi": {"buy_in": 100, "ante": 20, "min_bet": 20}, "murlan": {}}
            last = ""
            for game, options in games.items():
                took, moves, used = one_match(serve.url, game, options)
                with Client(serve.url) as c:
                    last = c.list_games(limit=1).items[0].game_id
                floor = floor_cpu_per_request(serve.url, last, 200)
                per_move = used / max(moves, 1)
                print(f"{game}: creation to end {took:.2f} s, {moves} kit moves; kit CPU "
                      f"{per_move * 1000:.2f} ms per move, floor {floor * 1000:.2f} ms per bare "
                      f"request, ratio {per_move / floor:.1f}")  # fmt: skip
            count = 16 if args.quick else args.tables
            seen, took, connections = many_tables(serve.url, count)
            print(f"player stream: {seen}/{count} tables on {connections} connection(s), "
                  f"every first view in {took:.2f} s")  # fmt: skip
        finally:
            serve.stop()


if __name__ == "__main__":
    main()
