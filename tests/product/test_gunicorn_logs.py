"""gunicorn's logs, as the deploy's own configuration files set them up, are
cardroom's JSON lines: the error log (with tracebacks) and, when turned on,
the access log with the request id the application answered with."""

from __future__ import annotations

import datetime
import json
import logging
import os
import runpy
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from gunicorn.config import Config
from gunicorn.glogging import Logger

ROOT = Path(__file__).resolve().parents[2]
CONFS = ("gunicorn.conf.py", "gunicorn-streams.conf.py")


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """gunicorn's set-up configures the process's logging: put it back after."""
    names = ("", "gunicorn.error", "gunicorn.access")
    saved = [(logging.getLogger(n), logging.getLogger(n).handlers[:]) for n in names]
    levels = [logging.getLogger(n).level for n in names]
    propagate = [logging.getLogger(n).propagate for n in names]
    yield
    for (logger, handlers), level, prop in zip(saved, levels, propagate, strict=True):
        logger.handlers[:] = handlers
        logger.setLevel(level)
        logger.propagate = prop


def gunicorn_logger(conf: str, monkeypatch: pytest.MonkeyPatch, access: bool) -> Logger:
    """gunicorn's own logger class, set up from ``deploy/<conf>`` as gunicorn does."""
    if access:
        monkeypatch.setenv("CARDROOM_GUNICORN_ACCESS_LOG", "1")
    # the API's file sets a default of its own here: keep it to this test
    monkeypatch.setenv("CARDROOM_STREAMS_MAX", os.environ.get("CARDROOM_STREAMS_MAX", "2000"))
    settings = runpy.run_path(str(ROOT / "deploy" / conf))
    cfg = Config()
    for name in ("logconfig_dict", "loglevel", "accesslog", "errorlog"):
        cfg.set(name, settings[name])
    return Logger(cfg)


def json_lines(err: str) -> list[dict[str, Any]]:
    lines = [line for line in err.splitlines() if line.strip()]
    for line in lines:
        assert line.startswith("{"), f"not a JSON line: {line!r}"
    return [json.loads(line) for line in lines]


def access(logger: Logger, request_id: str) -> None:
    """What gunicorn's worker calls once a response has gone out."""
    resp = SimpleNamespace(status="201 CREATED", sent=42, headers=[("X-Request-Id", request_id)])
    req = SimpleNamespace(headers=[("AUTHORIZATION", "Bearer hidden-token-value")])
    environ = {
        "REQUEST_METHOD": "POST",
        "RAW_URI": "/games/abc/moves",
        "PATH_INFO": "/games/abc/moves",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "10.1.2.3",
        "HTTP_USER_AGENT": "curl/8",
    }
    logger.access(resp, req, environ, datetime.timedelta(milliseconds=12))


@pytest.mark.parametrize("conf", CONFS)
def test_the_error_log_is_json_with_tracebacks(
    conf: str, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    logger = gunicorn_logger(conf, monkeypatch, access=False)
    capfd.readouterr()
    logger.info("Booting worker with pid: %s", 4242)
    try:
        raise OSError("worker failed to boot")
    except OSError:
        logger.exception("Exception in worker process")
    access(logger, "req-1")  # the access log is off by default: the app logs requests
    out = capfd.readouterr()
    lines = json_lines(out.err + out.out)
    assert [line["logger"] for line in lines] == ["gunicorn.error", "gunicorn.error"]
    assert lines[0]["msg"] == "Booting worker with pid: 4242" and lines[0]["level"] == "INFO"
    assert lines[1]["error"] == "OSError: worker failed to boot"
    assert lines[1]["traceback"].startswith("Traceback (most recent call last):")


@pytest.mark.parametrize("conf", CONFS)
def test_the_access_log_when_on_is_json_with_the_request_id(
    conf: str, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    logger = gunicorn_logger(conf, monkeypatch, access=True)
    capfd.readouterr()
    access(logger, "req-9")
    out = capfd.readouterr()
    text = out.err + out.out
    (line,) = json_lines(text)
    assert line["logger"] == "gunicorn.access" and line["msg"] == "access"
    assert line["request_id"] == "req-9"
    assert line["method"] == "POST" and line["path"] == "/games/abc/moves"
    assert line["status"] == "201" and line["duration_ms"] == 12 and line["bytes"] == 42
    assert line["remote"] == "10.1.2.3" and line["user_agent"] == "curl/8"
    assert "hidden-token-value" not in text
