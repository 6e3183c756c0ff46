"""``/games/{id}/events``: the events a viewer may see, paged or as a live stream.

The live stream (``Accept: application/x-ndjson``) is one JSON object per
line: first the viewer's whole current view, then (with ``?after=N``) the
events after ``N`` up to that view, then every new event as it is appended,
read with the store's blocking wait so nothing polls. A ``keepalive`` line
goes out whenever nothing happened for ``stream_keepalive_s``; an ``end``
line closes the stream once the game has ended and its seed is public.
Each event is redacted against the state right after it, so a seat never
sees in the stream more than it would in a page. With ``?views=true`` a
``view`` line (the viewer's whole view, as ``GET /games/{id}`` answers it)
follows each batch of events, so a table never polls for its view.

Open streams are capped per client address, per seat, per game's
spectators and per process, with a share of the process kept for seats
(:mod:`.streamcaps`); a refused stream's 429 tells the client to poll its
view meanwhile. In a deployment they are served by the stream
server (``service.streams``), whose evented workers hold no thread per
stream.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from flask import Blueprint, Response, current_app, request

from schemas.api import EventsPage, EventsQuery, StreamQuery
from service.engines import game as table
from service.engines.base import JSON
from service.games import GameService, event_json

from .http import bearer_token, query, reply, service
from .progress import full_view
from .streamcaps import StreamSlots
from .turnclock import TIMES

bp = Blueprint("events", __name__)
NDJSON = "application/x-ndjson"


def wants_stream() -> bool:
    """Stream only when the client prefers NDJSON; ``*/*`` gets the JSON page."""
    best = request.accept_mimetypes.best_match(["application/json", NDJSON])
    return best == NDJSON


@bp.get("/games/<game_id>/events")
def events(game_id: str) -> Response:
    svc = service()
    seat = svc.authenticate(game_id, bearer_token(), required=False)
    if wants_stream():
        q_stream = query(StreamQuery)
        state = svc.load(game_id)  # before streaming: an unknown game is still a 404
        keepalive_ms = max(1, int(svc.runtime.settings.stream_keepalive_s * 1000))
        slots: StreamSlots = current_app.extensions["cardroom_streams"]
        address = request.remote_addr or "-"
        # the seat (its token checked above) gets a seat's slots; anyone else a spectator's
        slots.acquire(address, game_id, seat)  # a refused stream changes nothing
        try:
            if seat is not None and table.is_away(state, seat):
                svc.seat_present(game_id, seat, state)
                # its follow-up now, not when this stream closes
                svc.runtime.enqueue_followup(game_id, state.version + 1)
                state = svc.load(game_id)
            lines = live_lines(svc, state, seat, q_stream.after, keepalive_ms, q_stream.views)
            response = Response(
                lines,
                mimetype=NDJSON,
                headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
            )
        except BaseException:
            slots.release(address, game_id, seat)
            raise
        response.call_on_close(lambda: slots.release(address, game_id, seat))
        return response
    q = query(EventsQuery)
    state, stored = svc.events(game_id, q.after, q.limit)
    shown = [event_json(s.version, table.redact(state, s.event, seat), s.at_ms) for s in stored]
    more = bool(stored) and stored[-1].version < state.version
    page = {
        "game_id": game_id,
        "version": state.version,
        "events": shown,
        "next_after": stored[-1].version if more else None,
    }
    return reply(EventsPage.model_validate(page))


def _line(kind: str, version: int, **payload: JSON) -> str:
    return json.dumps({"kind": kind, "version": version, **payload}, separators=(",", ":")) + "\n"


def finished(state: table.Game) -> bool:
    return state.over and state.server_seed is not None


def live_lines(
    svc: GameService,
    state: table.Game,
    viewer: int | None,
    after: int | None,
    keepalive_ms: int,
    views: bool = False,
) -> Iterator[str]:
    game_id = state.game_id
    yield _line("view", state.version, view=full_view(state, viewer, svc.store))
    if after is not None and after < state.version:
        for s in svc.store.read(game_id, after, state.version - after):
            shown = table.redact(state, s.event, viewer)
            yield _line("event", s.version, event=event_json(s.version, shown, s.at_ms))
    version = state.version
    while not finished(state):
        arrived = svc.store.wait(game_id, version, keepalive_ms)
        if not arrived:
            yield _line("keepalive", version)
            continue
        for s in arrived:
            state = table.apply(state, s.event)
            version = s.version
            TIMES.put(game_id, version, s.at_ms)
            shown = table.redact(state, s.event, viewer)
            yield _line("event", version, event=event_json(version, shown, s.at_ms))
        if views:
            yield _line("view", version, view=full_view(state, viewer, svc.store))
    yield _line("end", version)
