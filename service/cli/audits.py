"""``cardroom verify`` (many files) and ``cardroom audit`` (every finished game of
the store and its archives): see :mod:`service.audit`."""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import store_settings
from .progress import progress

if TYPE_CHECKING:
    from ..audit import GameCheck
    from .common import Subparsers


def register(sub: Subparsers, data: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "verify",
        help="audit replay documents and game archives offline (no server, no Redis)",
        description="Audit replay documents (cardroom-replay-v1), JSON Lines of them and "
        "games' JSON Lines archives: the commitment, every deal re-derived, every move "
        "replayed through the engines, the result recomputed. Exits 1 if any game fails.",
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="files or directories (searched for *.json and *.jsonl); '-' for stdin",
    )
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser(
        "audit",
        parents=[data],
        help="audit every finished game of the store and its archives",
        description="Replay every finished game (in Redis or archived) through the engines "
        "as 'cardroom verify' does, across processes; write a JSON report, record the "
        "audit's figures for the metrics, and exit 1 if any game fails.",
    )
    p.add_argument("--since", type=when, help="games created at or after (ISO date or time, UTC)")
    p.add_argument("--until", type=when, help="games created before (ISO date or time, UTC)")
    p.add_argument(
        "--kind", action="append", choices=("hazari", "murlan", "azi"), default=[], help="a game"
    )
    p.add_argument("--player", action="append", default=[], help="games with this seat name")
    p.add_argument("--game", action="append", default=[], dest="games", help="a game id")
    p.add_argument("-j", "--jobs", type=int, default=None, help="processes (default: the cores)")
    p.add_argument("-o", "--report", default=None, help="write the JSON report here")
    p.add_argument("--json", action="store_true", help="print the JSON report on stdout")
    p.add_argument(
        "--no-record", action="store_true", help="do not record the figures for the metrics"
    )
    p.set_defaults(func=cmd_audit)


def when(text: str) -> int:
    """An ISO date or date and time (UTC unless it says otherwise) as epoch ms."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an ISO date or time (2026-11-01, 2026-11-01T12:00Z)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def _checks_of(name: str) -> list[GameCheck]:
    from ..audit import GameCheck, check_file, check_text

    if name == "-":
        return check_text(sys.stdin.read(), "<stdin>")
    path = Path(name)
    if not path.exists():
        return [GameCheck(name, None, None, False, "no such file")]
    return check_file(path)


def _line(check: GameCheck) -> str:
    what = f"{check.game} game {check.game_id}" if check.game_id else check.source
    if check.ok:
        return (
            f"OK: {what}: commitment matches; {check.deals} deals re-derived, "
            f"{check.moves} moves re-played, result recomputed"
            + (f"; {check.seeds}" if check.seeds else "")
        )
    where = f" at version {check.version}" if check.version is not None else ""
    source = f" ({check.source})" if check.game_id else ""
    return f"FAILED{where}: {what}{source}: {check.reason}"


def cmd_verify(args: argparse.Namespace) -> int:
    from ..audit import expand

    names = [n for n in args.files if n == "-"]
    files = [str(p) for p in expand(n for n in args.files if n != "-")]
    checks: list[GameCheck] = []
    for name in [*files, *names]:
        for check in _checks_of(name):
            checks.append(check)
            print(f"cardroom verify: {_line(check)}", file=sys.stdout if check.ok else sys.stderr)
    failed = sum(1 for c in checks if not c.ok)
    deals = sum(c.deals for c in checks)
    moves = sum(c.moves for c in checks)
    print(
        f"cardroom verify: {len(checks)} games checked, {len(checks) - failed} verified, "
        f"{failed} failed; {deals} deals re-derived, {moves} moves re-played"
    )
    return 1 if failed or not checks else 0


def cmd_audit(args: argparse.Namespace) -> int:
    from ..audit import Filters, audit_games, default_jobs, report, select_games
    from .common import open_store

    if args.jobs is not None and args.jobs < 1:
        print("cardroom audit: --jobs must be 1 or more", file=sys.stderr)
        return 2
    started = datetime.now(UTC).isoformat(timespec="seconds")
    clock = time.monotonic()
    settings = store_settings(args)
    store = open_store(args, settings)
    filters = Filters(
        args.since, args.until, tuple(args.kind), tuple(args.player), tuple(args.games)
    )
    game_ids = select_games(store, filters)
    jobs = min(args.jobs or default_jobs(), max(1, len(game_ids)))
    with progress("audit: games checked", len(game_ids), quiet=args.json) as bar:
        totals = audit_games(settings, game_ids, filters, jobs, bar.step)
    seconds = time.monotonic() - clock
    doc = report(totals, filters, started, datetime.now(UTC).isoformat(timespec="seconds"))
    doc["seconds"] = round(seconds, 3)
    doc["jobs"] = jobs
    if not args.no_record:
        store.audits.record(totals.games, len(totals.failures), seconds, store.now_ms())
    _write_report(args, doc)
    return 0 if totals.ok else 1


def _write_report(args: argparse.Namespace, doc: dict[str, Any]) -> None:
    text = json.dumps(doc, indent=2)
    if args.report:
        Path(args.report).write_text(text + "\n")
    if args.json:
        print(text)
        return
    for failure in doc["failures"]:
        where = f" at version {failure['version']}" if failure["version"] is not None else ""
        print(f"cardroom audit: FAILED{where}: game {failure['game_id']}: {failure['reason']}")
    print(
        f"cardroom audit: {doc['games_checked']} games checked, {doc['games_failed']} failed; "
        f"{doc['deals_checked']} deals re-derived, {doc['moves_checked']} moves re-played "
        f"in {doc['seconds']} s on {doc['jobs']} processes"
        + (f"; report in {args.report}" if args.report else "")
    )
