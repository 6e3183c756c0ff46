"""The ``cardroom`` command: one module per group of commands.

:data:`GROUPS` is where every command is registered: each group's
``register`` adds its subcommands (their options, their ``func``). The
``cardroom`` entry point and ``python -m service`` both run :func:`main`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

from ..config import ConfigError
from . import audits, replays, running, serve, upkeep
from .common import cleanup, data_dir_parent

if TYPE_CHECKING:
    from .common import Subparsers

DESCRIPTION = (
    "cardroom: Hazari Lite, Azi and Murlan at remote tables; event-sourced, verifiably "
    "shuffled, replayable. Run 'cardroom COMMAND --help' for a command's options."
)

GROUPS: tuple[Callable[[Subparsers, argparse.ArgumentParser], None], ...] = (
    serve.register,  # serve
    running.register,  # worker, scheduler, demo
    replays.register,  # replay, schema, export, import
    audits.register,  # verify, audit
    upkeep.register,  # fairness, archive, seed-key
)
"""Every command of ``cardroom``, group by group, in the order ``--help`` lists them."""


def package_version() -> str:
    """The installed distribution's version (``cardroom --version``)."""
    try:
        return version("cardroom")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cardroom", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"cardroom {package_version()}")
    sub = parser.add_subparsers(required=True, title="commands", metavar="COMMAND", dest="command")
    data = data_dir_parent()
    for register in GROUPS:
        register(sub, data)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from ..localredis import DataDirError
    from ..store import StoreError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with cleanup:
            code: int = args.func(args)
    except ConfigError as exc:
        print(f"cardroom: {exc}", file=sys.stderr)
        return 2
    except (StoreError, DataDirError, OSError, ValueError) as exc:
        print(f"cardroom {args.command}: {exc}", file=sys.stderr)
        return 1
    return code
