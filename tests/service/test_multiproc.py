"""The gunicorn hooks of Prometheus multiprocess mode (service/multiproc.py)."""

from __future__ import annotations

import os
import runpy
from pathlib import Path

import pytest

from service import multiproc


def test_a_private_directory_is_made_and_removed(monkeypatch: pytest.MonkeyPatch) -> None:
    # on_starting sets the variable: in a copy, so that it leaves this process's alone
    monkeypatch.setattr(os, "environ", {k: v for k, v in os.environ.items() if k != multiproc.ENV})
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


@pytest.mark.parametrize("conf", ["gunicorn.conf.py", "gunicorn-streams.conf.py"])
def test_both_gunicorn_configs_run_the_hooks(conf: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The API's and the stream server's gunicorn both run multiprocess mode; loading
    a config sets nothing up by itself (gunicorn calls ``on_starting``)."""
    monkeypatch.delenv(multiproc.ENV, raising=False)
    monkeypatch.setattr(os, "environ", dict(os.environ))  # the configs set defaults in it
    root = Path(__file__).resolve().parents[2]
    settings = runpy.run_path(str(root / "deploy" / conf))
    assert settings["on_starting"] is multiproc.on_starting
    assert settings["child_exit"] is multiproc.child_exit
    assert settings["on_exit"] is multiproc.on_exit
    assert multiproc.ENV not in os.environ
