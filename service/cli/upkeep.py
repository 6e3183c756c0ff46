"""Reports on and upkeep of the store: ``cardroom fairness``, ``archive`` and
``seed-key``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from .common import open_store, read_json, store_settings
from .progress import progress

if TYPE_CHECKING:
    from .common import Subparsers


def register(sub: Subparsers, data: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "fairness",
        parents=[data],
        help="the fairness report over the store or over replay documents",
    )
    p.add_argument("replays", nargs="*", help="replay JSON files (default: the store)")
    p.add_argument("--rebuild", action="store_true", help="recount the store's finished games")
    p.add_argument("--player", default=None, help="only everyone's rows and this player's")
    p.add_argument("--game", choices=("hazari", "azi", "murlan"), default=None)
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "--no-verify",
        action="store_true",
        help="count replay files without auditing them (they must still be finished games)",
    )
    p.set_defaults(func=cmd_fairness)

    p = sub.add_parser(
        "archive",
        parents=[data],
        help="one retention pass: archive old finished games, expire tables that never started",
    )
    p.add_argument("--json", action="store_true", help="print what the pass did as JSON")
    p.set_defaults(func=cmd_archive)

    p = sub.add_parser("seed-key", help="print a new key for CARDROOM_SEED_KEYS: <id>:<base64>")
    p.add_argument("key_id", help="the key's id, e.g. k2 (1-32 of A-Z a-z 0-9 _ . -)")
    p.set_defaults(func=cmd_seed_key)


def cmd_fairness(args: argparse.Namespace) -> int:
    from ..fairness import projection, report

    status = 0
    if args.replays:
        counts, meta, status = _from_files(args.replays, verify=not args.no_verify)
    else:
        store = open_store(args)
        if args.rebuild:
            total = store.index.count(status="ended")
            with progress("fairness: games recounted", total, quiet=args.json) as bar:
                done = projection.rebuild(store, step=bar.step)
            # with --json, standard output is the report alone
            print(
                f"cardroom fairness: rebuilt from {done['games']} games, {done['deals']} deals",
                file=sys.stderr if args.json else sys.stdout,
            )
        counts, meta = projection.read(store)
    doc = report.build(counts, meta, player=args.player, game=args.game)
    print(json.dumps(doc, indent=2) if args.json else report.render_text(doc))
    return status


def _from_files(paths: list[str], verify: bool) -> tuple[dict[str, int], dict[str, int], int]:
    """Counts over replay files, each audited (unless ``verify`` is false) and
    each game once; every file left out is named on standard error, and the
    status is then 1."""
    from ..fairness.inputs import counted_inputs

    def read(path: str) -> object:
        try:
            return read_json(path)
        except (OSError, ValueError, RecursionError) as exc:
            return exc

    found = counted_inputs(((path, read(path)) for path in paths), verify=verify)
    for rejected in found.rejected:
        print(f"cardroom fairness: rejected {rejected.path}: {rejected.reason}", file=sys.stderr)
    if not verify:
        print("cardroom fairness: the files were counted WITHOUT verification", file=sys.stderr)
    print(
        f"cardroom fairness: counted {found.games} games from {len(paths)} files, "
        f"rejected {len(found.rejected)}",
        file=sys.stderr,
    )
    return dict(found.counts), found.meta, 1 if found.rejected else 0


def cmd_archive(args: argparse.Namespace) -> int:
    from ..retention import pass_size, run_pass

    settings = store_settings(args)
    store = open_store(args, settings)
    with progress("archive: games looked at", pass_size(store, settings), quiet=args.json) as bar:
        report = run_pass(store, settings, step=bar.step)
    if args.json:
        summary = {
            "archived": len(report.archived),
            "expired": len(report.expired),
            "archive_url": _shown(settings.archive_url),
            "memory_ratio": report.memory_ratio,
            "archived_games": report.archived,
            "expired_games": report.expired,
        }
        print(json.dumps(summary, indent=2))
        return 0
    where = _shown(settings.archive_url) or "nowhere (CARDROOM_ARCHIVE_URL is unset)"
    print(
        f"cardroom archive: {len(report.archived)} finished games archived to {where}; "
        f"{len(report.expired)} tables that never started expired"
    )
    if report.memory_ratio is not None:
        print(f"cardroom archive: Redis memory at {report.memory_ratio:.0%} of maxmemory")
    return 0


def _shown(url: str | None) -> str | None:
    """``url`` without a password it may hold (``s3://key:secret@bucket``)."""
    if url is None:
        return None
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


def cmd_seed_key(args: argparse.Namespace) -> int:
    from ..store.seeds import KEY_ID_RE, new_key_entry

    if not KEY_ID_RE.fullmatch(args.key_id):
        print("cardroom seed-key: the id must be 1-32 of A-Z a-z 0-9 _ . -", file=sys.stderr)
        return 2
    print(new_key_entry(args.key_id))
    return 0
