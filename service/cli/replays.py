"""Replay documents and game exports: ``cardroom replay``, ``verify``,
``schema``, ``export`` and ``import``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import open_store, read_json
from .progress import progress

if TYPE_CHECKING:
    from .common import Subparsers


def register(sub: Subparsers, data: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "replay", parents=[data], help="render a replay document (file or game id) as text"
    )
    p.add_argument(
        "source",
        help="a replay JSON file, or a game id (on CARDROOM_REDIS_URL, else the data directory)",
    )
    p.add_argument("--at", type=int, default=None, help="stop after this event version")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("verify", help="audit a replay document offline (no server, no Redis)")
    p.add_argument("file", help="a cardroom-replay-v1 JSON file ('-' for stdin)")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("schema", help="print the JSON Schema of the replay document")
    p.set_defaults(func=cmd_schema)

    p = sub.add_parser(
        "export", parents=[data], help="write a game as a replay document or JSON Lines"
    )
    p.add_argument("game_id")
    p.add_argument("--format", choices=("replay", "jsonl"), default="replay")
    p.add_argument("-o", "--output", default="-")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser(
        "import", parents=[data], help="load a game's JSON Lines export into the store"
    )
    p.add_argument("file")
    p.set_defaults(func=cmd_import)


def cmd_replay(args: argparse.Namespace) -> int:
    from ..render import render_replay

    source = Path(args.source)
    if source.exists() or args.source == "-":
        doc = read_json(args.source)
    else:
        doc = _replay_from_store(args, args.source)
    print(render_replay(doc, at=args.at))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from ..replay import ReplayFormatError, audit_replay

    try:
        doc = read_json(args.file)
    except (OSError, ValueError) as exc:
        print(f"cardroom verify: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    try:
        report = audit_replay(doc)
    except ReplayFormatError as exc:
        print(f"cardroom verify: FAILED: {exc}", file=sys.stderr)
        return 1
    if report.ok:
        print(
            f"cardroom verify: OK: {doc.get('game')} game {doc.get('game_id')}: "
            "commitment matches; "
            f"{report.deals_checked} deals re-derived, {report.moves_checked} moves re-played, "
            f"{report.steps_checked} steps checked, result recomputed; {_seeds_line(report)}"
        )
        return 0
    mismatch = report.mismatch or {}
    where = f" at version {mismatch['version']}" if mismatch.get("version") is not None else ""
    print(f"cardroom verify: FAILED{where}: {mismatch.get('reason')}", file=sys.stderr)
    return 1


def _seeds_line(report: Any) -> str:
    """What the audit found of who chose each seat's seed."""
    derived = [s["seat"] for s in report.seeds if s["origin"] == "derived"]
    if report.seeds_committed is False:
        return (
            "seat seeds unrecorded: this game predates committed seeds, so any seed "
            "the server drew (bots, players who gave none) was NOT committed"
        )
    mine = [s["seat"] for s in report.seeds if s["origin"] == "player"]
    return (
        f"seats {_seats(derived)} derived from the committed seed and re-derived, "
        f"seats {_seats(mine)} chosen by their players"
    )


def _seats(seats: list[int]) -> str:
    return ",".join(str(s) for s in seats) if seats else "none"


def _replay_from_store(args: argparse.Namespace, game_id: str) -> Any:
    from ..replay import build_replay
    from ..retention import events_or_archive

    state, stored = events_or_archive(open_store(args), game_id)
    return build_replay(state, stored, None)


def cmd_schema(args: argparse.Namespace) -> int:
    from schemas.replay import replay_json_schema

    print(json.dumps(replay_json_schema(), indent=2, sort_keys=True))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    if args.format == "jsonl":
        from ..store.archive import export_jsonl

        text = export_jsonl(open_store(args), args.game_id)
    else:
        text = json.dumps(_replay_from_store(args, args.game_id), indent=2)
    if args.output == "-":
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        Path(args.output).write_text(text)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from ..store.archive import import_jsonl

    text = Path(args.file).read_text()
    store = open_store(args)
    events = sum(1 for line in text.splitlines() if line.strip())
    with progress("import: events checked", events) as bar:
        game_id = import_jsonl(store, text, bar.step)
    print(f"cardroom import: imported game {game_id}")
    return 0
