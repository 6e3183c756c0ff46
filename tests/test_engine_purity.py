"""The engines stay pure: no I/O libraries, no pydantic, no ``random``, and
no import circles between their modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINES = Path(__file__).resolve().parents[1] / "service" / "engines"
PACKAGE = "service.engines"
FORBIDDEN = {"redis", "rq", "flask", "pydantic", "fakeredis", "random", "socket", "requests", "os"}
PROJECT = {"service", "schemas", "workers", "bench", "tests"}


def engine_files() -> list[Path]:
    return sorted(ENGINES.rglob("*.py"))


def module_name(path: Path) -> str:
    parts = [PACKAGE, *path.relative_to(ENGINES).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def engine_imports(path: Path, known: set[str]) -> set[str]:
    """The engine modules ``path`` imports, at module level or inside a
    function. ``from . import x`` imports the submodule ``x``; the parent
    packages Python loads on the way are not counted."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package.pop()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                found.add(submodule if submodule in known else target)
    return found & known - {module_name(path)}


def circles() -> list[list[str]]:
    """Every cycle of the import graph between engine modules (as a path
    that returns to its start)."""
    files = engine_files()
    known = {module_name(p) for p in files}
    graph = {module_name(p): engine_imports(p, known) for p in files}
    found: list[list[str]] = []

    def walk(path: list[str]) -> None:
        for nxt in sorted(graph[path[-1]]):
            if nxt == path[0]:
                found.append([*path, nxt])
            elif nxt not in path and nxt > path[0]:
                walk([*path, nxt])

    for start in sorted(graph):
        walk([start])
    return found


def test_engine_modules_import_nothing_impure() -> None:
    files = engine_files()
    assert len(files) >= 20
    assert {"azi", "murlan", "hazari"} <= {p.parent.name for p in files}
    for path in files:
        bad = imported_modules(path) & FORBIDDEN
        assert not bad, f"{path.relative_to(ENGINES)} imports {sorted(bad)}"


def test_engine_modules_import_no_other_part_of_the_project() -> None:
    for path in engine_files():
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [node.module]
            else:
                continue
            for target in targets:
                outside = target.split(".")[0] in PROJECT and not target.startswith(PACKAGE)
                assert not outside, f"{path.relative_to(ENGINES)} imports {target}"


def test_engine_modules_import_no_circle() -> None:
    assert circles() == []


def test_the_check_would_catch_a_forbidden_import(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text("import redis\nfrom pydantic import BaseModel\nfrom . import cards\n")
    assert imported_modules(sample) & FORBIDDEN == {"redis", "pydantic"}


def test_the_check_would_catch_a_lazy_circle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "engines"
    (root / "game").mkdir(parents=True)
    (root / "game" / "__init__.py").write_text("from .engine import ENGINE\n")
    (root / "game" / "engine.py").write_text("from . import playout\nENGINE = 1\n")
    (root / "game" / "playout.py").write_text("def f() -> None:\n    from .engine import ENGINE\n")
    monkeypatch.setitem(globals(), "ENGINES", root)
    found = circles()
    engine, playout = f"{PACKAGE}.game.engine", f"{PACKAGE}.game.playout"
    assert found == [[engine, playout, engine]]
