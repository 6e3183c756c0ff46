"""The OpenAPI document against the app: schemathesis generates requests from it.

Every answer must be documented (status, media type, headers) and match its
schema, and none may be a 5xx. Cases aimed at a game use, in turn, a random
id, a game still seating, and a game being played (with a seat's token half
of the time), so generated moves and seats reach the engines too.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import schemathesis
from flask import Flask
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from service.config import load_settings
from service.webhooks.outbound import Outbound

from .conftest import make_app

NOT_READY_IS_AN_ANSWER = frozenset({"/readyz"})
"""Probes whose 503 is an answer the document gives, not a server error."""
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


def make_schema_app() -> Flask:
    app = make_app(load_settings(stream_keepalive_s=0.2), RATELIMIT_ENABLED=False)
    # Webhook URLs the cases name never reach DNS or the network: every name resolves
    # to a private address (refused), and an attempt would meet a transport of no network.
    app.extensions["cardroom_runtime"].outbound = Outbound(
        resolve=lambda host, port: ["10.0.0.1"],
        transport=lambda: httpx.MockTransport(lambda request: httpx.Response(204)),
    )
    return app


def _seed_games(app: Flask) -> list[tuple[str, str | None]]:
    client = app.test_client()
    seating = client.post("/games", json={"game": "murlan"}).get_json()["game_id"]
    playing = client.post("/games", json={"game": "azi", "seats": 2}).get_json()["game_id"]
    tokens = [
        client.post(f"/games/{playing}/seats", json={"name": f"p{i}"}).get_json()["token"]
        for i in range(2)
    ]
    return [
        ("", None),
        (seating, None),
        (playing, None),
        (playing, tokens[0]),
        (playing, tokens[1]),
    ]


@dataclass
class Served:
    schema: Any
    targets: Iterator[tuple[str, str | None]]


@pytest.fixture(scope="module")
def served() -> Served:
    app = make_schema_app()
    return Served(
        schemathesis.openapi.from_wsgi("/openapi.json", app),
        itertools.cycle(_seed_games(app)),
    )


@pytest.fixture
def api_schema(served: Served) -> Any:
    return served.schema


schema = schemathesis.pytest.from_fixture("api_schema")
"""Built when the test runs, not when it is collected: its cases (the coverage
phase's among them) are then drawn only by the process that runs it, where
every parallel worker would otherwise draw them all while collecting."""


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_api_matches_its_openapi_document(case: schemathesis.Case[Any], served: Served) -> None:
    if case.path_parameters and "game_id" in case.path_parameters:
        game_id, token = next(served.targets)
        if game_id:
            case.path_parameters["game_id"] = game_id
        if token:
            case.headers["Authorization"] = f"Bearer {token}"
    if case.operation.path in NOT_READY_IS_AN_ANSWER:
        # this app runs no worker: whether one beat lately depends on what else ran
        # on this Redis, and a 503 naming the failed check is the documented answer
        response = case.call()
        assert response.status_code < 500 or response.status_code == 503, response.status_code
        case.validate_response(response, checks=CHECKS[1:])
        return
    case.call_and_validate(checks=CHECKS)
