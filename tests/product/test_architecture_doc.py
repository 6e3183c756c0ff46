"""docs/architecture.md matches the tree: every path it names exists, and it
names every module of the game packages and of the event store."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "architecture.md").read_text()


def test_every_path_the_doc_names_exists() -> None:
    paths = set(re.findall(r"`((?:service|workers|schemas|tests|deploy)/[\w/.]*)`", DOC))
    assert len(paths) >= 8
    missing = sorted(p for p in paths if not (ROOT / p).exists())
    assert missing == []


def test_every_module_of_the_game_packages_and_the_store_is_named() -> None:
    named = set(re.findall(r"`(\w+\.py)`", DOC))
    for folder in ("engines/hazari", "engines/murlan", "engines/azi", "store"):
        modules = {p.name for p in (ROOT / "service" / folder).glob("*.py")} - {"__init__.py"}
        assert modules, folder
        assert sorted(modules - named) == [], folder


def test_the_functions_on_a_moves_path_exist() -> None:
    from service.api import moves
    from service.engines import table
    from service.games import GameService
    from service.repository import GameRepository
    from service.store import EventStore, load_game_and_tokens

    assert callable(moves.submit_move) and callable(load_game_and_tokens)
    for name in ("seat_and_state", "submit_move", "_move"):
        assert name in DOC and hasattr(GameService, name), name
    for name in ("commit", "save", "projection", "_hand_over"):
        assert f"GameRepository.{name}" in DOC and hasattr(GameRepository, name), name
    for name in ("decide", "fold", "view"):
        assert f"service.engines.table.{name}" in DOC and hasattr(table, name), name
    assert "EventStore.append" in DOC and hasattr(EventStore, "append")
