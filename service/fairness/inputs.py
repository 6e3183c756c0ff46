"""Replay documents as input to the fairness report (``cardroom fairness FILES``).

Every document is checked before it is counted: it must be a finished game
with its seed revealed that passes the audit of :func:`service.replay.audit_replay`
(unless the caller asks for no verification), and a game counts once however
many files hold it. A file that fails any of this is rejected by name, with the
reason; a forged or truncated document is a rejection, never a crash.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from service.engines import table

from .projection import counted, game_counts


@dataclass(frozen=True, slots=True)
class Rejected:
    """A file left out of the report, and why."""

    path: str
    reason: str


@dataclass
class Inputs:
    """What the report counts of the files given: counts, totals, and the files
    left out."""

    counts: Counter[str] = field(default_factory=Counter)
    games: int = 0
    deals: int = 0
    rejected: list[Rejected] = field(default_factory=list)
    seen: dict[str, str] = field(default_factory=dict)
    """game id -> the file it was counted from."""

    @property
    def meta(self) -> dict[str, int]:
        return {"games": self.games, "deals": self.deals}


class _Refused(Exception):
    """A document this module will not count: the reason."""


def counted_inputs(documents: Iterable[tuple[str, Any]], verify: bool = True) -> Inputs:
    """Counts over ``documents`` (each a path and its parsed JSON, or the
    exception that reading it raised), each verified unless ``verify`` is false."""
    out = Inputs()
    for path, doc in documents:
        try:
            game_id, counts, deals = _count_one(doc, verify, out.seen)
        except _Refused as exc:
            out.rejected.append(Rejected(path, str(exc)))
            continue
        except Exception as exc:  # an untrusted document: whatever it breaks is a rejection
            out.rejected.append(Rejected(path, f"not a readable replay ({type(exc).__name__})"))
            continue
        out.seen[game_id] = path
        out.counts.update(counts)
        out.games += 1
        out.deals += deals
    return out


def _count_one(doc: Any, verify: bool, seen: Mapping[str, str]) -> tuple[str, Counter[str], int]:
    from service.replay import ReplayFormatError, audit_replay, events_from_replay

    if isinstance(doc, BaseException):
        raise _Refused(f"cannot read: {doc}")
    if not isinstance(doc, Mapping):
        raise _Refused("not a replay document (a JSON object)")
    try:
        events = events_from_replay(doc)
    except ReplayFormatError as exc:
        raise _Refused(f"not a replay: {exc}") from None
    state = table.fold([e.event for e in events])
    if state.game_id in seen:
        raise _Refused(f"game {state.game_id} is already counted from {seen[state.game_id]}")
    if not counted(state):
        raise _Refused(f"game {state.game_id} has not ended with its seed revealed")
    if verify:
        report = audit_replay(doc)
        if not report.ok:
            mismatch = report.mismatch or {}
            raise _Refused(f"does not verify: {mismatch.get('reason')}")
    counts, deals = game_counts(state, events)
    return state.game_id, counts, deals
