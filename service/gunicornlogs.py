"""gunicorn's logs in cardroom's JSON lines: the ``logconfig_dict`` of
``deploy/gunicorn.conf.py`` and ``deploy/gunicorn-streams.conf.py``.

gunicorn's error log (``gunicorn.error``: start-up, workers booting and
exiting, a worker's timeout with its traceback) and every other library
logging through the root logger write :class:`service.logs.JsonFormatter`
lines to stderr. Its access log (``gunicorn.access``) is off unless
``CARDROOM_GUNICORN_ACCESS_LOG=1``: the application writes one line per request
itself (:mod:`service.observe`). When on, each line has the method, path,
status, duration, response size, client address and the request id the
application answered with.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Final

ACCESS_FIELDS: Final = {
    "method": "m",
    "path": "U",
    "status": "s",
    "duration_ms": "M",
    "bytes": "B",
    "remote": "h",
    "user_agent": "a",
    "request_id": "{x-request-id}o",
}
"""The access line's fields and the gunicorn atoms they come from."""


class AccessFields(logging.Filter):
    """Turns gunicorn's access record (its message is the access log format,
    its argument the atoms) into a ``msg: "access"`` line with fields."""

    def filter(self, record: logging.LogRecord) -> bool:
        atoms = record.args
        if isinstance(atoms, Mapping):
            for field, atom in ACCESS_FIELDS.items():
                value = atoms.get(atom)
                if value not in (None, "-"):
                    setattr(record, field, value)
            record.msg, record.args = "access", ()
        return True


def logconfig_dict(level: str = "info", access_log: bool = False) -> dict[str, Any]:
    """The :func:`logging.config.dictConfig` of a gunicorn process: JSON lines on
    stderr for the root logger, ``gunicorn.error`` at ``level`` and
    ``gunicorn.access`` (at ``INFO`` when ``access_log``, else silenced)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": "service.logs.JsonFormatter"}},
        "filters": {
            "request_id": {"()": "service.logs.RequestIdFilter"},
            "access": {"()": "service.gunicornlogs.AccessFields"},
        },
        "handlers": {
            "json": {
                "class": "service.logs.StderrHandler",
                "formatter": "json",
                "filters": ["request_id"],
            },
            "access": {
                "class": "service.logs.StderrHandler",
                "formatter": "json",
                "filters": ["access"],
            },
        },
        "root": {"level": level.upper(), "handlers": ["json"]},
        "loggers": {
            "gunicorn.error": {"level": level.upper(), "handlers": ["json"], "propagate": False},
            "gunicorn.access": {
                "level": "INFO" if access_log else "WARNING",
                "handlers": ["access"],
                "propagate": False,
            },
        },
    }
