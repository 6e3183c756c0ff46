"""CPU time of other processes, read from ``/proc/<pid>/stat``."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Final

TICKS: Final = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids: Iterable[int], *, children: bool = False) -> float:
    """User + system CPU seconds of ``pids`` so far (0 for any gone); with
    ``children``, that of their reaped children too."""
    last = 15 if children else 13  # utime, stime[, cutime, cstime]
    ticks = 0
    for pid in pids:
        try:
            text = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = text.rpartition(")")[2].split()
        ticks += sum(int(f) for f in fields[11:last])
    return ticks / TICKS
