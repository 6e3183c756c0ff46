"""The throughput benchmark's floor: a bare Flask app doing a table's three requests on Redis.

``gunicorn -c deploy/gunicorn.conf.py 'bench.floorapp:create_app()'`` with
``FLOOR_REDIS_URL`` set. Per table ``n`` it answers what a cardroom client
asks for in one turn, with the least work any such service could do:

- ``GET /floor/<n>`` and ``GET /floor/<n>/seat``: one ``HGETALL`` of a small hash
  (the table's public state, a seat's state), as JSON;
- ``POST /floor/<n>/moves``: parse the JSON body, one ``XADD`` (capped), 201.

No validation, no rules, no limits, no logs: the floor of a read-read-write
loop through this web stack, Python and Redis.
"""

from __future__ import annotations

import json
import os
from typing import Final

import redis
from flask import Flask, Response, request

STATE: Final = {"status": "playing", "version": "1", "to_act": "0", "game": "murlan"}
MAXLEN: Final = 1000
PREFIX: Final = "cardroom:floor:"
"""Under ``cardroom:``, the only keys the shipped ACL (``deploy/users.acl``) lets the
bench's Redis user touch."""


def create_app() -> Flask:
    app = Flask(__name__)
    client = redis.Redis.from_url(os.environ["FLOOR_REDIS_URL"])

    def as_json(raw: dict[bytes, bytes]) -> Response:
        body = json.dumps({k.decode(): v.decode() for k, v in raw.items()})
        return Response(body, mimetype="application/json")

    @app.get("/floor/<int:table>")
    def public(table: int) -> Response:
        raw = client.hgetall(f"{PREFIX}{{{table}}}:state")
        if not raw:
            client.hset(f"{PREFIX}{{{table}}}:state", mapping=STATE)
            raw = {k.encode(): v.encode() for k, v in STATE.items()}
        return as_json(raw)

    @app.get("/floor/<int:table>/seat")
    def seat(table: int) -> Response:
        return as_json(client.hgetall(f"{PREFIX}{{{table}}}:state"))

    @app.post("/floor/<int:table>/moves")
    def move(table: int) -> Response:
        data = json.loads(request.get_data())
        entry = client.xadd(
            f"{PREFIX}{{{table}}}:events", {"d": json.dumps(data)}, maxlen=MAXLEN, approximate=True
        )
        return Response(json.dumps({"id": entry.decode()}), status=201, mimetype="application/json")

    return app
