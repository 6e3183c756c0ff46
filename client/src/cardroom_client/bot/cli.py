"""``cardroom-bot``: play a bot's ``choose(view)`` at cardroom tables to the end."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from ..client import Client
from ..errors import CardroomError
from .loader import load_choose
from .runner import Runner
from .setup import ensure_player, open_table, take_seat
from .state import State, TableState

DEFAULT_URL = "http://127.0.0.1:8000"


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="cardroom-bot", description=__doc__)
    commands = top.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="play BOT.py's choose(view) until its games end")
    run.add_argument("bot", type=Path, help="a Python file defining choose(view) -> move")
    run.add_argument(
        "--url",
        default=os.environ.get("CARDROOM_URL", DEFAULT_URL),
        help=f"the server (default: $CARDROOM_URL, else {DEFAULT_URL})",
    )
    where = run.add_mutually_exclusive_group()
    where.add_argument("--game", choices=["hazari", "azi", "murlan"], help="open new tables")
    where.add_argument("--join", metavar="GAME_ID", help="take a seat at this game")
    run.add_argument("--seat-key", help="with --join: the seat's idempotency key (16+ chars)")
    run.add_argument(
        "--fill-bots",
        type=int,
        default=0,
        metavar="N",
        help="with --game: seat N house bots at each new table",
    )
    run.add_argument("--seats", type=int, help="with --game: seats per table (azi: 2-6)")
    run.add_argument("--tables", type=int, default=1, help="with --game: how many tables")
    run.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a table option (VALUE read as JSON if it parses); repeatable",
    )
    run.add_argument(
        "--bot-delay",
        type=float,
        metavar="S",
        help="the house bots' thinking delay at new tables (0-10 s)",
    )
    run.add_argument("--name", default="cardroom-bot", help="the bot's name at the table")
    run.add_argument(
        "--state",
        type=Path,
        default=Path("cardroom-bot.json"),
        help="the state file: seats and tokens (default cardroom-bot.json)",
    )
    run.add_argument("--resume", action="store_true", help="continue the seats of the state file")
    run.add_argument("-q", "--quiet", action="store_true", help="say only warnings")
    return top


def options_of(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for item in args.option:
        name, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--option {item}: write NAME=VALUE")
        try:
            options[name] = json.loads(value)
        except ValueError:
            options[name] = value
    if args.bot_delay is not None:
        options["bot_delay_s"] = args.bot_delay
    return options


def new_state(args: argparse.Namespace) -> State:
    if args.state.exists():
        raise SystemExit(f"{args.state} exists: pass --resume to continue it, or another --state")
    state = State(url=args.url, path=args.state)
    if args.join:
        if not args.seat_key:
            raise SystemExit("--join needs --seat-key (16 or more random characters)")
        state.tables.append(TableState(game="", game_id=args.join, seat_key=args.seat_key))
    elif args.game:
        for _ in range(args.tables):
            state.tables.append(TableState(game=args.game, fill_bots=args.fill_bots))
    else:
        raise SystemExit("say --game GAME (new tables) or --join GAME_ID")
    state.save()
    return state


def prepare(client: Client, state: State, args: argparse.Namespace) -> None:
    ensure_player(client, state)
    for table in state.tables:
        if table.game == "":
            take_seat(client, state, table, args.name)
            table.game = client.view(table.game_id or "", table.token).game
            state.save()
        else:
            open_table(
                client, state, table, options=options_of(args), seats=args.seats, name=args.name
            )


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(
        level=logging.WARNING if args.quiet else logging.INFO,
        format="%(asctime)s %(message)s",
        stream=sys.stderr,
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)
    choose = load_choose(args.bot)
    state = State.load(args.state) if args.resume else new_state(args)
    with Client(state.url, client_secret=state.client_secret) as client:
        try:
            prepare(client, state, args)
            runner = Runner(client, choose, state)
            runner.run()
        except CardroomError as exc:
            print(f"cardroom-bot: {exc}", file=sys.stderr)
            return 1
    ended = sum(t.ended for t in state.tables)
    print(
        f"cardroom-bot: {ended} of {len(state.tables)} games ended, {runner.moves} moves "
        f"({runner.fallbacks} first-legal fallbacks)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
