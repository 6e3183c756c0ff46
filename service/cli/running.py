"""The processes of a deploy beside the API, and the demo: ``cardroom worker``,
``scheduler`` and ``demo``."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..config import load_settings
from .progress import progress

if TYPE_CHECKING:
    from .common import Subparsers


def register(sub: Subparsers, data: argparse.ArgumentParser) -> None:
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
    from ..demo import DEMO_GAMES, run_demo

    with progress("demo", len(DEMO_GAMES) * args.games) as bar:
        return run_demo(games=args.games, progress=bar)
