"""cardroom's RQ worker: RQ's :class:`~rq.SimpleWorker` (jobs run in this process,
its caches warm) that

- runs each job with the request id of the request that caused it
  (:mod:`service.requestid`, from the job's meta), so the job's log lines,
  RQ's included, carry it;
- keeps its own record of a SIGTERM or SIGINT (:attr:`CardroomWorker.signalled`),
  through RQ's public ``request_stop`` hook, so that the loop of
  :func:`workers.main.run_worker` knows a stop from a lost connection;
- listens for RQ's worker commands (shutdown, kill-horse) on a thread that
  looks at its stop flag every :data:`COMMANDS_POLL_S`, not every minute as
  RQ's does. RQ stops that thread as it ends its work by unsubscribing, then
  joining it; when the unsubscribe's reply reaches the thread before the stop
  flag is set (often, on a busy machine), the thread waits out its whole poll
  for a subscription that will not come, and redis-py's ``stop`` joins it
  without a timeout: the worker's end took up to a minute.
"""

from __future__ import annotations

from typing import Any, Final

from rq import SimpleWorker

from service import requestid

COMMANDS_POLL_S: Final = 0.5
"""How long the commands thread waits for a message before it looks at its stop
flag: the longest the end of a worker's work waits for that thread."""


class CardroomWorker(SimpleWorker):
    signalled: bool = False
    """Whether SIGTERM or SIGINT asked this worker to stop."""

    def subscribe(self) -> None:
        """RQ's subscription to this worker's commands channel, on a thread
        that polls every :data:`COMMANDS_POLL_S`."""
        self.pubsub = self.connection.pubsub()
        self.pubsub.subscribe(**{self.pubsub_channel_name: self.handle_payload})
        # RQ declares the attribute by its first value, None
        self.pubsub_thread = self.pubsub.run_in_thread(  # type: ignore[assignment]
            sleep_time=COMMANDS_POLL_S,
            daemon=True,
            exception_handler=self._pubsub_exception_handler,
        )

    def request_stop(self, signum: Any, frame: Any) -> None:
        self.signalled = True
        super().request_stop(signum, frame)  # type: ignore[no-untyped-call]

    def execute_job(self, job: Any, queue: Any) -> Any:
        meta = getattr(job, "meta", None) or {}
        rid = meta.get("request_id")
        with requestid.bound(rid if isinstance(rid, str) else None):
            return super().execute_job(job, queue)
