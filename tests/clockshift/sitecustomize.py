"""Test hook: shift this process's wall clock by ``CARDROOM_TEST_CLOCK_SHIFT_S``.

Put this directory first on ``PYTHONPATH`` of one process (the clock-skew
test does so for one ``cardroom worker``): Python imports ``sitecustomize``
at start-up, before any of the service's modules, so every ``time.time()``
and ``time.time_ns()`` of that process runs the given number of seconds
ahead (positive) or behind (negative), as on a machine whose clock is set
wrong. The monotonic clocks are left alone (a wrong wall clock does not
change how fast time passes), and so is what C code reads itself
(``datetime.now``). ``CARDROOM_TEST_CLOCK_REPORT`` names a file the hook
writes the shift it applied to, so the test can check that it took effect.

Never shipped: it lives under ``tests/`` and acts only when the variable is set.
"""

from __future__ import annotations

import json
import os
import time

_SHIFT_S = float(os.environ.get("CARDROOM_TEST_CLOCK_SHIFT_S") or 0)

if _SHIFT_S:
    _time, _time_ns = time.time, time.time_ns
    _shift_ns = int(_SHIFT_S * 1e9)

    def _shifted() -> float:
        return _time() + _SHIFT_S

    def _shifted_ns() -> int:
        return _time_ns() + _shift_ns

    time.time = _shifted
    time.time_ns = _shifted_ns
    _report = os.environ.get("CARDROOM_TEST_CLOCK_REPORT")
    if _report:
        with open(_report, "w", encoding="utf-8") as out:
            json.dump({"pid": os.getpid(), "shift_s": time.time() - _time()}, out)
