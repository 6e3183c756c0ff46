"""``GET /games/{id}``, rendered once per game, version and viewer.

A view is what most requests ask for: every open tab fetches its seat's
view (or the public one) after every event. Asking Redis whether the
token opens a seat and what the stream's last entry is takes one round
trip (a pipeline); the JSON of the view at that entry for that viewer is
then served from a small in-process cache, or rendered once and kept. The
entry's id (version and time) keys the cache, so a view of an event that a
failover lost is never served for the event that took its version.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Final

from schemas.api import GameView
from service import keys
from service.errors import GameNotFound
from service.games import Forbidden, GameService, _match_token
from service.load import DEFAULT_CACHE

from .progress import full_view

ViewKey = tuple[str, int, int, int | None]
"""``(game_id, version, entry time in ms, seat or None for the public view)``."""
VIEW_CACHE_SIZE: Final = 2048


class RenderedViews:
    """The JSON of recent views, least recently used dropped first; thread-safe."""

    def __init__(self, maxsize: int = VIEW_CACHE_SIZE) -> None:
        self.maxsize = maxsize
        self._views: OrderedDict[ViewKey, str] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: ViewKey) -> str | None:
        with self._lock:
            text = self._views.get(key)
            if text is not None:
                self._views.move_to_end(key)
            return text

    def put(self, key: ViewKey, text: str) -> None:
        with self._lock:
            self._views[key] = text
            self._views.move_to_end(key)
            while len(self._views) > self.maxsize:
                self._views.popitem(last=False)

    def __len__(self) -> int:
        return len(self._views)


VIEWS: Final = RenderedViews()


def view_json(svc: GameService, game_id: str, token: str | None) -> str:
    """The current view of ``game_id`` for the seat ``token`` opens (public without one)."""
    if not keys.GAME_ID_RE.fullmatch(game_id):
        raise GameNotFound(game_id)
    pipe = svc.store.redis.pipeline(transaction=False)
    if token is not None:
        pipe.hgetall(keys.tokens(game_id))
    pipe.xrevrange(keys.events(game_id), count=1)
    replies = pipe.execute()
    last = replies[-1]
    if not last:
        raise GameNotFound(game_id)
    seat = None
    if token is not None:
        seat = _match_token(replies[0], token)
        if seat is None:
            raise Forbidden()
    raw_version, _, raw_at = last[0][0].partition(b"-")
    key: ViewKey = (game_id, int(raw_version), int(raw_at), seat)
    text = VIEWS.get(key)
    if text is not None:
        return text
    cached = DEFAULT_CACHE.entry(game_id)
    if cached is not None and cached[0].version == key[1] and cached[1] == key[2]:
        state = cached[0]
    else:
        state = svc.load(game_id)
    text = GameView.model_validate(full_view(state, seat)).model_dump_json(exclude_unset=True)
    if state.version == key[1]:  # a newer state (a move landed meanwhile) is served, not kept
        VIEWS.put(key, text)
    return text
