"""The append script queues deliveries in the step that appends their event,
and a worker's delivery ends, retries or expires as documented (on fakeredis,
with a stand-in for the network)."""

from __future__ import annotations

from dataclasses import dataclass, field

import fakeredis
import pytest

from service.config import load_settings
from service.engines import table
from service.store import Append, EventStore, Hooks, keys
from service.store.hooks import Subscription
from service.webhooks.delivery import Deliverer
from service.webhooks.outbound import Attempt, Outbound


@pytest.fixture
def store() -> EventStore:
    made = EventStore(fakeredis.FakeRedis())
    made.append("g1", [table.GameCreated("g1", "azi", {}, 2, "c" * 64)], 0)
    return made


def sub(hook: str, seat: int, events: tuple[str, ...], state: str = "on") -> Subscription:
    info = {"url": f"https://public.test/{hook}", "secret": "whsec_x", "created_at": 0}
    return Subscription(hook, seat, events, state, info)


def append(store: EventStore, notices: tuple[str, ...]) -> tuple[str, ...]:
    version = store.version("g1")
    event = table.TurnTimedOut(seat=0, after_s=1.0)
    result = store.write(Append("g1", version, events=[event], hooks=Hooks(notices)))
    return result.queued


def test_the_append_queues_one_delivery_per_subscription_that_wants_it(store: EventStore) -> None:
    hooks = store.hooks
    assert hooks.subscribe("g1", sub("aa", 0, ("turn_started", "hand_ended")), 16, 2) == 1
    assert hooks.subscribe("g1", sub("bb", 1, ("turn_started",)), 16, 2) == 1
    assert hooks.subscribe("g1", sub("cc", 1, ("hand_ended",), "paused"), 16, 2) == 1
    queued = append(store, ("turn_started:0:60000", "hand_ended:*:"))
    version = store.version("g1")
    assert sorted(queued) == [f"aa.{version}.hand_ended", f"aa.{version}.turn_started"]
    record = hooks.record("g1", f"aa.{version}.turn_started")
    assert record is not None and (record.seat, record.version) == (0, version)
    assert record.deadline_ms == record.at_ms + 60_000
    other = hooks.record("g1", f"aa.{version}.hand_ended")
    assert other is not None and other.deadline_ms is None
    assert all(hooks.is_due("g1", i) for i in queued)
    assert hooks.log("g1", 10)[0] in queued


def test_an_append_without_notices_touches_no_hook_key(store: EventStore) -> None:
    store.hooks.subscribe("g1", sub("aa", 0, ("turn_started",)), 16, 2)
    version = store.version("g1")
    result = store.write(Append("g1", version, events=[table.TurnTimedOut(seat=0, after_s=1.0)]))
    assert result.queued == ()
    assert store.hooks.log("g1", 10) == []


def test_the_games_end_ends_its_subscriptions(store: EventStore) -> None:
    store.hooks.subscribe("g1", sub("aa", 0, ("game_ended",)), 16, 2)
    store.hooks.subscribe("g1", sub("bb", 1, ("turn_started",), "paused"), 16, 2)
    assert len(append(store, ("game_ended:*:",))) == 1
    assert {s.state for s in store.hooks.subscriptions("g1")} == {"ended"}
    assert append(store, ("game_ended:*:",)) == ()


def test_the_budgets_of_a_game_and_a_seat(store: EventStore) -> None:
    assert store.hooks.subscribe("g1", sub("a1", 0, ("turn_started",)), 3, 2) == 1
    assert store.hooks.subscribe("g1", sub("a2", 0, ("turn_started",)), 3, 2) == 1
    assert store.hooks.subscribe("g1", sub("a3", 0, ("turn_started",)), 3, 2) == -1
    assert store.hooks.subscribe("g1", sub("b1", 1, ("turn_started",)), 3, 2) == 1
    assert store.hooks.subscribe("g1", sub("b2", 1, ("turn_started",)), 3, 2) == 0


@dataclass
class Network(Outbound):
    """The network, stood in for: every attempt answers ``status``."""

    status: int = 500
    sent: list[tuple[str, bytes, dict[str, str]]] = field(default_factory=list)

    def send(self, url: str, body: bytes, headers: dict[str, str]) -> Attempt:
        self.sent.append((url, body, headers))
        return Attempt(self.status, 0.001, b"no")


def deliverer(store: EventStore, network: Network, **settings: object) -> Deliverer:
    return Deliverer(store, load_settings(**settings), network)


def queue_one(store: EventStore, notice: str, events: tuple[str, ...]) -> tuple[str, int]:
    store.hooks.subscribe("g1", sub("aa", 0, events), 16, 2)
    (delivery_id,) = append(store, (notice,))
    record = store.hooks.record("g1", delivery_id)
    assert record is not None
    return delivery_id, record.at_ms


def test_a_stale_claim_sends_nothing(store: EventStore) -> None:
    delivery_id, at_ms = queue_one(store, "hand_ended:*:", ("hand_ended",))
    network = Network(status=200)
    assert deliverer(store, network).run("g1", delivery_id, at_ms - 1) is None
    assert network.sent == []
    assert deliverer(store, network).run("g1", delivery_id, at_ms) == "delivered"
    assert deliverer(store, network).run("g1", delivery_id, at_ms) is None  # once
    assert len(network.sent) == 1 and not store.hooks.is_due("g1", delivery_id)


def test_turn_started_retries_stop_at_the_turns_deadline(store: EventStore) -> None:
    delivery_id, at_ms = queue_one(store, "turn_started:0:1000", ("turn_started",))
    network = Network(status=500)
    outcome = deliverer(store, network, webhook_retry_base_s=5).run("g1", delivery_id, at_ms)
    assert outcome == "expired"  # the first retry would fall past the 1 s turn
    state = store.hooks.state("g1", delivery_id)
    assert state is not None and len(state["attempts"]) == 1 and state["next_at"] is None
    assert not store.hooks.is_due("g1", delivery_id)


def test_other_events_are_retried_within_the_window(store: EventStore) -> None:
    delivery_id, at_ms = queue_one(store, "hand_ended:*:", ("hand_ended",))
    network = Network(status=500)
    run = deliverer(store, network, webhook_retry_base_s=5, webhook_retry_window_s=3600)
    assert run.run("g1", delivery_id, at_ms) == "retrying"
    state = store.hooks.state("g1", delivery_id)
    assert state is not None
    assert 5000 <= state["next_at"] - state["attempts"][0]["at"] <= 7500
    short = deliverer(store, network, webhook_retry_base_s=5, webhook_retry_window_s=1)
    # pretend it fell due: the next failure's retry would pass the window
    store.hooks.schedule("g1", delivery_id, state["next_at"] - 10_000)
    assert short.run("g1", delivery_id, state["next_at"] - 10_000) == "failed"


def test_a_deleted_subscriptions_delivery_is_dropped(store: EventStore) -> None:
    delivery_id, at_ms = queue_one(store, "hand_ended:*:", ("hand_ended",))
    store.hooks.remove("g1", "aa")
    network = Network(status=200)
    assert deliverer(store, network).run("g1", delivery_id, at_ms) == "dropped"
    assert network.sent == []


def test_the_retention_pass_removes_a_games_hook_keys() -> None:
    from service.retention import game_keys

    assert set(keys.hook_keys("g1")) <= set(game_keys("g1"))
