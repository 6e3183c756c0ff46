"""Packaging beyond what pyproject.toml can say: the pages render documents of
``docs/`` (each game's rules for players and its reference text, their
translations, the fairness document), so a wheel carries a copy of them in ``service/web/docs`` (see
``service/web/markdown.py``, which reads that copy when it is there and the
source tree's ``docs/`` otherwise)."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
DOCS = ("fairness.md", "rules/*.md", "rules/*/*.md", "play/*.md", "play/*/*.md")


class BuildWithDocs(build_py):  # type: ignore[misc]
    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads the source tree's docs/
            return
        target = Path(self.build_lib) / "service" / "web" / "docs"
        for pattern in DOCS:
            for source in sorted((HERE / "docs").glob(pattern)):
                dest = target / source.relative_to(HERE / "docs")
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, dest)


setup(cmdclass={"build_py": BuildWithDocs})
