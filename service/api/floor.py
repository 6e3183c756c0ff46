"""``POST /bench/floor``: the latency floor of an accepted write (benchmarks only).

It parses a JSON body and does a single ``XADD`` — what any write through
this app and server costs at the least — so ``bench/bench_api.py`` can show
how far an accepted move is above it. Registered only with ``BENCH_FLOOR``.
Its client is the process's own (``runtime.redis``, from
``app.extensions["cardroom_runtime"]``): a bare floor, by design outside the store.
"""

from __future__ import annotations

import json
from typing import Final

from flask import Blueprint, Response, current_app, request

from service.runtime import Runtime

from .http import reply

bp = Blueprint("floor", __name__)
FLOOR_KEY: Final = "cardroom:{bench}:floor"
FLOOR_MAXLEN: Final = 10_000


@bp.post("/bench/floor")
def floor() -> Response:
    data = json.loads(request.get_data())
    runtime: Runtime = current_app.extensions["cardroom_runtime"]
    entry = runtime.redis.xadd(
        FLOOR_KEY, {"d": json.dumps(data)}, maxlen=FLOOR_MAXLEN, approximate=True
    )
    entry_id = entry.decode() if isinstance(entry, bytes) else entry
    return reply({"id": entry_id}, 201)
