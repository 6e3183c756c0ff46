"""``/metrics`` and the one-JSON-line-per-request log."""

from __future__ import annotations

import json

import pytest

from .helpers import Api


def metric(text: str, name: str, **labels: str) -> float:
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        if all(f'{k}="{v}"' in line for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_metrics_count_moves_by_outcome_and_reason(api: Api) -> None:
    table = api.table("murlan")
    before = api.client.get("/metrics").get_data(as_text=True)
    view = api.view(table.game_id, table.tokens[0])
    seat = view["to_act"][0]
    token = table.tokens[seat]
    other = table.tokens[(seat + 1) % 4]
    assert api.move(table.game_id, other, {"action": "pass"}).status_code == 422
    legal = api.view(table.game_id, token)["legal_moves"][0]
    assert api.move(table.game_id, token, legal).status_code == 201
    after = api.client.get("/metrics")
    assert after.status_code == 200 and after.mimetype == "text/plain"
    text = after.get_data(as_text=True)
    accepted = dict(game="murlan", outcome="accepted")
    assert metric(text, "cardroom_moves_total", **accepted) == (
        metric(before, "cardroom_moves_total", **accepted) + 1
    )
    rejected = dict(game="murlan", outcome="rejected", reason="not_your_turn")
    assert metric(text, "cardroom_moves_total", **rejected) == (
        metric(before, "cardroom_moves_total", **rejected) + 1
    )
    assert metric(text, "cardroom_append_seconds_count") > metric(
        before, "cardroom_append_seconds_count"
    )
    assert "cardroom_queue_depth" in text and "cardroom_projection_lag_events" in text


def test_each_request_logs_one_json_line_without_secrets(
    api: Api, capfd: pytest.CaptureFixture[str]
) -> None:
    table = api.table("hazari")
    capfd.readouterr()
    view = api.view(table.game_id, table.tokens[0])
    api.move(table.game_id, table.tokens[0], view["legal_moves"][0])
    err = capfd.readouterr().err
    lines = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    requests = [line for line in lines if line.get("msg") == "request"]
    assert [r["status"] for r in requests] == [200, 201]
    move = requests[1]
    assert move["game_id"] == table.game_id and move["version"] > 0
    assert move["duration_ms"] >= 0 and move["outcome"] == "ok"
    for token in table.tokens:
        assert token not in err
    for card in view["hand"]:
        assert f'"{card}"' not in err


def test_moves_are_counted_with_the_request_log_off(
    api: Api, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """Below INFO the request log line is not even built; the metrics still count."""
    table = api.table("murlan")
    seat = api.view(table.game_id)["to_act"][0]
    legal = api.view(table.game_id, table.tokens[seat])["legal_moves"][0]
    before = api.client.get("/metrics").get_data(as_text=True)
    capfd.readouterr()
    caplog.clear()
    with caplog.at_level("WARNING", logger="cardroom.http"):
        assert api.move(table.game_id, table.tokens[seat], legal).status_code == 201
    assert not [r for r in caplog.records if r.name == "cardroom.http"]
    assert '"msg": "request"' not in capfd.readouterr().err
    text = api.client.get("/metrics").get_data(as_text=True)
    accepted = dict(game="murlan", outcome="accepted")
    assert metric(text, "cardroom_moves_total", **accepted) == (
        metric(before, "cardroom_moves_total", **accepted) + 1
    )


def test_live_streams_are_counted_open_and_refused() -> None:
    """``cardroom_streams_open`` goes up and down with each stream; a refusal counts
    under its cap's scope and opens nothing."""
    from prometheus_client import REGISTRY

    from service.api.streamcaps import StreamSlots, TooManyStreams

    def open_(kind: str) -> float:
        return REGISTRY.get_sample_value("cardroom_streams_open", {"kind": kind}) or 0.0

    def refused(scope: str) -> float:
        labels = {"scope": scope}
        return REGISTRY.get_sample_value("cardroom_streams_refused_total", labels) or 0.0

    slots = StreamSlots(per_address=2, per_game=10, total=10)
    seats, spectators, by_address = open_("seat"), open_("spectator"), refused("address")
    slots.acquire("a", "g1", 0)
    slots.acquire("a", "g1")
    assert (open_("seat"), open_("spectator")) == (seats + 1, spectators + 1)
    with pytest.raises(TooManyStreams):
        slots.acquire("a", "g1")
    assert refused("address") == by_address + 1
    assert open_("spectator") == spectators + 1
    slots.release("a", "g1", 0)
    slots.release("a", "g1")
    assert (open_("seat"), open_("spectator")) == (seats, spectators)
