"""The image's Dockerfile read as the tests need it: its stages, what each copies
from the build context, and the wheel its build stage makes, built once per
test process from exactly those files (:func:`build_wheel`; about 20 s, most of
it pip making setuptools' isolated build environment, as the image's build does)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[2]
DOCKERFILE: Final = ROOT / "deploy" / "Dockerfile"
BUILD_TIMEOUT_S: Final = 300


def dockerfile_stages() -> list[list[list[str]]]:
    """The Dockerfile's instructions (each split into words), stage by stage."""
    stages: list[list[list[str]]] = []
    logical = DOCKERFILE.read_text().replace("\\\n", " ")
    for line in logical.splitlines():
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "FROM":
            stages.append([])
        stages[-1].append(words)
    return stages


def copies(stage: list[list[str]]) -> list[tuple[list[str], str]]:
    """The stage's ``COPY`` instructions from the build context: (sources, destination)."""
    return [
        (words[1:-1], words[-1])
        for words in stage
        if words[0] == "COPY" and not any(w.startswith("--from") for w in words)
    ]


def copy_into(root: Path, workdir: str, sources: list[str], dest: str) -> None:
    """Do what ``COPY sources dest`` does, with the repository as the build
    context and ``root`` as the image's ``/``."""
    target = root / Path(workdir, dest).relative_to("/")
    for source in sources:
        path = ROOT / source
        to = target / path.name if dest.endswith("/") else target
        if path.is_dir():
            shutil.copytree(path, to, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            to.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, to)


def stage_files(root: Path, stage: list[list[str]]) -> str:
    """Copy what ``stage`` copies from the build context under ``root``; its WORKDIR."""
    workdir = "/"
    for words in stage:
        if words[0] == "WORKDIR":
            workdir = words[1]
    for sources, dest in copies(stage):
        copy_into(root, workdir, sources, dest)
    return workdir


def build_wheel(base: Path) -> tuple[Path, Path]:
    """Build the package's wheel under ``base`` from the files the build stage copies;
    returns the wheel and the build stage's working directory (its copied files)."""
    workdir = stage_files(base / "context", dockerfile_stages()[0])
    source = base / "context" / Path(workdir).relative_to("/")
    out = base / "dist"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (wheel,) = out.glob("cardroom-*.whl")
    return wheel, source
