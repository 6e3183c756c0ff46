"""``POST /bench/floor``: the latency floor of an accepted write (benchmarks only).

It parses a JSON body and does a single ``XADD`` — what any write through
this app and server costs at the least — so ``bench/bench_api.py`` can show
how far an accepted move is above it. Registered only with ``BENCH_FLOOR``.
"""

from __future__ import annotations

import json
from typing import Final

from flask import Blueprint, Response, request

from .http import reply, service

bp = Blueprint("floor", __name__)
FLOOR_KEY: Final = "cardroom:{bench}:floor"
FLOOR_MAXLEN: Final = 10_000


@bp.post("/bench/floor")
def floor() -> Response:
    data = json.loads(request.get_data())
    entry = service().store.redis.xadd(
        FLOOR_KEY, {"d": json.dumps(data)}, maxlen=FLOOR_MAXLEN, approximate=True
    )
    entry_id = entry.decode() if isinstance(entry, bytes) else entry
    return reply({"id": entry_id}, 201)
