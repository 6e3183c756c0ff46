"""cardroom's RQ worker: RQ's :class:`~rq.SimpleWorker` (jobs run in this process,
its caches warm) that

- runs each job with the request id of the request that caused it
  (:mod:`service.requestid`, from the job's meta), so the job's log lines,
  RQ's included, carry it;
- keeps its own record of a SIGTERM or SIGINT (:attr:`CardroomWorker.signalled`),
  through RQ's public ``request_stop`` hook, so that the loop of
  :func:`workers.main.run_worker` knows a stop from a lost connection.
"""

from __future__ import annotations

from typing import Any

from rq import SimpleWorker

from service import requestid


class CardroomWorker(SimpleWorker):
    signalled: bool = False
    """Whether SIGTERM or SIGINT asked this worker to stop."""

    def request_stop(self, signum: Any, frame: Any) -> None:
        self.signalled = True
        super().request_stop(signum, frame)  # type: ignore[no-untyped-call]

    def execute_job(self, job: Any, queue: Any) -> Any:
        meta = getattr(job, "meta", None) or {}
        rid = meta.get("request_id")
        with requestid.bound(rid if isinstance(rid, str) else None):
            return super().execute_job(job, queue)
