"""The workers' share of a request, sent once its answer has gone out.

An append that needs a follow-up either puts its game on the drains' list
itself (in the append script) and may have taken a free drain slot, or asks
for the follow-up afterwards; either way something is left to send to the
queue: the drain job of the slot taken, or the follow-up request. That costs
round trips the client need not wait for: during a request they are
collected here and sent when the server closes the response. Outside a
request (workers, scripts) they are sent at once. If the process dies in
between, the workers' reconciliation finds the game.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import Any

from flask import Flask, Response, g, has_request_context

from service import requestid
from service.repository import Followup, StartDrain
from service.runtime import Runtime

log = logging.getLogger("cardroom.api")


Pending = list[tuple[Callable[..., None], tuple[Any, ...], str | None]]
"""What a request leaves to send, each with the request's id (for the jobs' meta)."""


def _later(send: Callable[..., None], *args: Any) -> None:
    if has_request_context():
        g.setdefault("followups", []).append((send, args, requestid.current()))
    else:
        send(*args)


def deferred(runtime: Runtime) -> tuple[Followup, StartDrain]:
    """``followup`` and ``start_drain`` for :class:`service.games.GameService` that
    wait for the answer to go out."""

    def followup(game_id: str, version: int) -> None:
        _later(runtime.enqueue_followup, game_id, version)

    def start_drain(slot: int, token: str) -> None:
        _later(runtime.enqueue_drain, slot, token)

    return followup, start_drain


def _send_all(pending: Pending) -> None:
    for send, args, rid in pending:
        try:
            with requestid.bound(rid):  # the response has gone: the id is no longer current
                send(*args)
        except Exception:
            log.exception("could not send %s(%s, ...) to the workers", send.__name__, args[0])


def init_followups(app: Flask, runtime: Runtime) -> None:
    @app.after_request
    def send_after_the_answer(response: Response) -> Response:
        pending = g.pop("followups", None)
        if pending:
            response.call_on_close(partial(_send_all, pending))
        return response
