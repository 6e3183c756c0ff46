"""docs/events.md names every event type of every game, with its fields."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from schemas.events import event_classes, schema_version
from service.engines.registry import GAMES
from service.engines.table import TABLE_EVENTS

DOC = Path(__file__).resolve().parents[2] / "docs" / "events.md"


def section(text: str, title: str) -> str:
    start = text.index(f"### {title}\n")
    end = text.find("\n### ", start + 1)
    return text[start : end if end != -1 else len(text)]


@pytest.mark.parametrize("game", GAMES)
def test_every_event_type_is_documented(game: str) -> None:
    text = DOC.read_text()
    table = section(text, "Table events (every game)")
    own = section(text, game.title())
    for name, cls in event_classes(game).items():
        where = table if cls in TABLE_EVENTS else own
        row = next((line for line in where.splitlines() if line.startswith(f"| `{name}` |")), None)
        assert row is not None, f"{game} event {name} is missing from {DOC.name}"
        assert row.split("|")[2].strip() == str(schema_version(cls)), f"{name}: wrong version"
        for field in dataclasses.fields(cls):
            assert f"`{field.name}:" in row, f"{name}.{field.name} is missing from {DOC.name}"
