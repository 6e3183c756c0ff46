"""One JSON object per log line, for cardroom's loggers, RQ's and gunicorn's.

A line has ``ts``, ``level``, ``logger`` and ``msg``, the structured fields
passed as ``extra``, the ``request_id`` of the request or job in hand
(:mod:`service.requestid`), and for an exception its ``error`` (type and
message) and its whole ``traceback``. python-json-logger writes it; secrets
are replaced by ``[redacted]`` first (:mod:`service.redact`): callers pass ids,
versions and outcomes, and what slips through by name or by shape is masked.
"""

from __future__ import annotations

import logging
import logging.config
import sys
import time
from typing import Any, Final

from pythonjsonlogger.json import JsonFormatter as _LibraryJsonFormatter

from . import requestid
from .redact import redact_fields

FIELDS: Final = "%(levelname)s %(name)s %(message)s"
RENAMED: Final = {"levelname": "level", "name": "logger", "message": "msg", "exc_info": "traceback"}
KEPT: Final = frozenset({"level", "logger", "msg", "ts", "request_id"})
"""Fields of every line, checked by value only (a logger's name is no secret)."""
LOGGERS: Final = ("cardroom", "rq")
"""The loggers :func:`setup_logging` gives the JSON handler (RQ's are ``rq.worker``,
``rq.job``...); gunicorn's get it from its ``logconfig_dict``
(:mod:`service.gunicornlogs`)."""


class JsonFormatter(_LibraryJsonFormatter):
    """python-json-logger's formatter with cardroom's field names, a UTC time
    stamp in milliseconds, the exception's one-line ``error``, and redaction."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("fmt", FIELDS)
        kwargs.setdefault("rename_fields", RENAMED)
        kwargs.setdefault("json_ensure_ascii", False)
        super().__init__(*args, **kwargs)

    def add_fields(
        self, log_data: dict[str, Any], record: logging.LogRecord, message_dict: dict[str, Any]
    ) -> None:
        log_data["ts"] = (
            time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z"
        )
        super().add_fields(log_data, record, message_dict)
        if record.exc_info and record.exc_info[0] is not None:
            log_data["error"] = f"{record.exc_info[0].__name__}: {record.exc_info[1]}"

    def process_log_record(self, log_data: dict[str, Any]) -> dict[str, Any]:
        return redact_fields(log_data, keep=KEPT)


class RequestIdFilter(logging.Filter):
    """Puts the current request id (:func:`service.requestid.current`) on every
    record that has none of its own."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "request_id", None) is None:
            current = requestid.current()
            if current is not None:
                record.request_id = current
        return True


class StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is at the time of the record."""

    @property  # type: ignore[override]
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass


def json_handler() -> logging.Handler:
    """A handler writing JSON lines to stderr, with the request id filter."""
    handler = StderrHandler()
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RequestIdFilter())
    return handler


def setup_logging(level: str = "INFO") -> None:
    """cardroom's and RQ's loggers write JSON lines to stderr at ``level``
    (RQ then adds no handler of its own)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers[:] = [json_handler()]
        logger.setLevel(level)
        logger.propagate = False
