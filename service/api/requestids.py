"""Every request's id (:mod:`service.requestid`): taken from ``X-Request-Id`` when
well formed, else made; current for the request's log lines, problem documents
and the jobs it enqueues, and echoed in the ``X-Request-Id`` response header."""

from __future__ import annotations

from flask import Flask, Response, g, request

from service import requestid


def init_request_ids(app: Flask) -> None:
    """Register the hooks; call it before any other ``before_request`` hook, so
    that a request refused by one (a rate limit) has its id too."""

    @app.before_request
    def take_request_id() -> None:
        g.cardroom_request_id = requestid.accept(request.headers.get(requestid.HEADER))
        requestid.begin(g.cardroom_request_id)

    @app.after_request
    def echo_request_id(response: Response) -> Response:
        rid = g.get("cardroom_request_id")
        if rid is not None:
            response.headers[requestid.HEADER] = rid
        return response

    @app.teardown_request
    def forget_request_id(exc: BaseException | None) -> None:
        requestid.end()
