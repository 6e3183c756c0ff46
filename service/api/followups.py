"""Follow-up jobs of a request, enqueued once its answer has gone out.

Every append is followed by a job for the workers. Enqueueing it costs a
couple of Redis round trips that the client need not wait for: during a
request they are collected here and sent when the server closes the
response. Outside a request (workers, scripts) they are enqueued at once.
If the process dies in between, the workers' reconciliation finds the game.
"""

from __future__ import annotations

import logging
from functools import partial

from flask import Flask, Response, g, has_request_context

from service.games import Followup
from service.runtime import Runtime

log = logging.getLogger("cardroom.api")


def deferred(runtime: Runtime) -> Followup:
    def followup(game_id: str, version: int) -> None:
        if has_request_context():
            g.setdefault("followups", []).append((game_id, version))
        else:
            runtime.enqueue_followup(game_id, version)

    return followup


def _enqueue_all(runtime: Runtime, pending: list[tuple[str, int]]) -> None:
    for game_id, version in pending:
        try:
            runtime.enqueue_followup(game_id, version)
        except Exception:
            log.exception("could not enqueue the follow-up of game %s", game_id)


def init_followups(app: Flask, runtime: Runtime) -> None:
    @app.after_request
    def send_after_the_answer(response: Response) -> Response:
        pending = g.pop("followups", None)
        if pending:
            response.call_on_close(partial(_enqueue_all, runtime, pending))
        return response
