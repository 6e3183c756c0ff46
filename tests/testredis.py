"""Where the tests find the shared real Redis.

``CARDROOM_TEST_REDIS`` (default ``redis://127.0.0.1:6379``, no database):
each suite keeps to a database of its own there and flushes only that one,
so a run can be pointed at a private ``redis-server`` as a whole.
"""

from __future__ import annotations

import os
from typing import Final

TEST_REDIS: Final = os.environ.get("CARDROOM_TEST_REDIS", "redis://127.0.0.1:6379").rstrip("/")
