"""GET /games/{id}/events: pages by version, and the live NDJSON stream."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from service.games import GameService

from .helpers import Api, bearer, ndjson

NDJSON = {"Accept": "application/x-ndjson"}


def finish_hazari(api: Api, service: GameService, gid: str, tokens: list[str]) -> None:
    while True:
        service.advance(gid)
        view = api.view(gid)
        if view["status"] == "ended":
            return
        for seat in view["to_act"]:
            mine = api.view(gid, tokens[seat])
            r = api.move(gid, tokens[seat], mine["legal_moves"][0])
            assert r.status_code == 201


def test_pages_follow_versions(api: Api, client: FlaskClient) -> None:
    tab = api.table("murlan")
    version = api.service.store.version(tab.game_id)
    r = client.get(f"/games/{tab.game_id}/events?after=2&limit=3")
    page = r.get_json()
    assert [e["version"] for e in page["events"]] == [3, 4, 5]
    assert page["next_after"] == 5 and page["version"] == version
    assert all(isinstance(e["at_ms"], int) for e in page["events"])
    last = client.get(f"/games/{tab.game_id}/events?after={version}").get_json()
    assert last["events"] == [] and last["next_after"] is None


def test_events_are_redacted_per_viewer(api: Api) -> None:
    tab = api.table("murlan")
    (public_deal,) = [e for e in api.events(tab.game_id) if e["type"] == "HandDealt"]
    assert all(c == "??" for hand in public_deal["hands"] for c in hand)
    (mine,) = [e for e in api.events(tab.game_id, tab.tokens[1]) if e["type"] == "HandDealt"]
    assert "??" not in mine["hands"][1]
    assert all(c == "??" for seat, h in enumerate(mine["hands"]) if seat != 1 for c in h)


def test_event_query_errors(api: Api, client: FlaskClient) -> None:
    gid = api.create("murlan")["game_id"]
    assert client.get(f"/games/{gid}/events?after=-1").get_json()["field"] == "after"
    assert client.get(f"/games/{gid}/events?limit=0").get_json()["field"] == "limit"
    assert client.get("/games/none/events").status_code == 404
    assert client.get(f"/games/{gid}/events", headers=bearer("nope")).status_code == 403


def read_lines(client: FlaskClient, url: str, headers: dict[str, str], until: int) -> list[Any]:
    r = client.get(url, headers=headers, buffered=False)
    assert r.status_code == 200 and r.mimetype == "application/x-ndjson"
    lines: list[Any] = []
    for chunk in r.iter_encoded():
        lines.extend(ndjson(chunk))
        if len(lines) >= until:
            break
    r.close()
    return lines


def test_stream_of_an_ended_game_sends_everything_then_closes(
    api: Api, client: FlaskClient, service: GameService
) -> None:
    tab = api.table("hazari", {"target": 360})
    finish_hazari(api, service, tab.game_id, tab.tokens)
    r = client.get(f"/games/{tab.game_id}/events?after=0", headers=NDJSON)
    lines = ndjson(r.data)
    assert lines[0]["kind"] == "view" and lines[0]["view"]["status"] == "ended"
    events = [line for line in lines if line["kind"] == "event"]
    assert [e["version"] for e in events] == list(range(1, lines[0]["version"] + 1))
    assert lines[-1]["kind"] == "end"


def test_stream_resumes_after_a_version_and_keeps_alive(
    api: Api, client: FlaskClient, settings: Any
) -> None:
    tab = api.table("murlan")
    url = f"/games/{tab.game_id}/events?after=3"
    lines = read_lines(client, url, {**NDJSON, **bearer(tab.tokens[0])}, until=6)
    view, *rest = lines
    assert view["kind"] == "view" and view["view"]["seat"] == 0 and "hand" in view["view"]
    versions = [line["version"] for line in rest if line["kind"] == "event"]
    assert versions == list(range(4, view["version"] + 1))
    assert rest[-1]["kind"] == "keepalive"  # nothing else happens: 0.2 s later, a keep-alive


def test_star_accept_gets_the_page(api: Api, client: FlaskClient) -> None:
    gid = api.create("murlan")["game_id"]
    r = client.get(f"/games/{gid}/events", headers={"Accept": "*/*"})
    assert r.mimetype == "application/json"
