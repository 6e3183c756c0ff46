"""What may import what (docs/architecture.md), read from the source.

The import graph of ``service``, ``workers`` and ``schemas`` has no circles;
the engines import nothing of the project outside ``service.engines`` and
no I/O, framework or randomness library; the event store depends on nothing
above it; the schemas import no API, web pages or workers; nothing of the
service imports ``service.devstack`` (the local processes of the tests and
the benchmarks), which imports the test extras only inside its functions.

Every import counts: at module level, inside functions and under
``TYPE_CHECKING``. ``from package import name`` depends on the submodule
``package.name`` when there is one, else on the package itself. A package
importing its own submodules (as ``service/store/__init__.py`` does to
re-export their names) is not a circle: Python runs a package before its
submodules, so only a submodule importing from its package's ``__init__``
could close one, and that edge is counted.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOP = ("service", "workers", "schemas")
STORE_MAY_IMPORT = ("service.store", "service.engines", "schemas")
SCHEMAS_MAY_NOT_IMPORT = ("service.api", "service.web", "workers")
IMPURE = {"redis", "rq", "flask", "pydantic", "fakeredis", "random", "socket", "requests", "os"}
"""What the engines may not import: they are pure folds, and all chance comes
from the fair shuffle."""
DEVSTACK = "service.devstack"
TEST_EXTRAS = {"pytest", "hypothesis", "schemathesis", "playwright", "httpx", "yaml"}
"""What ``pip install .[test]`` adds (``pyproject.toml``), by import name."""


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for top in TOP:
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that module ``name`` imports, anywhere in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        else:
            continue
        out.update(target for target in targets if target in known)
    out.discard(name)
    return out


def graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imports(name, path, known) for name, path in found.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_relative_and_function_level_imports() -> None:
    edges = graph()
    assert "service.store.keys" in edges["service.store.eventstore"]  # from . import keys
    assert "service.store" in edges["service.games"]  # from service.store import EventStore
    assert "service.store.archive" in edges["service.cli.replays"]  # inside a function


def within(name: str, *packages: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def libraries(path: Path) -> set[str]:
    """The top-level names of every absolute import in ``path``."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_no_import_circles() -> None:
    assert circles(graph()) == []


def test_every_module_is_read() -> None:
    found = modules()
    engines = [name for name in found if within(name, "service.engines")]
    assert len(engines) >= 25  # the shared modules and three game packages
    assert {"service.engines.azi.settle", "service.store.eventstore", "workers.jobs"} <= set(found)


def test_the_engines_import_only_the_engines() -> None:
    for name, targets in graph().items():
        if within(name, "service.engines"):
            outside = sorted(t for t in targets if not within(t, "service.engines"))
            assert outside == [], f"{name} imports {outside}"


def test_the_engines_import_no_io_framework_or_randomness() -> None:
    for name, path in modules().items():
        if within(name, "service.engines"):
            bad = sorted(libraries(path) & IMPURE)
            assert bad == [], f"{name} imports {bad}"


def test_a_forbidden_library_would_be_found(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text(
        "import redis\nfrom pydantic import BaseModel\nfrom . import cards\n"
        "def f() -> None:\n    import random\n"
    )
    assert libraries(sample) & IMPURE == {"redis", "pydantic", "random"}


def test_the_schemas_import_no_api_web_pages_or_workers() -> None:
    for name, targets in graph().items():
        if within(name, "schemas"):
            bad = sorted(t for t in targets if within(t, *SCHEMAS_MAY_NOT_IMPORT))
            assert bad == [], f"{name} imports {bad}"


def test_a_circle_would_be_found() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(edges) == [["a", "b", "c"]]


def test_the_store_imports_only_itself_schemas_and_the_engines() -> None:
    for name, targets in graph().items():
        if name == "service.store" or name.startswith("service.store."):
            above = sorted(
                t
                for t in targets
                if not any(t == p or t.startswith(p + ".") for p in STORE_MAY_IMPORT)
            )
            assert above == [], f"{name} imports {above}"


def test_the_helpers_beside_the_service_import_no_api_or_workers() -> None:
    helpers = (
        "service.fairness",
        "service.budgets",
        "service.seattokens",
        "service.retention",
        "service.answers",
    )
    for name, targets in graph().items():
        if within(name, *helpers):
            bad = sorted(t for t in targets if within(t, "service.api", "service.web", "workers"))
            assert bad == [], f"{name} imports {bad}"


def test_nothing_of_the_service_imports_the_devstack() -> None:
    for name, targets in graph().items():
        if not within(name, DEVSTACK):
            bad = sorted(t for t in targets if within(t, DEVSTACK))
            assert bad == [], f"{name} imports {bad}"


def module_level_libraries(path: Path) -> set[str]:
    """The top-level names of the absolute imports that run when ``path`` is
    imported: outside functions and ``if TYPE_CHECKING:``."""
    names: set[str] = set()
    pending: list[ast.stmt] = list(ast.parse(path.read_text(encoding="utf-8")).body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.If):
            if not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
                pending.extend(node.body)
            pending.extend(node.orelse)
        elif isinstance(node, ast.Try | ast.With | ast.ClassDef):
            pending.extend(node.body)
    return names


def test_the_devstack_imports_no_test_extra_when_imported() -> None:
    found = [name for name in modules() if within(name, DEVSTACK)]
    assert len(found) >= 5
    for name in found:
        bad = sorted(module_level_libraries(modules()[name]) & TEST_EXTRAS)
        assert bad == [], f"{name} imports {bad} at module level"


def test_a_module_level_test_extra_would_be_found(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text(
        "from typing import TYPE_CHECKING\nimport httpx\nif TYPE_CHECKING:\n    import pytest\n"
        "def f() -> None:\n    import yaml\n"
    )
    assert module_level_libraries(sample) & TEST_EXTRAS == {"httpx"}


# -- the closed store ------------------------------------------------------------
REDIS_LIBRARIES = {"redis", "fakeredis"}
REDIS_ALLOWED = {
    # wiring: these create the clients, or hand one to a library that needs it
    "service.runtime": "builds the store's and the queue's clients (and stores over them)",
    "service.localredis": "starts a private redis-server and connects to it",
    "service.aofcheck": "checks, at startup, that each client's Redis keeps an AOF",
    "workers.main": "hands the queue's connection to rq",
    "service.api.limits": "gives flask-limiter its storage",
    "service.api.errors": "maps the client's exception types to problems",
    # by design outside the store
    "service.api.floor": "the benchmark floor: one bare XADD of a key of its own, "
    "outside every game and never read by cardroom (the runtime's client)",
}
"""Modules outside ``service.store`` that may import a Redis client library or
read an attribute named ``redis`` (a client), and why."""


def redis_uses(path: Path) -> list[str]:
    """Where ``path`` imports a Redis client library or reads an attribute
    ``redis`` of anything (``store.redis``, ``runtime.redis``)."""
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = {node.module.split(".")[0]}
        elif isinstance(node, ast.Attribute) and node.attr == "redis":
            found.append(f"line {node.lineno}: .redis")
            continue
        else:
            continue
        found.extend(f"line {node.lineno}: import {n}" for n in sorted(names & REDIS_LIBRARIES))
    return found


def test_only_the_store_and_the_wiring_touch_a_redis_client() -> None:
    """Whoever owns a key owns its commands: outside ``service.store`` every
    command goes through a named store method."""
    found = modules()
    for name, path in found.items():
        # the local stack starts and administers redis-servers for the tests and the
        # benchmarks; the service never imports it (see above)
        if within(name, "service.store", "schemas", DEVSTACK) or name in REDIS_ALLOWED:
            continue
        assert redis_uses(path) == [], f"{name} uses a Redis client itself"
    assert set(REDIS_ALLOWED) <= set(found), "the allow-list names a module that is gone"


def test_a_raw_redis_use_would_be_found(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text(
        "import redis\nfrom fakeredis import FakeRedis\n"
        "def f(store: object) -> None:\n    store.redis.xadd('k', {})\n"
    )
    assert redis_uses(sample) == [
        "line 1: import redis",
        "line 2: import fakeredis",
        "line 4: .redis",
    ]


def test_the_snapshot_fields_are_the_same_in_the_append_and_the_save() -> None:
    """The append that projects itself and ``save_snapshot`` write one set of fields."""
    import re

    from service.store import lua, readmodel

    def written(script: str) -> set[str]:
        sets = re.findall(r"HSET', KEYS\[(?:snap|1)\], ([^)]*)\)", script)
        assert len(sets) == 1
        return set(re.findall(r"'(\w+)'", sets[0]))

    assert written(lua.APPEND) == written(lua.SAVE_SNAPSHOT) == set(readmodel.SNAPSHOT_FIELDS)


def test_the_processes_start_without_scipy() -> None:
    """The API, the CLI and the workers leave scipy (about a second of CPU to import)
    to the code that computes a test: the suite and a deploy start many processes."""
    import subprocess
    import sys

    probe = (
        "import sys, service.api, service.cli, workers.main;"
        "print(sorted(m for m in ('scipy', 'hypothesis', 'playwright') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]", out


def test_the_api_starts_without_what_only_some_requests_need() -> None:
    """The API and the stream server load the Markdown parser with the first rules page,
    the archive's filesystems with the first archive, and httpx (the webhooks' client) not
    at all: the workers send deliveries. About a tenth of a second of CPU a process."""
    import subprocess
    import sys

    probe = (
        "import sys, service.api, service.streams;"
        "print(sorted(m for m in ('httpx', 'markdown_it', 'fsspec') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]", out
