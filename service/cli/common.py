"""What the commands share: the ``--data-dir`` option, reaching the store, and
what a command started for its duration (stopped when it returns)."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import Settings, load_settings

if TYPE_CHECKING:
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

cleanup = contextlib.ExitStack()
"""What a command started for its duration (the data directory's Redis), stopped
when it returns."""


def data_dir_parent() -> argparse.ArgumentParser:
    """The ``--data-dir`` option shared by the commands that reach the store."""
    data = argparse.ArgumentParser(add_help=False)
    data.add_argument(
        "--data-dir",
        default=None,
        help="the embedded server's games, when CARDROOM_REDIS_URL is unset "
        "(default: CARDROOM_DATA_DIR, else $XDG_DATA_HOME/cardroom or ~/.local/share/cardroom)",
    )
    return data


def read_json(path: str) -> Any:
    """A JSON file, or standard input for ``-``."""
    text = sys.stdin.read() if path == "-" else Path(path).read_text()
    return json.loads(text)


def local_settings(settings: Settings, url: str, data_dir: Path) -> Settings:
    """``settings`` on the data directory's Redis at ``url``, with the
    directory's key sealing server seeds unless keys are configured."""
    from ..localredis import seed_keys_file

    # cardroom writes that Redis's config itself (the default user unrestricted):
    # the AOF/ACL start-up check has nothing to find there.
    update: dict[str, Any] = {"redis_url": url, "redis_aof_acl_check": "off"}
    if settings.seed_keys is None and settings.seed_keys_file is None:
        update["seed_keys_file"] = str(seed_keys_file(data_dir))
    return settings.model_copy(update=update)


def store_settings(args: argparse.Namespace) -> Settings:
    """The settings of a command reading the store: CARDROOM_REDIS_URL's Redis,
    else the data directory's (the running ``cardroom serve``'s Redis, or one
    started for the command's duration: see service/localredis.py)."""
    from ..localredis import default_data_dir, reach

    settings = load_settings()
    if settings.redis_url is not None:
        return settings
    data_dir = default_data_dir(getattr(args, "data_dir", None) or settings.data_dir)
    url = cleanup.enter_context(reach(data_dir, f"cardroom {args.command}"))
    return local_settings(settings, url, data_dir)


def open_store(args: argparse.Namespace, settings: Settings | None = None) -> Any:
    """The event store the command works on (see :func:`store_settings`)."""
    from ..runtime import Runtime

    return Runtime.from_settings(settings or store_settings(args)).store
