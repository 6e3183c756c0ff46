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

import orjson

from schemas.api import GAME_VIEW
from service.engines import table
from service.games import GameService

from .progress import full_view


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
    kept = svc.views.get((game_id, seat))
    if kept is not None and kept[0] is state:  # rendered from this very state
        return kept[1]
    text = render(state, seat, svc)
    svc.views.put((game_id, seat), (state, text))
    return text


def render(state: table.Table, seat: int | None, svc: GameService) -> str:
    """The JSON of ``seat``'s view of ``state`` (``None``: the public one).

    The view is written as the fold built it, like the live stream's ``view``
    lines: it is a :data:`schemas.api.GameView` to the letter (same fields,
    same JSON types), which the tests check on every state of thousands of
    played moves against :func:`validated`; validating it again on every
    request would cost a view a third of its time, and ``orjson`` writes it in
    a tenth of the time the standard library takes."""
    return orjson.dumps(full_view(state, seat, svc.store)).decode()


def validated(state: table.Table, seat: int | None, svc: GameService) -> str:
    """:func:`render` through the :data:`schemas.api.GameView` model: the
    published schema's reading of the same view."""
    model = GAME_VIEW.validate_python(full_view(state, seat, svc.store))
    return GAME_VIEW.dump_json(model, exclude_unset=True).decode()
