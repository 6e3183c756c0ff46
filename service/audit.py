"""Audits of many games: ``cardroom audit`` (the store and its archives) and
``cardroom verify`` over many files.

Each game is checked as ``cardroom verify`` checks one document
(:func:`service.replay.audit_replay`: the commitment, every deal re-derived,
every move replayed through the engine, the result recomputed). A game that
cannot be read is a failure with its reason, never a crash. ``cardroom
audit`` spreads the games over processes (:func:`audit_games`), each with its
own connection to the store.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

from schemas.codec import EventDecodeError, decode_event

from .replay import ReplayFormatError, audit_replay, build_replay

REPORT_FORMAT: Final = "cardroom-audit-v1"
FINISHED: Final = ("ended", "archived")
"""The index statuses of finished games (``archived``: its events are in the archive)."""
PAGE: Final = 200


@dataclass(frozen=True, slots=True)
class GameCheck:
    """One game's audit: ``ok``, or the ``reason`` it failed (at ``version``)."""

    source: str
    game_id: str | None
    game: str | None
    ok: bool
    reason: str | None = None
    version: int | None = None
    deals: int = 0
    moves: int = 0
    seeds: str | None = None
    """Who chose each seat's seed, as the audit found it (for a verified game)."""

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def check_document(doc: Any, source: str) -> GameCheck:
    """A replay document audited offline; anything unreadable is a failure."""
    if not isinstance(doc, Mapping):
        return GameCheck(source, None, None, False, "not a JSON object")
    game_id = doc.get("game_id") if isinstance(doc.get("game_id"), str) else None
    game = doc.get("game") if isinstance(doc.get("game"), str) else None
    try:
        report = audit_replay(doc)
    except ReplayFormatError as exc:
        return GameCheck(source, game_id, game, False, str(exc))
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError) as exc:
        # a document shaped unlike any replay: say so, with what broke
        return GameCheck(source, game_id, game, False, f"unreadable document: {exc!r}")
    mismatch = report.mismatch or {}
    return GameCheck(
        source,
        game_id,
        game,
        report.ok,
        None if report.ok else str(mismatch.get("reason")),
        mismatch.get("version"),
        report.deals_checked,
        report.moves_checked,
        seeds_line(report) if report.ok else None,
    )


def seeds_line(report: Any) -> str:
    """What the audit found of who chose each seat's seed."""
    if report.seeds_committed is False:
        return (
            "seat seeds unrecorded: this game predates committed seeds, so any seed "
            "the server drew (bots, players who gave none) was NOT committed"
        )
    derived = [s["seat"] for s in report.seeds if s["origin"] == "derived"]
    mine = [s["seat"] for s in report.seeds if s["origin"] == "player"]
    return (
        f"seats {_seats(derived)} derived from the committed seed and re-derived, "
        f"seats {_seats(mine)} chosen by their players"
    )


def _seats(seats: list[int]) -> str:
    return ",".join(str(s) for s in seats) if seats else "none"


def check_stored(state: Any, stored: Sequence[Any], source: str) -> GameCheck:
    """A game from the store or an archive: its public replay document, audited."""
    return check_document(build_replay(state, stored, None), source)


# -- files: replay documents, JSON Lines of documents, game archives ------------------
def expand(paths: Iterable[str]) -> list[Path]:
    """Files and directories (searched for ``*.json`` and ``*.jsonl``) as files, sorted
    within each directory."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            out.extend(
                sorted(
                    p for p in path.rglob("*") if p.suffix in (".json", ".jsonl") and p.is_file()
                )
            )
        else:
            out.append(path)
    return out


def check_text(text: str, source: str) -> list[GameCheck]:
    """The games of one file: a replay document, JSON Lines of replay documents, or a
    game's JSON Lines archive (``cardroom export --format jsonl``)."""
    stripped = text.strip()
    if not stripped:
        return [GameCheck(source, None, None, False, "empty file")]
    try:
        return [check_document(json.loads(stripped), source)]
    except json.JSONDecodeError:
        pass
    except RecursionError:
        return [GameCheck(source, None, None, False, "not JSON: nested too deeply")]
    lines = [line for line in stripped.splitlines() if line.strip()]
    try:
        first = json.loads(lines[0])
    except (json.JSONDecodeError, RecursionError) as exc:
        return [GameCheck(source, None, None, False, f"not JSON: {exc}")]
    if isinstance(first, Mapping) and "format" in first:
        return [_line_document(line, f"{source}:{n}") for n, line in enumerate(lines, 1)]
    return [_archive(text, source)]


def _line_document(line: str, source: str) -> GameCheck:
    try:
        return check_document(json.loads(line), source)
    except (json.JSONDecodeError, RecursionError) as exc:
        return GameCheck(source, None, None, False, f"not JSON: {exc}")


def _archive(text: str, source: str) -> GameCheck:
    from .engines import table
    from .store import StoredEvent
    from .store.archive import parse_export

    try:
        rows = parse_export(text)
        game = rows[0].event["game"]
        stored = [StoredEvent(r.version, r.at_ms, decode_event(game, r.event)) for r in rows]
        state = table.fold([s.event for s in stored])
    except (EventDecodeError, ValueError, TypeError, KeyError, IndexError) as exc:
        return GameCheck(source, None, None, False, f"not a game archive: {exc}")
    except Exception as exc:  # an engine refusing a hostile archive's events
        return GameCheck(source, None, None, False, f"not a game archive: {exc!r}")
    return check_stored(state, stored, source)


def check_file(path: Path) -> list[GameCheck]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [GameCheck(str(path), None, None, False, f"cannot read: {exc}")]
    return check_text(text, str(path))


# -- the store ------------------------------------------------------------------------
@dataclass(frozen=True)
class Filters:
    """Which finished games an audit checks (all of them by default)."""

    since_ms: int | None = None
    until_ms: int | None = None
    kinds: tuple[str, ...] = ()
    players: tuple[str, ...] = ()
    game_ids: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def select_games(store: Any, filters: Filters) -> list[str]:
    """The ids of the finished games the filters keep (by the index: creation time and
    kind; the players are checked once a game is read)."""
    wanted = set(filters.game_ids)
    found: list[str] = []
    for status in FINISHED:
        for summary in _index(store, status):
            if wanted and summary.game_id not in wanted:
                continue
            if filters.kinds and summary.game not in filters.kinds:
                continue
            if filters.since_ms is not None and summary.created_at < filters.since_ms:
                continue
            if filters.until_ms is not None and summary.created_at >= filters.until_ms:
                continue
            found.append(summary.game_id)
    return found


def _index(store: Any, status: str) -> Iterator[Any]:
    cursor: str | None = None
    while True:
        items, cursor = store.list_games(status=status, limit=PAGE, cursor=cursor)
        yield from items
        if cursor is None:
            return


_worker: dict[str, Any] = {}


def _start_worker(settings: Any, players: tuple[str, ...]) -> None:
    from .runtime import Runtime

    _worker["store"] = Runtime.from_settings(settings).store
    _worker["archive_url"] = settings.archive_url
    _worker["players"] = players


def audit_stored_game(game_id: str) -> GameCheck | None:
    """One game of the store (or its archive), in a worker process; ``None`` when the
    player filter leaves it out."""
    from .retention import events_or_archive

    source = f"store:{game_id}"
    try:
        state, stored = events_or_archive(_worker["store"], game_id, _worker["archive_url"])
    except Exception as exc:  # a game that cannot be read is a failure of the audit
        return GameCheck(source, game_id, None, False, f"cannot read the game: {exc!r}")
    players = _worker["players"]
    if players and not {s.name for s in state.seats if s is not None} & set(players):
        return None
    return check_stored(state, stored, source)


@dataclass
class AuditTotals:
    games: int = 0
    deals: int = 0
    moves: int = 0
    failures: list[GameCheck] = field(default_factory=list)

    def add(self, check: GameCheck) -> None:
        self.games += 1
        self.deals += check.deals
        self.moves += check.moves
        if not check.ok:
            self.failures.append(check)

    @property
    def ok(self) -> bool:
        return not self.failures


def audit_games(
    settings: Any,
    game_ids: Sequence[str],
    filters: Filters,
    jobs: int,
    step: Callable[[], None],
) -> AuditTotals:
    """Audit these games across ``jobs`` processes (``1``: in this one)."""
    totals = AuditTotals()
    if jobs <= 1:
        _start_worker(settings, filters.players)
        results: Iterable[GameCheck | None] = map(audit_stored_game, game_ids)
        _collect(results, totals, step)
        return totals
    chunk = max(1, min(64, len(game_ids) // (jobs * 4) or 1))
    with ProcessPoolExecutor(
        max_workers=jobs, initializer=_start_worker, initargs=(settings, filters.players)
    ) as pool:
        _collect(pool.map(audit_stored_game, game_ids, chunksize=chunk), totals, step)
    return totals


def _collect(
    results: Iterable[GameCheck | None], totals: AuditTotals, step: Callable[[], None]
) -> None:
    for check in results:
        if check is not None:
            totals.add(check)
        step()


def default_jobs() -> int:
    """One process per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def report(totals: AuditTotals, filters: Filters, started: str, finished: str) -> dict[str, Any]:
    """The JSON report of an audit."""
    return {
        "format": REPORT_FORMAT,
        "ok": totals.ok,
        "started_at": started,
        "finished_at": finished,
        "filters": filters.as_json(),
        "games_checked": totals.games,
        "deals_checked": totals.deals,
        "moves_checked": totals.moves,
        "games_failed": len(totals.failures),
        "failures": [f.as_json() for f in totals.failures],
    }
