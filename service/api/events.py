"""``/games/{id}/events``: the events a viewer may see, paged or as a live stream.

The live stream (``Accept: application/x-ndjson``) is one JSON object per
line: first the viewer's whole current view, then (with ``?after=N``) the
events after ``N`` up to that view, then every new event as it is appended,
brought by the process's stream hub (:mod:`service.api.live`,
:mod:`service.hub`: a few Redis readers for all the process's streams, each
game's lines rendered once per seat), so nothing polls. A ``keepalive`` line
goes out whenever nothing happened for ``stream_keepalive_s``; an ``end``
line closes the stream once the game has ended and its seed is public.
Each event is redacted against the state right after it, so a seat never
sees in the stream more than it would in a page. With ``?views=true`` a
``view`` line (the viewer's whole view, as ``GET /games/{id}`` answers it)
follows each batch of events, so a table never polls for its view. A
``message`` line carries each preset message said at the table while the
stream is open (:mod:`.messages`); the same wait wakes for both.

Open streams are capped per client address, per seat, per game's
spectators and per process, with a share of the process kept for seats
(:mod:`.streamcaps`); a refused stream's 429 tells the client to poll its
view meanwhile. In a deployment they are served by the stream
server (``service.streams``), whose evented workers hold no thread per
stream. A client that stops taking its lines is dropped (it resumes with
``after``), so it holds no one else.

A page of an ended game is a slice of the game's kept events answer
(:mod:`service.answers`), served with an ``ETag`` and ``Cache-Control:
public, max-age=31536000, immutable`` like its replay; a running game's
page is read and redacted from the stream. Large pages, and a stream's
catch-up, are charged to the client address's ``reads`` budget by their
size (:func:`.limits.charge_events`).
"""

from __future__ import annotations

import json

from flask import Blueprint, Response, current_app, request

from schemas.api import EventOut, EventsQuery, StreamQuery
from service.answers import IMMUTABLE, ended_answer
from service.bodies import event_json
from service.engines import table
from service.hub import Signal
from service.parking.stream import Lines

from .http import bearer_token, query, reply, service
from .limits import charge_events
from .live import NDJSON, LiveResponse, finished, limit_writes, live_body, open_game, process_hub
from .streamcaps import StreamSlots

bp = Blueprint("events", __name__)


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
            if q_stream.after is not None:  # the catch-up is a page of events
                charge_events(max(state.version - q_stream.after, 0))
            if seat is not None and table.is_away(state, seat):
                svc.seat_present(game_id, seat, state)
                # its follow-up now, not when this stream closes
                svc.runtime.enqueue_followup(game_id, state.version + 1)
                state = svc.load(game_id)
            write_timeout_s = svc.runtime.settings.stream_write_timeout_s
            limit_writes(request.environ, write_timeout_s)
            hub, opened = process_hub(svc), state

            def start(signal: Signal) -> tuple[str, Lines | None]:
                after, views = q_stream.after, q_stream.views
                return open_game(svc, hub, opened, seat, after, keepalive_ms, views, signal)

            # its opening now: Redis failing there is this request's 503
            response = LiveResponse(live_body(keepalive_ms, write_timeout_s, start))
        except BaseException:
            slots.release(address, game_id, seat)
            raise
        response.call_on_close(lambda: slots.release(address, game_id, seat))
        return response
    q = query(EventsQuery)
    state = svc.load(game_id)
    if finished(state):
        kept = ended_page(game_id, state.kind, state.version, q.after, q.limit)
        if kept is not None:
            return kept
    charge_events(min(max(state.version - q.after, 0), q.limit))
    state, stored = svc.events(game_id, q.after, q.limit, state)
    shown = [
        # written as an ended game's kept events are (service.answers.events_lines)
        EventOut.model_validate(
            event_json(s.version, table.redact(state, s.event, seat), s.at_ms)
        ).model_dump(exclude_unset=True)
        for s in stored
    ]
    more = bool(stored) and stored[-1].version < state.version
    page = {
        "game_id": game_id,
        "game": state.kind,
        "version": state.version,
        "events": shown,
        "next_after": stored[-1].version if more else None,
    }
    return reply(page)  # a schemas.api.EventsPage, as the generated-client test reads it


def ended_page(game_id: str, game: str, version: int, after: int, limit: int) -> Response | None:
    """The page of an ended game cut from its kept events answer, written as
    :data:`schemas.api.EventsPage` would be; ``None`` when none fits the game's version."""
    hit = ended_answer(service().store, game_id, "events")
    if hit is None:
        return None
    etag, text = hit
    lines = text.split("\n") if text else []
    if not _versions_1_to(lines, version):
        return None
    shown = lines[after : after + limit]
    charge_events(len(shown), kept=True)
    more = after + len(shown) < version and bool(shown)
    tag = f'{etag[:-1]}.{after}.{limit}"'
    headers = {"ETag": tag, "Cache-Control": IMMUTABLE}
    if request.if_none_match.contains_weak(tag.strip('"')):
        return Response(status=304, headers=headers)
    body = (
        f'{{"game_id":{json.dumps(game_id)},"game":{json.dumps(game)},"version":{version},'
        f'"events":[{",".join(shown)}],"next_after":{after + len(shown) if more else "null"}}}'
    )
    return Response(body, mimetype="application/json", headers=headers)


def _versions_1_to(lines: list[str], version: int) -> bool:
    """Whether ``lines`` hold versions 1..``version`` (N lines of increasing versions,
    the first 1 and the last N), so that version ``v`` is line ``v - 1``."""
    return (
        len(lines) == version
        and (not lines or lines[0].startswith('{"version":1,'))
        and (not lines or lines[-1].startswith(f'{{"version":{version},'))
    )
