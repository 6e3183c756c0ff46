"""``GET /games/{id}``, rendered once per game state and viewer.

A view is what most requests ask for: every open tab fetches its seat's
view (or the public one) after every event. The game is loaded the usual
way (one round trip, token hashes included, see
:func:`service.store.load_game_and_tokens`), and the JSON of the view is
then served from a small in-process cache keyed by the viewer and the very
state object it was rendered from: the load path hands out the same object
while the stream's last entry is unchanged and folds a new one otherwise
(also when a failover replaced an entry), so a view is never served for a
state other than the one it shows.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Final

import orjson

from schemas.api import GameView
from service.engines import table
from service.games import GameService

from .progress import full_view

ViewKey = tuple[str, int | None]
"""``(game_id, seat or None for the public view)``."""
VIEW_CACHE_SIZE: Final = 2048


class RenderedViews:
    """The JSON of recent views, least recently used dropped first; thread-safe."""

    def __init__(self, maxsize: int = VIEW_CACHE_SIZE) -> None:
        self.maxsize = maxsize
        self._views: OrderedDict[ViewKey, tuple[table.Table, str]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: ViewKey, state: table.Table) -> str | None:
        """The view kept for ``key`` if it was rendered from ``state`` itself."""
        with self._lock:
            kept = self._views.get(key)
            if kept is None or kept[0] is not state:
                return None
            self._views.move_to_end(key)
            return kept[1]

    def put(self, key: ViewKey, state: table.Table, text: str) -> None:
        with self._lock:
            self._views[key] = (state, text)
            self._views.move_to_end(key)
            while len(self._views) > self.maxsize:
                self._views.popitem(last=False)

    def __len__(self) -> int:
        return len(self._views)


VIEWS: Final = RenderedViews()


def view_json(svc: GameService, game_id: str, token: str | None) -> str:
    """The current view of ``game_id`` for the seat ``token`` opens (public
    without one). A seat marked away that asks for its view is back."""
    if token is None:
        seat, state = None, svc.load(game_id)
    else:
        seat, state = svc.seat_and_state(game_id, token)
        if table.is_away(state, seat):
            svc.seat_present(game_id, seat, state)
            state = svc.load(game_id)
    key: ViewKey = (game_id, seat)
    text = VIEWS.get(key, state)
    if text is None:
        text = render(state, seat, svc)
        VIEWS.put(key, state, text)
    return text


def render(state: table.Table, seat: int | None, svc: GameService) -> str:
    """The JSON of ``seat``'s view of ``state`` (``None``: the public one).

    The view is written as the fold built it, like the live stream's ``view``
    lines: it is a :class:`schemas.api.GameView` to the letter (same fields,
    same JSON types), which the tests check on every state of thousands of
    played moves against :func:`validated`; validating it again on every
    request would cost a view a third of its time, and ``orjson`` writes it in
    a tenth of the time the standard library takes."""
    return orjson.dumps(full_view(state, seat, svc.store)).decode()


def validated(state: table.Table, seat: int | None, svc: GameService) -> str:
    """:func:`render` through the :class:`schemas.api.GameView` model: the
    published schema's reading of the same view."""
    return GameView.model_validate(full_view(state, seat, svc.store)).model_dump_json(
        exclude_unset=True
    )
