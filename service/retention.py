"""Retention: what leaves Redis, when, and where it goes.

One pass, :func:`run_pass`, run by ``cardroom archive`` and periodically by
the workers (one call from the reconciler):

- **Finished games** whose last event is older than
  ``CARDROOM_ARCHIVE_AFTER_S`` are written as JSON Lines (:mod:`service.archive`,
  the export format) to ``CARDROOM_ARCHIVE_URL`` — a directory or any fsspec
  URL (``file:///srv/archive``, ``s3://bucket/cardroom``…) — read back and
  compared, then their keys are deleted. Their index entry stays, moved to
  status ``archived``, so ``/replay``, ``/verify`` and ``cardroom replay <id>``
  find them and serve them from the archive (:func:`events_or_archive`).
- **Tables that never started** (seats still free, so no move either) whose
  last event — their creation or the last seat taken — is older than
  ``CARDROOM_UNJOINED_TTL_S`` (30 minutes) are deleted with their index entry.
  A small mark, ``cardroom:{<game>}:expired``, stays for
  :data:`EXPIRED_MARK_S` so that a player still waiting there is told the
  table expired (``410 table-expired``) rather than that it never existed. A
  table whose every seat is taken has started and is never expired (an idle
  game is abandoned instead, ``CARDROOM_ABANDON_AFTER_S``). The check and the
  deletion are one script: a seat taken meanwhile keeps the table.
- **Memory:** Redis's ``used_memory`` against its ``maxmemory`` goes into the
  ``cardroom_redis_memory_ratio`` gauge, with a warning in the log from
  ``CARDROOM_MEMORY_WARN_RATIO`` (80 %) of the limit on.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from prometheus_client import Counter, Gauge

from schemas.codec import decode_event
from service.engines import table

from .config import Settings, settings
from .store import EventStore, GameSummary, StoredEvent, keys, load_game, removal
from .store.archive import export_jsonl, parse_export
from .store.errors import GameNotFound

log = logging.getLogger("cardroom.retention")

ARCHIVED: Final = "archived"
"""The index status of a game whose events live in the archive."""
PAGE: Final = 200
PASS_LOCK: Final = keys.retention_lock()
EXPIRED_MARK_S: Final = 86_400
"""How long an expired table still answers ``410`` (then ``404``)."""
EXPIRE_IF_UNCHANGED: Final = removal.EXPIRE_IF_UNCHANGED

REDIS_MEMORY_RATIO = Gauge(
    "cardroom_redis_memory_ratio",
    "Redis used_memory / maxmemory (0 when no limit is set).",
    multiprocess_mode="livemostrecent",
)
RETAINED = Counter(
    "cardroom_retention_total", "Games moved out of Redis, by what was done.", ["action"]
)


@dataclass
class PassReport:
    archived: list[str] = field(default_factory=list)
    expired: list[str] = field(default_factory=list)
    memory_ratio: float | None = None


class ArchiveMismatch(RuntimeError):
    """The archive read back is not what was written: the game stays in Redis."""


def archive_location(url: str, game_id: str) -> tuple[Any, str]:
    """The fsspec filesystem and path of a game's archive file."""
    import fsspec  # type: ignore[import-untyped]  # with the first archive, not every process

    fs, root = fsspec.core.url_to_fs(url)
    return fs, f"{root.rstrip('/')}/{keys.check_game_id(game_id)}.jsonl"


def run_pass(
    store: EventStore,
    current: Settings | None = None,
    now_ms: int | None = None,
    step: Callable[[], None] | None = None,
) -> PassReport:
    """One retention pass over the index (see the module's docstring).
    ``step`` is called once per game looked at (:func:`pass_size` of them:
    ``cardroom archive``'s progress)."""
    cfg = current or settings()
    tick = step or _nothing
    now = store.now_ms() if now_ms is None else now_ms  # Redis's time, as the events'
    report = PassReport()
    report.memory_ratio = check_memory(store, cfg.memory_warn_ratio)
    if cfg.archive_url is not None:
        cutoff = now - cfg.archive_after_s * 1000
        for item in list(_games(store, "ended")):
            tick()
            last = store.last_entry(item.game_id)
            if last is None or last[1] > cutoff:
                continue
            try:
                archive_game(store, item.game_id, cfg.archive_url)
            except ArchiveMismatch:
                log.error("archive mismatch; game kept in Redis", extra={"game_id": item.game_id})
                continue
            report.archived.append(item.game_id)
    cutoff = now - cfg.unjoined_ttl_s * 1000
    for item in list(_games(store, "seating")):
        tick()
        if item.created_at <= cutoff and expire_unstarted(store, item.game_id, cutoff):
            report.expired.append(item.game_id)
    if report.archived or report.expired:
        log.info(
            "retention",
            extra={"archived": len(report.archived), "expired": len(report.expired)},
        )
    return report


def _nothing() -> None:
    return None


def pass_size(store: EventStore, current: Settings | None = None) -> int:
    """How many games a pass looks at now: the finished ones (when archiving)
    and the tables still seating."""
    cfg = current or settings()
    ended = store.index.count(status="ended") if cfg.archive_url is not None else 0
    return int(ended + store.index.count(status="seating"))


def periodic_pass(store: EventStore, current: Settings | None = None) -> PassReport | None:
    """:func:`run_pass` at most once a minute across every process calling this
    (the workers' periodic hook: a lock key with a TTL decides who runs it)."""
    cfg = current or settings()
    if not store.locks.retention(cfg.retention_interval_s):
        return None
    return run_pass(store, cfg)


def _games(store: EventStore, status: str) -> Iterator[GameSummary]:
    cursor: str | None = None
    while True:
        items, cursor = store.list_games(status=status, limit=PAGE, cursor=cursor)
        yield from items
        if cursor is None:
            return


def game_keys(game_id: str) -> list[str]:
    """Every key a game has in Redis (all in its hash slot)."""
    return [
        keys.events(game_id),
        keys.snapshot(game_id),
        keys.secret(game_id),
        keys.tokens(game_id),
        keys.ledger(game_id),
        keys.rematch(game_id),
        keys.talk(game_id),
        keys.meta(game_id),
        keys.followup(game_id),
        keys.failures(game_id),
        keys.fairness_notes(game_id),
        *answer_keys(game_id),
        *keys.hook_keys(game_id),
    ]


def answer_keys(game_id: str) -> list[str]:
    return [keys.answer(game_id, which) for which in ("replay", "verify", "events")]


def archive_game(store: EventStore, game_id: str, url: str) -> str:
    """Write the game's archive, check it, then move it out of Redis; its path."""
    text = export_jsonl(store, game_id)
    fs, path = archive_location(url, game_id)
    parent = path.rsplit("/", 1)[0]
    if parent:
        fs.makedirs(parent, exist_ok=True)
    fs.pipe_file(path, text.encode())
    if fs.cat_file(path).decode() != text:
        raise ArchiveMismatch(game_id)
    store.set_status(game_id, ARCHIVED)
    store.removal.delete(game_keys(game_id))
    store.lag.projected(game_id, 0)
    RETAINED.labels("archived").inc()
    return str(path)


def expire_unstarted(store: EventStore, game_id: str, cutoff_ms: int) -> bool:
    """Expire ``game_id`` if it has not started (a seat still free) and its last
    event is at or before ``cutoff_ms``; whether it was expired."""
    try:
        state = load_game(store, game_id, cache=None)
    except GameNotFound:
        return False
    if state.seated or state.over:
        return False
    entry = store.entries.last_id(game_id)
    if entry is None:
        return False
    if keys.entry_time(entry) > cutoff_ms:
        return False
    return drop_unjoined(store, game_id, entry)


def drop_unjoined(store: EventStore, game_id: str, last_entry: str | None = None) -> bool:
    """Delete a table that never started: its keys (leaving its expiry mark) and
    its index entry. With ``last_entry``, only if the stream still ends there
    (a seat taken meanwhile keeps the table); whether it was deleted."""
    if last_entry is None:
        last_entry = store.entries.last_id(game_id)
        if last_entry is None:
            return False
    # the stream first
    if not store.removal.expire_if_unchanged(
        game_id, game_keys(game_id), last_entry, EXPIRED_MARK_S
    ):
        return False
    store.lag.projected(game_id, 0)
    _drop_index_entry(store, game_id)
    RETAINED.labels("expired").inc()
    return True


def _drop_index_entry(store: EventStore, game_id: str) -> None:
    store.index.drop(game_id)


def read_archive(game_id: str, url: str) -> list[StoredEvent]:
    """The events of an archived game, decoded as the store would."""
    fs, path = archive_location(url, game_id)
    try:
        text = fs.cat_file(path).decode()
    except FileNotFoundError:
        raise GameNotFound(game_id) from None
    rows = parse_export(text)
    game = rows[0].event["game"]
    return [StoredEvent(r.version, r.at_ms, decode_event(game, r.event)) for r in rows]


def events_or_archive(
    store: EventStore, game_id: str, url: str | None = None
) -> tuple[table.Table, list[StoredEvent]]:
    """A game's state and events, from Redis or, once archived, from its archive."""
    try:
        state = load_game(store, game_id)
    except GameNotFound:
        summary = store.index.get(game_id) if keys.GAME_ID_RE.fullmatch(game_id) else None
        target = url if url is not None else settings().archive_url
        if summary is None or summary.status != ARCHIVED or target is None:
            raise
        stored = read_archive(game_id, target)
        return table.fold([s.event for s in stored]), stored
    return state, store.read(game_id, 0, state.version)


def check_memory(store: EventStore, warn_ratio: float) -> float | None:
    """Redis's used/max memory ratio into the gauge, warning past ``warn_ratio``;
    ``None`` when Redis has no limit (or does not say)."""
    try:
        info = store.health.memory()
    except Exception:  # INFO refused (an ACL) or a cluster client's per-node dict
        return None
    if not isinstance(info, dict) or "used_memory" not in info:
        return None
    limit = int(info.get("maxmemory", 0) or 0)
    if limit <= 0:
        REDIS_MEMORY_RATIO.set(0)
        return None
    ratio = int(info["used_memory"]) / limit
    REDIS_MEMORY_RATIO.set(ratio)
    if ratio >= warn_ratio:
        log.warning(
            "redis memory high",
            extra={"used_ratio": round(ratio, 3), "maxmemory": limit},
        )
    return ratio
