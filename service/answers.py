"""Answers of an ended game, built once: its replay document, its verification
and its events as the events pages show them.

Once a game has revealed its seed nothing about it can change, so its public
replay document, its ``/verify`` result and its list of events (every viewer
sees every event of an ended game) are built once — by the worker when it
sees the seed revealed (:func:`on_revealed`), or by the first request that
finds none — and kept beside the game's events
(``cardroom:{<id>}:answer:replay`` / ``:answer:verify`` / ``:answer:events``,
each ``<etag>\\n<JSON>``, deflated: a replay document shrinks about tenfold).
The events answer is one event a line, each as ``GET /games/{id}/events``
writes it, so a page is a slice of lines (:func:`events_lines`; the stream
holds versions 1..N, so version ``v`` is line ``v - 1``).
They are served with that ``ETag`` and ``Cache-Control: public,
max-age=31536000, immutable``; ``If-None-Match`` gets a 304.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from typing import Final, Literal

from schemas.api import EventOut

from .bodies import event_json
from .engines.table import Table, redact
from .replay import build_replay, verify_game
from .store import EventStore, StoredEvent, keys
from .store.errors import CommandRefused
from .store.refusals import refusal_reason

Which = Literal["replay", "verify", "events"]
IMMUTABLE: Final = "public, max-age=31536000, immutable"


def _key(game_id: str, which: Which) -> str:
    return keys.answer(game_id, which)


def replay_key(game_id: str) -> str:
    return _key(game_id, "replay")


def verify_key(game_id: str) -> str:
    return _key(game_id, "verify")


def events_key(game_id: str) -> str:
    return _key(game_id, "events")


def _tagged(text: str) -> tuple[str, str]:
    return '"' + hashlib.sha256(text.encode()).hexdigest()[:32] + '"', text


def _pack(body: object) -> tuple[str, str]:
    return _tagged(json.dumps(body, separators=(",", ":"), ensure_ascii=False))


def events_lines(state: Table, stored: list[StoredEvent]) -> str:
    """An ended game's events, one a line, each exactly as an events page writes
    it (every event is public once the game has ended)."""
    return "\n".join(
        EventOut.model_validate(
            event_json(s.version, redact(state, s.event, None), s.at_ms)
        ).model_dump_json(exclude_unset=True)
        for s in stored
    )


def build(store: EventStore, game_id: str) -> dict[Which, tuple[str, str]] | None:
    """Build and keep every answer of ``game_id`` if its seed is revealed
    (``None`` otherwise). Read from its archive once it has been archived."""
    from .retention import events_or_archive

    state, stored = events_or_archive(store, game_id)
    if state.server_seed is None:
        return None
    made: dict[Which, tuple[str, str]] = {
        "replay": _pack(build_replay(state, stored, None)),
        "verify": _pack(verify_game(state, stored)),
        "events": _tagged(events_lines(state, stored)),
    }
    if store.exists(game_id):  # an archived game's answers are rebuilt, not re-stored
        blobs: dict[str, bytes] = {
            which: zlib.compress(f"{etag}\n{text}".encode(), 6)
            for which, (etag, text) in made.items()
        }
        try:
            store.answers.keep(game_id, blobs)
        except CommandRefused as exc:
            if refusal_reason(exc) is None:
                raise
            # Redis takes no writes now (full, say): serve the answer without keeping it
    return made


def on_revealed(store: EventStore, game_id: str) -> None:
    """The workers' hook: build the ended game's answers unless they are kept."""
    if not store.answers.has(game_id, "verify"):
        build(store, game_id)


def ended_answer(store: EventStore, game_id: str, which: Which) -> tuple[str, str] | None:
    """``(etag, JSON)`` of an ended game's answer, built now if missing;
    ``None`` while the game runs (its answer is still changing)."""
    raw = store.answers.get(game_id, which)
    if raw is not None:
        etag, _, text = zlib.decompress(raw).decode().partition("\n")
        return etag, text
    made = build(store, game_id)
    return None if made is None else made[which]
