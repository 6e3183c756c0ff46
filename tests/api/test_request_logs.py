"""A request's id and its log lines: a 500 keeps its traceback, every line of a
request and its problem document carry the request id, and so do the jobs it
enqueues (docs/operations.md, "Logs"; docs/api.md, "Errors")."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from service.games import GameService
from service.seattokens import derive_token

from .helpers import Api


def json_lines(err: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in err.splitlines() if line.startswith("{")]


def test_a_500_logs_its_traceback_and_request_id_in_one_json_line(
    api: Api,
    service: GameService,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    def broken_load(game_id: str) -> None:
        raise RuntimeError("the projection fell over")

    monkeypatch.setattr(service, "load", broken_load)
    capfd.readouterr()
    r = api.client.get("/games/abc/events", headers={"X-Request-Id": "trace-7f3a.01"})
    assert r.status_code == 500 and r.mimetype == "application/problem+json"
    assert r.headers["X-Request-Id"] == "trace-7f3a.01"
    assert r.get_json()["request_id"] == "trace-7f3a.01"
    assert "Traceback" not in r.get_data(as_text=True)
    err = capfd.readouterr().err
    errors = [line for line in json_lines(err) if line["level"] == "ERROR"]
    assert len(errors) == 1, err
    line = errors[0]
    assert line["request_id"] == "trace-7f3a.01"
    assert line["error"] == "RuntimeError: the projection fell over"
    assert line["traceback"].startswith("Traceback (most recent call last):")
    assert "in broken_load" in line["traceback"]
    assert line["traceback"].rstrip().endswith("RuntimeError: the projection fell over")
    # the request's own line has the same id
    requests = [x for x in json_lines(err) if x["msg"] == "request"]
    assert [x["request_id"] for x in requests] == ["trace-7f3a.01"]


@pytest.mark.parametrize(
    "sent",
    [
        None,
        "",
        "x" * 65,  # longer than 64
        "has space",
        'quote"d',
        "ünïcode",
        derive_token(b"k" * 32, "g", 0, "key"),  # shaped like a seat token
        "ab" * 32,  # shaped like a server seed
    ],
)
def test_a_missing_or_unfit_request_id_is_replaced_by_a_fresh_one(
    api: Api, sent: str | None
) -> None:
    headers = {} if sent is None else {"X-Request-Id": sent}
    r = api.client.get("/nowhere", headers=headers)
    rid = r.headers["X-Request-Id"]
    assert rid != sent and re.fullmatch(r"[0-9a-f]{32}", rid)
    assert r.get_json()["request_id"] == rid
    assert api.client.get("/nowhere").headers["X-Request-Id"] != rid  # one per request


def test_a_well_formed_request_id_is_kept_on_success_too(api: Api) -> None:
    rid = "0af7651916cd43dd8448eb211c80319c:b7ad6b7169203331"
    r = api.client.get("/games", headers={"X-Request-Id": rid})
    assert r.status_code == 200 and r.headers["X-Request-Id"] == rid


def test_the_jobs_a_request_enqueues_carry_its_id(api: Api, service: GameService) -> None:
    sent = ["open", *(f"seat-{i}" for i in range(4))]
    r = api.client.post("/games", json={"game": "murlan"}, headers={"X-Request-Id": sent[0]})
    assert r.status_code == 201
    game_id = r.get_json()["game_id"]
    r.close()  # the answer has gone out: its follow-ups are sent
    for i in range(4):  # the last seat deals: a follow-up for the workers
        r = api.client.post(
            f"/games/{game_id}/seats", json={"name": f"p{i}"}, headers={"X-Request-Id": sent[i + 1]}
        )
        assert r.status_code == 201
        r.close()
    jobs = service.runtime.queue.get_jobs()
    assert jobs, "no job was enqueued"
    assert {job.meta.get("request_id") for job in jobs} <= set(sent)
