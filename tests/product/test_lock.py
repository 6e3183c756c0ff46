"""deploy/requirements.lock, what the image installs its dependencies from: every
runtime dependency of pyproject.toml (and of the ``s3`` extra the image carries)
is pinned there, at a version the project accepts, and every pin has its hashes.

That the lock is complete (nothing it pins needs a package it lacks) is proved
by test_production_install.py, which installs it with ``--require-hashes`` and
runs ``pip check``. How to refresh it: docs/operations.md, "The lock file".
"""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "deploy" / "requirements.lock"
IMAGE_EXTRAS = ("s3",)
"""The extras the image installs (the lock is made with them)."""
LINUX_PY311 = {"sys_platform": "linux", "platform_system": "Linux", "python_version": "3.11"}


def pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def runtime_requirements() -> list[Requirement]:
    project = pyproject()["project"]
    names = list(project["dependencies"])
    for extra in IMAGE_EXTRAS:
        names += project["optional-dependencies"][extra]
    return [Requirement(name) for name in names]


def pins(text: str) -> dict[str, tuple[Version, list[str]]]:
    """``{name: (version, hashes)}`` of a ``pip-compile``/``uv pip compile`` lock."""
    found: dict[str, tuple[Version, list[str]]] = {}
    current: str | None = None
    for line in text.replace("\\\n", " ").splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        words = line.split()
        name, sep, version = words[0].partition("==")
        assert sep and version, f"not an exact pin: {line}"
        current = canonicalize_name(name)
        hashes = [w.removeprefix("--hash=") for w in words[1:] if w.startswith("--hash=")]
        assert len(hashes) == len(words) - 1, f"something else than hashes: {line}"
        found[current] = (Version(version.rstrip(";").split(";")[0]), hashes)
    return found


LOCKED = pins(LOCK.read_text())


def test_the_lock_pins_every_runtime_dependency_at_an_accepted_version() -> None:
    missing, refused = [], []
    for req in runtime_requirements():
        name = canonicalize_name(req.name)
        if name not in LOCKED:
            missing.append(req.name)
        elif not req.specifier.contains(LOCKED[name][0], prereleases=True):
            refused.append(f"{req} (locked {LOCKED[name][0]})")
    assert missing == [] and refused == []


def test_the_lock_has_what_the_dependencies_extras_bring() -> None:
    """``redis[hiredis]``, ``fakeredis[lua]``, ``gunicorn[gevent]``: the packages
    each extra adds, as the installed release declares them, are locked too."""
    checked = 0
    for req in runtime_requirements():
        try:
            dist = distribution(req.name)
        except PackageNotFoundError:  # the s3 extra is not in the dev install
            continue
        for raw in dist.requires or []:
            extra_req = Requirement(raw)
            marker = extra_req.marker
            if marker is None or not any(
                marker.evaluate({**LINUX_PY311, "extra": extra}) for extra in req.extras
            ):
                continue
            if marker.evaluate({**LINUX_PY311, "extra": ""}):
                continue  # not an extra's own requirement
            assert canonicalize_name(extra_req.name) in LOCKED, f"{req}: {extra_req}"
            checked += 1
    assert checked >= 3


def test_every_pin_has_sha256_hashes() -> None:
    assert len(LOCKED) >= len(runtime_requirements())
    for name, (_, hashes) in LOCKED.items():
        assert hashes, f"{name} has no hash"
        for digest in hashes:
            assert re.fullmatch(r"sha256:[0-9a-f]{64}", digest), (name, digest)


def test_the_lock_says_how_it_is_refreshed() -> None:
    """Its header names `make lock`, and the Makefile's target writes this file
    from pyproject.toml with the image's extras, for the image's platform."""
    assert "#    make lock" in LOCK.read_text().splitlines()[:3]
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split("\nlock:", 1)[1].split("\n\n", 1)[0].replace("\\\n", " ")
    words = recipe.split()
    assert "pyproject.toml" in words and "--generate-hashes" in words
    assert words[words.index("-o") + 1] == "deploy/requirements.lock"
    assert [words[i + 1] for i, w in enumerate(words) if w == "--extra"] == list(IMAGE_EXTRAS)
    python = words[words.index("--python-version") + 1]
    assert words[words.index("--python-platform") + 1] == "linux"
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    images = re.findall(r"^FROM python:(\d+\.\d+)-slim", dockerfile, re.M)
    assert images and set(images) == {python}, images  # the image's Python is the lock's
