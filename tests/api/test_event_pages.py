"""What a page of events costs: an ended game's pages come from its kept events
answer (built once, immutable, cached by ETag, written as the stream's pages are),
and large pages and a stream's catch-up are charged to the ``reads`` budget."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

import service.answers as answers
from service.api import events as events_view
from service.api import limits
from service.config import load_settings
from service.games import GameService
from tests.testredis import client_of

from .conftest import make_app
from .helpers import Api, bearer
from .test_events import finish_hazari

NDJSON = {"Accept": "application/x-ndjson"}


def ended_hazari(api: Api, service: GameService) -> tuple[str, list[str]]:
    tab = api.table("hazari", {"target": 360})
    finish_hazari(api, service, tab.game_id, tab.tokens)
    assert service.load(tab.game_id).server_seed is not None
    return tab.game_id, tab.tokens


def count_reads(service: GameService, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many events each ``store.read`` of the stream returned."""
    reads: list[int] = []
    real = service.store.read

    def spy(*args: Any, **kwargs: Any) -> Any:
        got = real(*args, **kwargs)
        reads.append(len(got))
        return got

    monkeypatch.setattr(service.store, "read", spy)
    return reads


def test_an_ended_games_pages_are_its_kept_answer_as_the_stream_writes_them(
    api: Api, client: FlaskClient, service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    gid, tokens = ended_hazari(api, service)
    version = service.load(gid).version
    client_of(service.store).delete(answers.events_key(gid))  # as a game ended before it was kept
    queries = ["", "?limit=1000", f"?after=3&limit={version}", "?after=5&limit=7"]
    queries += [f"?after={version - 2}", f"?after={version}", f"?after={version + 9}"]
    seen: dict[tuple[str, str | None], bytes] = {}
    for token in (None, tokens[2]):
        for q in queries:
            r = client.get(f"/games/{gid}/events{q}", headers=bearer(token))
            assert r.status_code == 200 and r.mimetype == "application/json"
            assert r.headers["Cache-Control"] == "public, max-age=31536000, immutable"
            seen[q, token] = r.data
    assert client_of(service.store).exists(answers.events_key(gid))
    reads = count_reads(service, monkeypatch)
    again = client.get(f"/games/{gid}/events?after=5&limit=7")
    assert again.data == seen["?after=5&limit=7", None] and reads == []  # no stream read
    # the same pages read and redacted from the stream, as a running game's are
    monkeypatch.setattr(events_view, "ended_answer", lambda *_: None)
    for (q, token), body in seen.items():
        r = client.get(f"/games/{gid}/events{q}", headers=bearer(token))
        assert "ETag" not in r.headers
        assert r.data == body, (q, token)
    page = client.get(f"/games/{gid}/events?after=5&limit=7").get_json()
    assert [e["version"] for e in page["events"]] == list(range(6, 13))
    assert page["next_after"] == 12 and page["version"] == version


def test_an_ended_games_page_has_an_etag_per_page(
    api: Api, client: FlaskClient, service: GameService
) -> None:
    gid, _ = ended_hazari(api, service)
    first = client.get(f"/games/{gid}/events?after=2&limit=5")
    tag = first.headers["ETag"]
    cached = client.get(f"/games/{gid}/events?after=2&limit=5", headers={"If-None-Match": tag})
    assert cached.status_code == 304 and cached.data == b""
    other = client.get(f"/games/{gid}/events?after=3&limit=5", headers={"If-None-Match": tag})
    assert other.status_code == 200 and other.headers["ETag"] != tag


def test_a_running_games_pages_are_read_from_the_stream_and_not_cached(
    api: Api, client: FlaskClient, service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    tab = api.table("murlan")
    reads = count_reads(service, monkeypatch)
    r = client.get(f"/games/{tab.game_id}/events")
    assert r.status_code == 200 and reads == [len(r.get_json()["events"])]
    assert "ETag" not in r.headers and "immutable" not in r.headers.get("Cache-Control", "")
    assert not client_of(service.store).exists(answers.events_key(tab.game_id))


@pytest.fixture
def reads_of_5(monkeypatch: pytest.MonkeyPatch) -> Api:
    """An app whose ``reads`` budget is 5 a minute, charging one read per 2 events
    (the real 100 made small, so that a short game has large pages)."""
    monkeypatch.setattr(limits, "EVENTS_PER_READ", 2)
    app = make_app(load_settings(limit_reads="5/minute", rate_limit="100000/second"))
    return Api(app.test_client(), app.extensions["cardroom"])


def test_large_pages_of_a_running_game_are_charged_by_their_size(reads_of_5: Api) -> None:
    api, client = reads_of_5, reads_of_5.client
    gid = api.table("murlan").game_id
    assert client.get(f"/games/{gid}/events?limit=4").status_code == 200  # 2 reads
    for _ in range(5):  # a page of one event costs no read
        assert client.get(f"/games/{gid}/events?limit=1").status_code == 200
    assert client.get(f"/games/{gid}/events?after=2&limit=5").status_code == 200  # 2 more
    refused = client.get(f"/games/{gid}/events?limit=4")
    assert refused.status_code == 429 and refused.mimetype == "application/problem+json"
    assert refused.get_json()["budget"] == "reads" and int(refused.headers["Retry-After"]) >= 1
    assert client.get(f"/games/{gid}/events?limit=2").status_code == 200  # the last read
    assert client.get(f"/games/{gid}/replay").status_code == 429  # the same budget
    assert client.get(f"/games/{gid}/events", headers=NDJSON).status_code == 200  # no catch-up
    caught_up = client.get(f"/games/{gid}/events?after=0", headers=NDJSON)
    assert caught_up.status_code == 429 and caught_up.get_json()["budget"] == "reads"
    other = {"REMOTE_ADDR": "10.9.8.7"}
    assert client.get(f"/games/{gid}/events?limit=4", environ_base=other).status_code == 200


def test_a_kept_page_costs_one_read_as_a_replay_does(reads_of_5: Api) -> None:
    api, client = reads_of_5, reads_of_5.client
    gid, _ = ended_hazari(api, api.service)
    other = {"REMOTE_ADDR": "10.9.8.7"}  # the game was played from the default address
    codes = [
        client.get(f"/games/{gid}/events?limit=1000", environ_base=other).status_code
        for _ in range(6)
    ]
    assert codes == [200] * 5 + [429]
    assert client.get(f"/games/{gid}/events?limit=1", environ_base=other).status_code == 200


def test_a_page_larger_than_the_whole_budget_takes_all_of_it(
    reads_of_5: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "EVENTS_PER_READ", 1)
    api, client = reads_of_5, reads_of_5.client
    gid = api.table("murlan").game_id
    assert api.service.load(gid).version > 5  # more reads' worth of events than the budget
    assert client.get(f"/games/{gid}/events?limit=1000").status_code == 200
    assert client.get(f"/games/{gid}/events?limit=1").status_code == 429
