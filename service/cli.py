"""The ``cardroom`` command: serve, worker, scheduler, demo, replay, verify, export, import."""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .config import ConfigError, Settings, load_settings

if TYPE_CHECKING:
    from flask import Flask

    from workers.embedded import EmbeddedWorker

    _Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

_cleanup = contextlib.ExitStack()
"""What a command started for its duration (the data directory's Redis), stopped
when it returns."""


def main(argv: Sequence[str] | None = None) -> int:
    from .localredis import DataDirError
    from .store import StoreError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with _cleanup:
            code: int = args.func(args)
    except ConfigError as exc:
        print(f"cardroom: {exc}", file=sys.stderr)
        return 2
    except (StoreError, DataDirError, OSError, ValueError) as exc:
        print(f"cardroom {args.command}: {exc}", file=sys.stderr)
        return 1
    return code


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardroom", description=__doc__)
    sub = parser.add_subparsers(required=True, metavar="command", dest="command")
    data = _data_dir_parent()
    _add_running_commands(sub, data)
    _add_replay_commands(sub, data)
    _add_upkeep_commands(sub, data)
    return parser


def _data_dir_parent() -> argparse.ArgumentParser:
    """The ``--data-dir`` option shared by the commands that reach the store."""
    data = argparse.ArgumentParser(add_help=False)
    data.add_argument(
        "--data-dir",
        default=None,
        help="the embedded server's games, when CARDROOM_REDIS_URL is unset "
        "(default: CARDROOM_DATA_DIR, else $XDG_DATA_HOME/cardroom or ~/.local/share/cardroom)",
    )
    return data


def _add_running_commands(sub: _Subparsers, data: argparse.ArgumentParser) -> None:
    """The processes that run the service: serve, worker, scheduler, demo."""
    p = sub.add_parser(
        "serve",
        parents=[data],
        help="run the API (embedded default: a redis-server child on the data directory "
        "and an in-process worker)",
    )
    p.add_argument("--host", default=None)
    p.add_argument("--port", type=int, default=None)
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser(
        "worker", help="run an RQ worker for follow-up jobs (needs CARDROOM_REDIS_URL)"
    )
    p.add_argument("--burst", action="store_true", help="quit when the queue is empty")
    p.add_argument(
        "--check", action="store_true", help="exit 0 iff this host's worker beat recently"
    )
    p.add_argument(
        "--no-scheduler",
        action="store_true",
        help="do not fire timers or take reconciler passes here",
    )
    p.set_defaults(func=cmd_worker)

    p = sub.add_parser("scheduler", help="fire due timers and run the periodic reconciler")
    p.add_argument("--interval", type=float, default=None, help="seconds between reconciler passes")
    p.set_defaults(func=cmd_scheduler)

    p = sub.add_parser("demo", help="play bot games of every game and verify every shuffle")
    p.add_argument("--games", type=int, default=1, help="games of each kind")
    p.set_defaults(func=cmd_demo)


def _add_replay_commands(sub: _Subparsers, data: argparse.ArgumentParser) -> None:
    """The replay document and game exports: replay, verify, schema, export, import."""
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


def _add_upkeep_commands(sub: _Subparsers, data: argparse.ArgumentParser) -> None:
    """Reports on and upkeep of the store: fairness, archive, seed-key."""
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
    p.set_defaults(func=cmd_fairness)

    p = sub.add_parser(
        "archive",
        parents=[data],
        help="one retention pass: archive old finished games, expire tables that never started",
    )
    p.set_defaults(func=cmd_archive)

    p = sub.add_parser("seed-key", help="print a new key for CARDROOM_SEED_KEYS: <id>:<base64>")
    p.add_argument("key_id", help="the key's id, e.g. k2 (1-32 of A-Z a-z 0-9 _ . -)")
    p.set_defaults(func=cmd_seed_key)


def cmd_archive(args: argparse.Namespace) -> int:
    from .retention import run_pass

    settings = _store_settings(args)
    report = run_pass(_store(args, settings), settings)
    where = settings.archive_url or "nowhere (CARDROOM_ARCHIVE_URL is unset)"
    print(
        f"cardroom archive: {len(report.archived)} finished games archived to {where}; "
        f"{len(report.expired)} tables that never started expired"
    )
    if report.memory_ratio is not None:
        print(f"cardroom archive: Redis memory at {report.memory_ratio:.0%} of maxmemory")
    return 0


def cmd_seed_key(args: argparse.Namespace) -> int:
    from .store.seeds import KEY_ID_RE, new_key_entry

    if not KEY_ID_RE.fullmatch(args.key_id):
        print("cardroom seed-key: the id must be 1-32 of A-Z a-z 0-9 _ . -", file=sys.stderr)
        return 2
    print(new_key_entry(args.key_id))
    return 0


# -- serving ---------------------------------------------------------------------
def cmd_serve(args: argparse.Namespace) -> int:
    from .api import create_app
    from .runtime import Runtime

    overrides: dict[str, Any] = {}
    if args.host:
        overrides["host"] = args.host
    if args.port:
        overrides["port"] = args.port
    settings = load_settings(**overrides)
    # SIGTERM (a service manager, `kill`) stops as Ctrl-C does: Redis last, cleanly.
    signal.signal(signal.SIGTERM, _interrupt)
    in_process_worker = settings.redis_url is None
    if in_process_worker:
        settings = _embedded_store(args, settings)
    else:
        print(f"cardroom: event store at {settings.redis_url}; run `cardroom worker` beside this.")
    runtime = Runtime.from_settings(settings)
    app = create_app(settings, runtime)
    embedded = None
    if in_process_worker:
        from workers.embedded import EmbeddedWorker

        embedded = EmbeddedWorker(runtime)
        embedded.start()
    _serve_until_stopped(settings, app, embedded)
    return 0


def _embedded_store(args: argparse.Namespace, settings: Settings) -> Settings:
    """Embedded mode's store: a redis-server child on the data directory (stopped
    when the command returns), else, with no redis-server installed, memory."""
    from .localredis import default_data_dir, redis_server_binary, serve_redis

    binary = redis_server_binary()
    if binary is None:
        print(
            "cardroom: embedded mode: redis-server is not installed, so games live in "
            "this process's memory and are LOST when it stops (install redis-server to "
            "keep them: see docs/operations.md); in-process worker."
        )
        return settings
    data_dir = default_data_dir(args.data_dir or settings.data_dir)
    local = _cleanup.enter_context(serve_redis(data_dir, binary))
    settings = _local_settings(settings, local.url, data_dir)
    print(
        f"cardroom: embedded mode: games kept in {data_dir} (redis-server pid "
        f"{local.pid}, append-only file); in-process worker."
    )
    return settings


def _serve_until_stopped(settings: Settings, app: Flask, embedded: EmbeddedWorker | None) -> None:
    """Serve ``app`` on the settings' host and port until interrupted, then stop
    the server and the in-process worker."""
    from werkzeug.serving import make_server

    server = make_server(
        settings.host, settings.port, app, threaded=True, request_handler=_quiet_request_handler()
    )
    url = f"http://{settings.host}:{server.server_port}"
    print(f"cardroom: serving on {url}  (web table: {url}/ , API docs: {url}/docs)")
    print(
        f"cardroom: next: curl -s -X POST {url}/games -H 'Content-Type: application/json' "
        '-d \'{"game": "murlan"}\''
    )
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        if embedded is not None:
            embedded.stop()
        print("cardroom: stopped.")
        sys.stdout.flush()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _local_settings(settings: Settings, url: str, data_dir: Path) -> Settings:
    """``settings`` on the data directory's Redis at ``url``, with the
    directory's key sealing server seeds unless keys are configured."""
    from .localredis import seed_keys_file

    # cardroom writes that Redis's config itself (the default user unrestricted):
    # the AOF/ACL start-up check has nothing to find there.
    update: dict[str, Any] = {"redis_url": url, "redis_aof_acl_check": "off"}
    if settings.seed_keys is None and settings.seed_keys_file is None:
        update["seed_keys_file"] = str(seed_keys_file(data_dir))
    return settings.model_copy(update=update)


def _quiet_request_handler() -> type:
    from werkzeug.serving import WSGIRequestHandler

    class Quiet(WSGIRequestHandler):
        """Werkzeug's handler without its own access log line: the app logs one
        JSON line per request (service/observe.py)."""

        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            pass

    return Quiet


def cmd_worker(args: argparse.Namespace) -> int:
    from workers.main import run_worker

    if args.check:
        from workers.check import check

        return check(load_settings())

    return run_worker(load_settings(), burst=args.burst, with_scheduler=not args.no_scheduler)


def cmd_scheduler(args: argparse.Namespace) -> int:
    from workers.main import run_scheduler

    return run_scheduler(load_settings(), interval_s=args.interval)


def cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(games=args.games)


# -- audit tools ---------------------------------------------------------------------
def _read_json(path: str) -> Any:
    text = sys.stdin.read() if path == "-" else Path(path).read_text()
    return json.loads(text)


def cmd_replay(args: argparse.Namespace) -> int:
    from .render import render_replay

    source = Path(args.source)
    if source.exists() or args.source == "-":
        doc = _read_json(args.source)
    else:
        doc = _replay_from_store(args, args.source)
    print(render_replay(doc, at=args.at))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from .replay import ReplayFormatError, audit_replay

    try:
        doc = _read_json(args.file)
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
            f"{report.steps_checked} steps checked, result recomputed"
        )
        return 0
    mismatch = report.mismatch or {}
    where = f" at version {mismatch['version']}" if mismatch.get("version") is not None else ""
    print(f"cardroom verify: FAILED{where}: {mismatch.get('reason')}", file=sys.stderr)
    return 1


def _store_settings(args: argparse.Namespace) -> Settings:
    """The settings of a command reading the store: CARDROOM_REDIS_URL's Redis,
    else the data directory's (the running ``cardroom serve``'s Redis, or one
    started for the command's duration: see service/localredis.py)."""
    from .localredis import default_data_dir, reach

    settings = load_settings()
    if settings.redis_url is not None:
        return settings
    data_dir = default_data_dir(getattr(args, "data_dir", None) or settings.data_dir)
    url = _cleanup.enter_context(reach(data_dir, f"cardroom {args.command}"))
    return _local_settings(settings, url, data_dir)


def _store(args: argparse.Namespace, settings: Settings | None = None) -> Any:
    from .runtime import Runtime

    return Runtime.from_settings(settings or _store_settings(args)).store


def _replay_from_store(args: argparse.Namespace, game_id: str) -> Any:
    from .replay import build_replay
    from .retention import events_or_archive

    state, stored = events_or_archive(_store(args), game_id)
    return build_replay(state, stored, None)


def cmd_schema(args: argparse.Namespace) -> int:
    from schemas.replay import replay_json_schema

    print(json.dumps(replay_json_schema(), indent=2, sort_keys=True))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    if args.format == "jsonl":
        from .store.archive import export_jsonl

        text = export_jsonl(_store(args), args.game_id)
    else:
        text = json.dumps(_replay_from_store(args, args.game_id), indent=2)
    if args.output == "-":
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        Path(args.output).write_text(text)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from .store.archive import import_jsonl

    game_id = import_jsonl(_store(args), Path(args.file).read_text())
    print(f"cardroom import: imported game {game_id}")
    return 0


def cmd_fairness(args: argparse.Namespace) -> int:
    from .fairness import projection, report

    if args.replays:
        try:
            docs = [_read_json(path) for path in args.replays]
        except (OSError, ValueError) as exc:
            print(f"cardroom fairness: cannot read a replay: {exc}", file=sys.stderr)
            return 2
        counts, meta = projection.from_replays(docs)
    else:
        store = _store(args)
        if args.rebuild:
            done = projection.rebuild(store)
            print(f"cardroom fairness: rebuilt from {done['games']} games, {done['deals']} deals")
        counts, meta = projection.read(store)
    doc = report.build(counts, meta, player=args.player, game=args.game)
    print(json.dumps(doc, indent=2) if args.json else report.render_text(doc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
