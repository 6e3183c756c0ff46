"""An ended game's public answers (``replay``, ``verify``, ``events``), built
once and kept compressed with their ETag: :class:`KeptAnswers`
(``store.answers``) owns :func:`keys.answer`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from . import keys
from .clients import Client


class KeptAnswers:
    """Keep, test and read a game's answers (stored as given: compressed bytes)."""

    def __init__(self, redis: Client) -> None:
        self._redis = redis

    def keep(self, game_id: str, blobs: Mapping[str, bytes]) -> None:
        """Keep each answer unless one is kept already (one round trip; raises
        :data:`service.store.errors.CommandRefused` when Redis takes no writes)."""
        pipe = self._redis.pipeline(transaction=False)
        for which, blob in blobs.items():
            pipe.set(keys.answer(game_id, which), blob, nx=True)
        pipe.execute()

    def has(self, game_id: str, which: str) -> bool:
        return bool(self._redis.exists(keys.answer(game_id, which)))

    def get(self, game_id: str, which: str) -> bytes | None:
        return cast("bytes | None", self._redis.get(keys.answer(game_id, which)))
