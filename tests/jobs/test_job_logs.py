"""RQ's log lines are cardroom's JSON lines, and those of a job carry the id of
the request that enqueued it (docs/operations.md, "Logs")."""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis

from service.api import create_app
from service.config import load_settings
from service.runtime import Runtime
from tests.conftest import REAL_REDIS_URL
from workers.context import install
from workers.rqworker import CardroomWorker

pytestmark = [pytest.mark.redis]


def test_a_jobs_rq_lines_are_json_with_its_request_id(
    real_redis: redis.Redis, capfd: pytest.CaptureFixture[str]
) -> None:
    settings = load_settings(redis_url=REAL_REDIS_URL, rate_limit="100000/second", bot_delay_s=0)
    runtime = Runtime.from_settings(settings)
    client = create_app(
        settings, runtime, {"TESTING": True, "RATELIMIT_ENABLED": False}
    ).test_client()
    sent = ["open-1", *(f"seat-{i}" for i in range(4))]
    r = client.post("/games", json={"game": "murlan"}, headers={"X-Request-Id": sent[0]})
    game_id = r.get_json()["game_id"]
    r.close()  # the answer has gone out: its follow-ups are sent
    for i in range(4):
        r = client.post(
            f"/games/{game_id}/seats", json={"name": f"p{i}"}, headers={"X-Request-Id": sent[i + 1]}
        )
        assert r.status_code == 201
        r.close()
    jobs = runtime.queue.get_jobs()
    assert jobs and all(job.meta.get("request_id") in sent for job in jobs)
    install(runtime)
    capfd.readouterr()
    worker = CardroomWorker([runtime.queue], connection=runtime.queue_redis)
    assert worker.work(burst=True, logging_level="INFO")
    err = capfd.readouterr()
    lines: list[dict[str, Any]] = []
    for text in (err.out + err.err).splitlines():
        assert text.startswith("{"), f"not a JSON line: {text!r}"
        lines.append(json.loads(text))
    rq_lines = [line for line in lines if line["logger"].startswith("rq.")]
    assert rq_lines, lines
    for job in jobs:
        of_job = [line for line in rq_lines if job.id in line["msg"]]
        assert of_job, f"no RQ line names job {job.id}: {rq_lines}"
        # from the job's start on, RQ's lines are the job's: they carry its request id
        assert of_job[-1]["request_id"] == job.meta["request_id"]
