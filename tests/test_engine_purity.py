"""The engines stay pure: no I/O libraries, no pydantic, no ``random``."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINES = Path(__file__).resolve().parents[1] / "service" / "engines"
FORBIDDEN = {"redis", "rq", "flask", "pydantic", "fakeredis", "random", "socket", "requests", "os"}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_engine_modules_import_nothing_impure() -> None:
    files = sorted(ENGINES.glob("*.py"))
    assert len(files) >= 5
    for path in files:
        bad = imported_modules(path) & FORBIDDEN
        assert not bad, f"{path.name} imports {sorted(bad)}"


def test_the_check_would_catch_a_forbidden_import(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text("import redis\nfrom pydantic import BaseModel\nfrom . import cards\n")
    assert imported_modules(sample) & FORBIDDEN == {"redis", "pydantic"}
