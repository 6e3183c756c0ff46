"""``cardroom worker --check``: the health check of a worker's container.

Exits 0 when an RQ worker of this host (its host name, as RQ records it)
beat within ``CARDROOM_WORKER_HEARTBEAT_MAX_AGE_S``, else 1 with one line
saying why. It asks the queue's Redis for the workers' records; a Redis that
answers is not enough: a hung or dead worker stops beating.
"""

from __future__ import annotations

import socket
import sys

from service.config import Settings
from service.heartbeats import beats
from service.runtime import Runtime


def check(settings: Settings, hostname: str | None = None) -> int:
    if settings.redis_url is None:
        print("cardroom worker --check: set CARDROOM_REDIS_URL", file=sys.stderr)
        return 2
    host = hostname or socket.gethostname()
    max_age_s = settings.worker_heartbeat_max_age_s
    try:
        mine = [age for name, age in beats(Runtime.from_settings(settings)) if name == host]
    except Exception as exc:  # Redis unreachable, refused: unhealthy, said plainly
        print(f"cardroom worker --check: cannot read the workers: {exc}", file=sys.stderr)
        return 1
    if any(age <= max_age_s for age in mine):
        print(f"cardroom worker --check: ok: {host}'s worker beat {min(mine):.0f} s ago")
        return 0
    last = f"last beat {min(mine):.0f} s ago" if mine else "no worker registered"
    print(
        f"cardroom worker --check: no heartbeat from {host} within {max_age_s:g} s ({last})",
        file=sys.stderr,
    )
    return 1
