"""No class over 400 lines and no function over 60 in ``service``, ``workers``
and ``schemas``, read from the source.

A definition's size is its lines from ``def``/``class`` to its last line,
inclusive, as :mod:`ast` gives them (``lineno`` to ``end_lineno``): its
docstring counts, its decorators do not. Nested definitions are measured too.
The few definitions allowed over the limit are named in :data:`EXCEPTIONS`
with the reason, and each must still be over it, so the list stays honest.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOP = ("service", "workers", "schemas")
CLASS_LIMIT = 400
FUNCTION_LIMIT = 60

EXCEPTIONS: dict[str, str] = {
    "service/engines/hazari/arrange.py::_search": (
        "the arranger's search loop: one tight loop, split it costs the search"
    ),
}
"""``path::name`` (the definition's own name) of what may be over the limit, and why."""


def oversized(source: str) -> list[tuple[str, int, int]]:
    """``(name, lines, limit)`` of every class over :data:`CLASS_LIMIT` and
    every function over :data:`FUNCTION_LIMIT` in ``source``."""
    found: list[tuple[str, int, int]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            limit = CLASS_LIMIT
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            limit = FUNCTION_LIMIT
        else:
            continue
        assert node.end_lineno is not None
        lines = node.end_lineno - node.lineno + 1
        if lines > limit:
            found.append((node.name, lines, limit))
    return found


def measured() -> dict[str, tuple[int, int]]:
    """Every oversized definition of the project, as ``path::name``."""
    found: dict[str, tuple[int, int]] = {}
    for top in TOP:
        for path in sorted((ROOT / top).rglob("*.py")):
            where = path.relative_to(ROOT).as_posix()
            for name, lines, limit in oversized(path.read_text()):
                found[f"{where}::{name}"] = (lines, limit)
    return found


def test_no_class_or_function_over_the_limit() -> None:
    over = {key: size for key, size in measured().items() if key not in EXCEPTIONS}
    assert not over, "over the limit (lines, limit): " + ", ".join(
        f"{key} {size}" for key, size in sorted(over.items())
    )


def test_every_exception_is_still_over_the_limit() -> None:
    found = measured()
    stale = sorted(key for key in EXCEPTIONS if key not in found)
    assert not stale, f"no longer over the limit, drop them from EXCEPTIONS: {stale}"


def test_the_measure_catches_a_long_function_and_a_long_class() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(FUNCTION_LIMIT - 1))
    fits = f"def fits():\n{body}"
    long = f"@decorator\nasync def long():\n    '''Counted.'''\n{body}"
    method = "".join(f"    {line}\n" for line in f"def m(self):\n{body}".splitlines())
    methods = method * (CLASS_LIMIT // FUNCTION_LIMIT + 1)
    big = f"class Big:\n{methods}"
    assert oversized(fits) == []
    assert oversized(long) == [("long", FUNCTION_LIMIT + 1, FUNCTION_LIMIT)]
    assert [name for name, _, _ in oversized(big)] == ["Big"]
