"""The JSON log line: its fields, its traceback, and the secret filter, which
redacts by field name and by the shape of a value and drops nothing."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from service import requestid
from service.engines.shuffle import commitment, new_server_seed
from service.logs import JsonFormatter, RequestIdFilter
from service.redact import REDACTED
from service.seattokens import derive_token


@pytest.fixture
def logged() -> Iterator[tuple[logging.Logger, io.StringIO]]:
    """A logger writing through cardroom's formatter and filter into a buffer."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RequestIdFilter())
    logger = logging.getLogger("cardroom.test-logs")
    logger.handlers[:] = [handler]
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    yield logger, out
    logger.handlers[:] = []


def last_line(out: io.StringIO) -> dict[str, Any]:
    lines = out.getvalue().splitlines()
    assert lines and all(line.startswith("{") for line in lines)
    line: dict[str, Any] = json.loads(lines[-1])
    return line


def test_a_line_has_its_fields_and_the_current_request_id(
    logged: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, out = logged
    with requestid.bound("req-42"):
        logger.info("moved %s", "on", extra={"game_id": "g1", "version": 7})
    line = last_line(out)
    assert line["level"] == "INFO" and line["logger"] == "cardroom.test-logs"
    assert line["msg"] == "moved on" and line["request_id"] == "req-42"
    assert line["game_id"] == "g1" and line["version"] == 7
    assert line["ts"].endswith("Z")
    logger.info("outside a request")
    assert "request_id" not in last_line(out)


def test_an_exception_keeps_its_whole_traceback(
    logged: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, out = logged

    def deep() -> None:
        raise KeyError("missing")

    try:
        deep()
    except KeyError:
        logger.exception("failed")
    line = last_line(out)
    assert line["error"] == "KeyError: 'missing'"
    assert "Traceback (most recent call last)" in line["traceback"]
    assert "in deep" in line["traceback"] and 'raise KeyError("missing")' in line["traceback"]
    assert len(out.getvalue().splitlines()) == 1  # one line, however long the stack


def test_secrets_are_redacted_by_field_name_and_nothing_is_dropped(
    logged: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, out = logged
    fields = {
        "token": "anything at all",
        "seat_token": "x",
        "server_seed": "y",
        "hand": ["whatever"],
        "authorization": "z",
        "redis_password": "p",
        # harmless fields that merely contain such letters are kept as they are
        "handler": "meta.readyz",
        "game_id": "Ab3_x-9QzLm0pR2s",
        "version": 12,
        "seat": 2,
        "commitments_checked": 3,
    }
    logger.warning("with fields", extra=fields)
    line = last_line(out)
    assert set(fields) <= set(line)  # nothing dropped
    for name in ("token", "seat_token", "server_seed", "hand", "authorization", "redis_password"):
        assert line[name] == REDACTED, name
    for name in ("handler", "game_id", "version", "seat", "commitments_checked"):
        assert line[name] == fields[name], name


def test_secrets_are_redacted_by_their_shape_wherever_they_are(
    logged: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, out = logged
    token = derive_token(b"\x01" * 32, "g1", 0, "key-1")
    seed = new_server_seed().hex()
    logger.error(
        "seat %s opened with seed %s",
        token,
        seed,
        extra={
            "note": f"Authorization: Bearer {token}",
            "detail": {"nested": [f"commitment {commitment(bytes.fromhex(seed))}"]},
            "cards": ["TD", "AS", "BJ", "10h"],
            "played": "TD",
            "reason": "RuntimeError: boom",
        },
    )
    text = out.getvalue()
    assert token not in text and seed not in text
    line = last_line(out)
    assert line["msg"] == f"seat {REDACTED} opened with seed {REDACTED}"
    assert line["note"] == f"Authorization: Bearer {REDACTED}"
    assert line["detail"] == {"nested": [f"commitment {REDACTED}"]}
    assert line["cards"] == REDACTED  # a hand
    assert line["played"] == "TD" and line["reason"] == "RuntimeError: boom"


def test_a_secret_in_an_exceptions_message_is_redacted_in_its_traceback(
    logged: tuple[logging.Logger, io.StringIO],
) -> None:
    logger, out = logged
    hand = ["QS", "KH", "2C"]
    try:
        raise ValueError(f"bad hand {hand!r}")
    except ValueError:
        logger.exception("failed")
    line = last_line(out)
    assert "QS" not in out.getvalue()
    assert line["error"] == f"ValueError: bad hand {REDACTED}"
    assert line["traceback"].rstrip().endswith(f"ValueError: bad hand {REDACTED}")
