"""The wheel carries what must travel with the code: the project's licence,
the licences of the code it bundles for the pages, ``py.typed`` for its
packages, every static file of the pages, its metadata (classifiers, URLs)
and both ways to run the command (``cardroom``, ``python -m service``).

It is built as the image builds it, from the files the image's build stage
copies (``deploy/Dockerfile``), once for the product tests (``conftest.py``).
"""

from __future__ import annotations

import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("image-wheel")]

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("service", "workers", "schemas")


@pytest.fixture(scope="module")
def wheel(image_wheel: tuple[Path, Path]) -> zipfile.ZipFile:
    return zipfile.ZipFile(image_wheel[0])


def dist_info(wheel: zipfile.ZipFile, name: str) -> str:
    (member,) = (n for n in wheel.namelist() if n.endswith(f".dist-info/{name}"))
    return wheel.read(member).decode()


def test_the_licences_travel_with_the_code(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    licence = dist_info(wheel, "licenses/LICENSE")
    assert licence == (ROOT / "LICENSE").read_text()
    assert licence.startswith("MIT License") and "cardroom authors" in licence
    vendored = (ROOT / "service/web/static/vendor/LICENSES.txt").read_text()
    # beside the bundled code it covers, and among the distribution's licences
    assert wheel.read("service/web/static/vendor/LICENSES.txt").decode() == vendored
    assert dist_info(wheel, "licenses/service/web/static/vendor/LICENSES.txt") == vendored
    assert "service/web/static/vendor/intl-messageformat.js" in names
    assert "service/web/static/vendor/axe.min.js" in names
    metadata = Parser().parsestr(dist_info(wheel, "METADATA"))
    assert metadata["License-Expression"] == "MIT"
    assert set(metadata.get_all("License-File") or []) == {
        "LICENSE",
        "service/web/static/vendor/LICENSES.txt",
    }


def test_every_package_is_marked_typed(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    assert {f"{package}/py.typed" for package in PACKAGES} <= names
    classifiers = Parser().parsestr(dist_info(wheel, "METADATA")).get_all("Classifier") or []
    assert "Typing :: Typed" in classifiers


def test_every_static_file_of_the_pages_is_in_the_wheel(wheel: zipfile.ZipFile) -> None:
    static = ROOT / "service" / "web" / "static"
    files = {p.relative_to(ROOT).as_posix() for p in static.rglob("*") if p.is_file()}
    assert len(files) > 50
    assert sorted(files - set(wheel.namelist())) == []


def test_the_metadata_says_what_the_package_is(wheel: zipfile.ZipFile) -> None:
    metadata = Parser().parsestr(dist_info(wheel, "METADATA"))
    classifiers = metadata.get_all("Classifier") or []
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert any(c.startswith("Development Status ::") for c in classifiers)
    assert any(c.startswith("Topic ::") for c in classifiers)
    urls = dict(u.split(", ", 1) for u in metadata.get_all("Project-URL") or [])
    assert urls.get("Homepage", "").startswith("https://")
    assert 'extra == "s3"' in " ".join(metadata.get_all("Requires-Dist") or [])


def test_the_command_has_both_entries(wheel: zipfile.ZipFile) -> None:
    entry_points = dist_info(wheel, "entry_points.txt")
    assert "cardroom = service.cli:main" in entry_points
    assert "service/__main__.py" in wheel.namelist()
    assert "service/cli/__init__.py" in wheel.namelist()
