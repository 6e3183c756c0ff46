"""Answers of an ended game, built once: its replay document and its verification.

Once a game has revealed its seed nothing about it can change, so its public
replay document and its ``/verify`` result are built once — by the worker
when it sees the seed revealed (:func:`on_revealed`), or by the first request
that finds none — and kept beside the game's events
(``cardroom:{<id>}:answer:replay`` / ``:answer:verify``, each ``<etag>\\n<JSON>``,
deflated: a replay document shrinks about tenfold).
They are served with that ``ETag`` and ``Cache-Control: public,
max-age=31536000, immutable``; ``If-None-Match`` gets a 304.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from typing import Final, Literal, cast

import redis

from .replay import build_replay, verify_game
from .store import EventStore, keys
from .store.refusals import refusal_reason

Which = Literal["replay", "verify"]
IMMUTABLE: Final = "public, max-age=31536000, immutable"


def _key(game_id: str, which: Which) -> str:
    return keys.answer(game_id, which)


def replay_key(game_id: str) -> str:
    return _key(game_id, "replay")


def verify_key(game_id: str) -> str:
    return _key(game_id, "verify")


def _pack(body: object) -> tuple[str, str]:
    text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    return '"' + hashlib.sha256(text.encode()).hexdigest()[:32] + '"', text


def build(store: EventStore, game_id: str) -> dict[Which, tuple[str, str]] | None:
    """Build and keep both answers of ``game_id`` if its seed is revealed
    (``None`` otherwise). Read from its archive once it has been archived."""
    from .retention import events_or_archive

    state, stored = events_or_archive(store, game_id)
    if state.server_seed is None:
        return None
    made: dict[Which, tuple[str, str]] = {
        "replay": _pack(build_replay(state, stored, None)),
        "verify": _pack(verify_game(state, stored)),
    }
    if store.exists(game_id):  # an archived game's answers are rebuilt, not re-stored
        pipe = store.redis.pipeline(transaction=False)
        for which, (etag, text) in made.items():
            pipe.set(_key(game_id, which), zlib.compress(f"{etag}\n{text}".encode(), 6), nx=True)
        try:
            pipe.execute()
        except redis.exceptions.ResponseError as exc:
            if refusal_reason(exc) is None:
                raise
            # Redis takes no writes now (full, say): serve the answer without keeping it
    return made


def on_revealed(store: EventStore, game_id: str) -> None:
    """The workers' hook: build the ended game's answers unless they are kept."""
    if not store.redis.exists(verify_key(game_id)):
        build(store, game_id)


def ended_answer(store: EventStore, game_id: str, which: Which) -> tuple[str, str] | None:
    """``(etag, JSON)`` of an ended game's answer, built now if missing;
    ``None`` while the game runs (its answer is still changing)."""
    raw = cast("bytes | None", store.redis.get(_key(game_id, which)))
    if raw is not None:
        etag, _, text = zlib.decompress(raw).decode().partition("\n")
        return etag, text
    made = build(store, game_id)
    return None if made is None else made[which]
