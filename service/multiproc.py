"""Prometheus multiprocess mode for gunicorn: the hooks of ``deploy/gunicorn*.conf.py``.

gunicorn runs several processes behind one port, and a scrape reaches one of
them. In prometheus-client's multiprocess mode every process writes its
samples to files in ``PROMETHEUS_MULTIPROC_DIR`` and the process answering
``/metrics`` adds them all up (:mod:`service.scrape`).

- :func:`on_starting` (the master, before any worker): the directory is made
  fresh, a private one unless ``PROMETHEUS_MULTIPROC_DIR`` names one (then its
  ``*.db`` files from an earlier run are removed). Set in the master's
  environment, it reaches every worker forked after it.
- :func:`child_exit`: a worker that exited is marked dead
  (``mark_process_dead``), so its ``live*`` gauges stop counting; its
  counters stay in the totals, as Prometheus expects of a counter.
- :func:`on_exit`: the private directory goes with the master.

Nothing here imports prometheus-client before the variable is set: the
library chooses its file-backed values when first imported, and gunicorn's
workers inherit what the master imported.
"""

from __future__ import annotations

import glob
import os
import shutil
import tempfile
from typing import Any, Final

ENV: Final = "PROMETHEUS_MULTIPROC_DIR"
SHM: Final = "/dev/shm"
_made: list[str] = []
"""The private directory :func:`on_starting` made in this process, if any."""


def prepare() -> str:
    """Make ``PROMETHEUS_MULTIPROC_DIR`` a fresh directory (see the module); its path."""
    path = os.environ.get(ENV)
    if path:
        os.makedirs(path, exist_ok=True)
        for stale in glob.glob(os.path.join(path, "*.db")):
            os.remove(stale)
        return path
    memory = SHM if os.path.isdir(SHM) and os.access(SHM, os.W_OK) else None
    path = tempfile.mkdtemp(prefix="cardroom-metrics-", dir=memory)
    _made.append(path)
    os.environ[ENV] = path
    return path


def on_starting(server: Any) -> None:
    prepare()


def child_exit(server: Any, worker: Any) -> None:
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


def on_exit(server: Any) -> None:
    while _made:
        shutil.rmtree(_made.pop(), ignore_errors=True)
