"""GET /games/{id}/replay and /verify."""

from __future__ import annotations

from flask.testing import FlaskClient

from service.games import GameService

from .helpers import Api, bearer
from .test_events import finish_hazari


def test_replay_and_verify_before_and_after_the_end(
    api: Api, client: FlaskClient, service: GameService
) -> None:
    tab = api.table("hazari", {"target": 360})
    gid = tab.game_id
    early = client.get(f"/games/{gid}/replay", headers=bearer(tab.tokens[0])).get_json()
    assert early["format"] == "cardroom-replay-v1" and early["server_seed"] is None
    hands = early["deals"][0]["hands"]
    assert "??" not in hands["0"] and set(hands["1"]) == {"??"}
    pending = client.get(f"/games/{gid}/verify").get_json()
    assert pending["verified"] is None
    finish_hazari(api, service, gid, tab.tokens)
    replay = client.get(f"/games/{gid}/replay").get_json()
    assert service.store.get_secret(gid) is None  # revealed: the stored copy is gone
    assert replay["server_seed"] == service.load(gid).server_seed is not None
    assert all("??" not in h for deal in replay["deals"] for h in deal["hands"].values())
    moves = [e for e in replay["events"] if "move" in e]
    assert moves and all(e["move"]["action"] == "arrange" for e in moves)
    verdict = client.get(f"/games/{gid}/verify").get_json()
    assert verdict["verified"] is True and verdict["server_seed"] == replay["server_seed"]


def test_replay_errors(api: Api, client: FlaskClient) -> None:
    gid = api.create("murlan")["game_id"]
    assert client.get("/games/none/replay").status_code == 404
    assert client.get("/games/none/verify").status_code == 404
    assert client.get(f"/games/{gid}/replay", headers=bearer("bad")).status_code == 403
