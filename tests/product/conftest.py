"""What the product tests share: the image's wheel, built once per test process."""

from __future__ import annotations

from pathlib import Path

import pytest
from image import build_wheel


@pytest.fixture(scope="session")
def image_wheel(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The wheel the image's build stage makes, and that stage's copied files. The
    tests that use it share an ``xdist_group`` so that one process builds it."""
    return build_wheel(tmp_path_factory.mktemp("image-wheel"))
