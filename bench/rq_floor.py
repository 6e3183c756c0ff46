"""The floor of a worker's share: RQ's own CPU per job, for jobs that do nothing.

``python -m bench.rq_floor [--jobs 2000]`` (also ``python -m bench.throughput
--rq-floor N``): ``N`` jobs enqueued with cardroom's job options on a
``redis-server`` with the deploy's config, then run by one ``SimpleWorker``
in this process, in burst mode; the CPU of this process per job, for each
side, after a first pass that warms up.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import redis

from service.devstack import RedisServer


def nothing(game_id: str) -> None:
    """The job :func:`rq_floor` enqueues: RQ's own work, and nothing else."""


def rq_floor(jobs: int) -> None:
    """RQ's own CPU per job on this bench's Redis: ``jobs`` jobs that do nothing,
    enqueued with cardroom's job options, then run by one ``SimpleWorker`` in
    burst mode; CPU of this process on its clock, per job, for each side."""
    import rq
    from rq import Queue, SimpleWorker

    from service.config import load_settings
    from service.runtime import Runtime

    directory = Path(tempfile.mkdtemp(prefix="cardroom-rq-floor-"))
    server = RedisServer(directory, deploy=True)
    server.start()
    try:
        runtime = Runtime.from_settings(load_settings(redis_url=server.url, log_level="WARNING"))
        queue = Queue("rq-floor", connection=runtime.queue_redis)
        for _ in range(2):  # the first pass warms up; the second is printed
            cpu = time.process_time()
            for i in range(jobs):
                queue.enqueue("bench.rq_floor.nothing", f"g{i}", **runtime.job_options(f"g{i}", i))
            enqueued = (time.process_time() - cpu) / jobs * 1000
            worker = SimpleWorker([queue], connection=runtime.queue_redis)
            cpu = time.process_time()
            worker.work(burst=True, logging_level="WARNING")
            ran = (time.process_time() - cpu) / jobs * 1000
        print(
            f"RQ {rq.__version__}, redis-py {redis.__version__}: {jobs} jobs that do nothing; "
            f"CPU per job: enqueue {enqueued:.2f} ms, worker {ran:.2f} ms"
        )
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=2000, help="jobs that do nothing")
    rq_floor(parser.parse_args().jobs)


if __name__ == "__main__":
    main()
