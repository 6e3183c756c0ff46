"""The gunicorn hooks of Prometheus multiprocess mode (service/multiproc.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from service import multiproc


def test_a_private_directory_is_made_and_removed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(multiproc.ENV, raising=False)
    multiproc.on_starting(server=None)
    path = Path(os.environ[multiproc.ENV])
    assert path.is_dir() and not list(path.iterdir())
    assert path.name.startswith("cardroom-metrics-")
    (path / "counter_1.db").write_bytes(b"")
    multiproc.on_exit(server=None)
    assert not path.exists()


def test_a_named_directory_loses_only_the_last_runs_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(multiproc.ENV, str(tmp_path))
    (tmp_path / "counter_123.db").write_bytes(b"x")
    (tmp_path / "gauge_livesum_123.db").write_bytes(b"x")
    (tmp_path / "README").write_text("kept")
    multiproc.on_starting(server=None)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README"]
    multiproc.on_exit(server=None)
    assert tmp_path.is_dir()  # not ours to remove
