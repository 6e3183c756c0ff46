"""Clients generated from the live OpenAPI document, once per document.

``openapi-python-client`` (a dev dependency) writes a Python client and
``openapi-typescript`` (from the npm registry, through ``npx``) TypeScript
types, both with their default settings. What they write is kept in pytest's
cache under the document's hash, so a run after the first generates nothing
unless the document changed.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

NPX_TIMEOUT_S = 300
TYPESCRIPT = "typescript@5"
OPENAPI_TYPESCRIPT = "openapi-typescript@7"


def doc_hash(doc: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:16]


def _tool_env() -> dict[str, str]:
    """The generators' environment: this interpreter's scripts (ruff, which
    openapi-python-client runs on what it writes) first on PATH."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def python_client(cache: Path, doc: dict[str, Any]) -> ModuleType:
    """The generated package, imported as ``cardroom_generated_<hash>`` (its
    modules import one another relatively, so the name is free)."""
    name = f"cardroom_generated_{doc_hash(doc)}"
    root = cache / "python"
    package = root / name
    if not package.exists():
        cache.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix="python-work-", dir=cache))  # this process's own
        spec_path = work / "openapi.json"
        spec_path.write_text(json.dumps(doc))
        tool = Path(sys.executable).parent / "openapi-python-client"
        done = subprocess.run(
            [str(tool), "generate", "--path", str(spec_path)],
            cwd=work,
            env=_tool_env(),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        said = done.stdout + done.stderr
        assert "Warning" not in _without_stream_only(said), said
        root.mkdir(parents=True, exist_ok=True)
        try:  # one rename: another process that got there first keeps its copy
            os.rename(work / "cardroom-client" / "cardroom_client", package)
        except OSError:
            if not package.exists():
                raise
        shutil.rmtree(work, ignore_errors=True)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return importlib.import_module(name)


STREAM_ONLY = re.compile(
    r"WARNING parsing GET /players/me/events within players\.\s+Cannot parse response for "
    r"status code \S+ object at 0x[0-9a-f]+> \(Unsupported content_type "
    r"application/x-ndjson\), response will be omitted from generated client\s+\{.*?\n\}\n",
    re.S,
)
"""The one warning allowed: the player's stream answers NDJSON only, which the generator
does not read (its lines are still typed: ``PlayerStreamLine`` and its members are
generated as models, and the test parses real lines with them)."""


HEADER = (
    "Warning(s) encountered while generating. Client was generated, but some pieces may be missing"
)


def _without_stream_only(said: str) -> str:
    """What the generator said, less the allowed warning (and the header announcing it)."""
    rest, removed = STREAM_ONLY.subn("", said)
    return rest.replace(HEADER, "", removed and 1)


def _npx(cache: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = _tool_env()
    env["npm_config_cache"] = str(cache / "npm")  # the packages, kept between runs
    env["npm_config_update_notifier"] = "false"
    env["npm_config_prefer_offline"] = "true"  # what the cache holds needs no look-up
    return subprocess.run(
        ["npx", "--yes", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=NPX_TIMEOUT_S,
        check=False,
    )


def typescript_types(cache: Path, doc: dict[str, Any]) -> Path:
    """``openapi-typescript``'s ``.d.ts`` of the document; skips the test only
    when npx cannot reach the npm registry at all."""
    if shutil.which("npx") is None:
        pytest.skip("npx is not installed: the TypeScript half needs Node.js")
    out = cache / "ts" / f"{doc_hash(doc)}.d.ts"
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    spec_path = out.parent / "openapi.json"
    spec_path.write_text(json.dumps(doc))
    done = _npx(cache, OPENAPI_TYPESCRIPT, str(spec_path), "-o", str(out), cwd=out.parent)
    if done.returncode != 0 and _registry_unreachable(done.stderr):
        pytest.skip(f"the npm registry does not answer npx: {done.stderr.strip()[-200:]}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "⚠" not in done.stdout + done.stderr, done.stdout + done.stderr
    return out


def _registry_unreachable(stderr: str) -> bool:
    return any(
        word in stderr for word in ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ETIMEDOUT", "E403")
    )


def type_check(cache: Path, types: Path, program: str) -> subprocess.CompletedProcess[str]:
    """``tsc --strict --noEmit`` of ``program`` beside ``types`` (which it imports
    as ``./api``)."""
    work = cache / "ts" / "check"
    work.mkdir(parents=True, exist_ok=True)
    shutil.copy(types, work / "api.d.ts")
    (work / "check.ts").write_text(program)
    return _npx(
        cache,
        "-p",
        TYPESCRIPT,
        "tsc",
        "--strict",
        "--noEmit",
        "--target",
        "es2020",
        "--moduleResolution",
        "node",
        "check.ts",
        cwd=work,
    )
