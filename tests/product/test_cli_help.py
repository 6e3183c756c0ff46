"""``cardroom --help`` names every registered command in plain text, and the
command reports its version, also as ``python -m service``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

from service.cli import build_parser

CARDROOM = str(Path(sys.executable).with_name("cardroom"))
MARKUP = ("``", ":func:", ":mod:", ":class:", ":data:", ":meth:", "`")
"""reStructuredText (and backquotes of any kind): what a person should not read."""


def run(*args: str) -> str:
    env = {**os.environ, "COLUMNS": "100"}
    done = subprocess.run(args, capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout


def registered() -> list[str]:
    """The subcommands the parser has, in registration order."""
    action = build_parser()._subparsers._group_actions[0]  # type: ignore[union-attr]
    return list(action.choices)


def test_the_help_lists_every_registered_command_in_plain_text() -> None:
    text = run(CARDROOM, "--help")
    commands = text.split("\ncommands:\n", 1)[1]
    listed = re.findall(r"^    (\S+)", commands, re.M)
    assert listed == registered()
    assert {"serve", "worker", "scheduler", "archive", "fairness", "seed-key"} <= set(listed)
    for line in commands.splitlines()[1:]:  # each command has its one-line help beside it
        assert line.startswith("    ") and line.strip(), line
    assert not [m for m in MARKUP if m in text]


def test_every_command_has_plain_text_help() -> None:
    for command in registered():
        text = run(CARDROOM, command, "--help")
        assert text.startswith(f"usage: cardroom {command}"), command
        assert not [m for m in MARKUP if m in text], command


def test_the_version_is_the_installed_distributions() -> None:
    expected = f"cardroom {version('cardroom')}\n"
    assert run(CARDROOM, "--version") == expected
    assert run(sys.executable, "-m", "service", "--version") == expected


def test_python_m_service_is_the_cardroom_command() -> None:
    assert run(sys.executable, "-m", "service", "--help") == run(CARDROOM, "--help")
    schema = run(sys.executable, "-m", "service", "schema")
    assert schema == run(CARDROOM, "schema") and '"title": "ReplayDocument"' in schema


def test_the_readme_names_every_command() -> None:
    """README.md's table of the ``cardroom`` command has a row for each command."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    rows = re.findall(r"^\| `cardroom ([\w-]+)[^|]*\|", readme, re.M)
    named = set(rows) | set(re.findall(r"^\| `cardroom [^|]*/ `cardroom ([\w-]+)", readme, re.M))
    assert sorted(set(registered()) - named) == []


def test_archive_never_prints_a_password_in_its_archive_url() -> None:
    from service.cli.upkeep import _shown

    assert _shown("s3://key:secret@bucket/cardroom") == "s3://key:***@bucket/cardroom"
    assert _shown("file:///var/lib/cardroom/archive") == "file:///var/lib/cardroom/archive"
    assert _shown("/srv/archive") == "/srv/archive"
    assert _shown(None) is None
