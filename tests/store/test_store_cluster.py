"""What only a Redis Cluster (or a replica) can show: slots, node failures, WAIT.

The contract suite already runs on the session's 3-master cluster; these
tests check the cluster-specific promises: a game's keys and each index
shard live in one slot, games and shards spread over every master, long
blocking reads survive the cluster client's socket timeout, racing writers
still land one event per version, ``redis+cluster://`` URLs, and appends
that wait for a replica (``WAIT``) through a master's failover.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
import redis
from redis.crc import key_slot

from service.config import load_settings
from service.devstack import LocalCluster, free_port, start_cluster, start_standalone
from service.engines import table
from service.runtime import Runtime, connect
from service.store import AppendResult, EventStore, keys
from service.store.clients import require_replicas
from service.store.errors import NotReplicated, VersionConflict
from tests.store.helpers import created, timeouts
from tests.store.test_store_race import run_threads

pytestmark = pytest.mark.cluster


def ids_on_each_master(cluster: LocalCluster, prefix: str) -> dict[int, str]:
    """One game id per master (port → id), found by asking the cluster."""
    found: dict[int, str] = {}
    masters = set(cluster.slot_owners())
    i = 0
    while set(found) != masters:
        game_id = f"{prefix}{i}"
        found.setdefault(cluster.owner_of(keys.events(game_id)), game_id)
        i += 1
    return found


# -- slots ------------------------------------------------------------------------------
def test_a_games_keys_and_an_index_shard_each_live_on_one_node(
    redis_cluster: LocalCluster, cluster_redis: redis.RedisCluster
) -> None:
    store = EventStore(cluster_redis)
    by_master = ids_on_each_master(redis_cluster, "slot-")
    for port, game_id in by_master.items():
        store.put_secret(game_id, b"s" * 32)
        store.append(game_id, [created(game_id)], 0, idempotency_key="k")
        store.put_token(game_id, 0, "aa" * 32)
        store.save_snapshot(game_id, table.fold([created(game_id)]))
        names = [keys.events(game_id), keys.snapshot(game_id), keys.idem(game_id, "k")]
        names += [keys.secret(game_id), keys.tokens(game_id)]
        with redis_cluster.server(port).client() as node:
            slots = {int(node.execute_command("CLUSTER KEYSLOT", n)) for n in names}
            assert slots == {key_slot(names[0].encode())}
            assert all(node.exists(n) for n in names)  # on that master, not elsewhere
    shard_owners = {
        redis_cluster.owner_of(keys.index_meta(shard)) for shard in range(keys.INDEX_SHARDS)
    }
    assert shard_owners == set(redis_cluster.slot_owners()), "index shards on every master"


def test_listing_reads_every_shard_on_every_master(cluster_redis: redis.RedisCluster) -> None:
    store = EventStore(cluster_redis)
    pipe = cluster_redis.pipeline(transaction=False)  # type: ignore[no-untyped-call]
    for i in range(60):
        store.index_game(f"list-{i:02d}", "azi", "playing", 1_700_000_000_000 + i, pipe=pipe)
    pipe.execute()
    listed, cursor = [], None
    while True:
        items, cursor = store.list_games(status="playing", limit=7, cursor=cursor)
        listed += [item.game_id for item in items]
        if cursor is None:
            break
    assert listed == [f"list-{i:02d}" for i in reversed(range(60))]


# -- blocking reads and races ------------------------------------------------------------
def test_a_wait_longer_than_the_socket_timeout_still_works(redis_cluster: LocalCluster) -> None:
    client = redis_cluster.client(socket_timeout=1)
    store = EventStore(client)
    store.append("slow", [created("slow")], 0)
    started = time.monotonic()
    assert store.wait("slow", after=1, timeout_ms=2_500) == []
    assert 2.4 <= time.monotonic() - started < 5
    timer = threading.Timer(1.5, lambda: store.append("slow", timeouts(1), 1))
    timer.start()
    try:
        got = store.wait("slow", after=1, timeout_ms=5_000)
    finally:
        timer.join()
    assert [s.version for s in got] == [2]
    client.close()


def test_racing_writers_on_the_cluster_land_one_event_per_version(
    cluster_redis: redis.RedisCluster,
) -> None:
    store = EventStore(cluster_redis)
    store.append("race", [created("race")], 0)
    writers, each = 8, 10

    def writer(i: int) -> None:
        mine = 0
        while mine < each:
            seen = store.version("race")
            try:
                store.append("race", [table.TurnTimedOut(seat=i, after_s=float(mine))], seen)
            except VersionConflict:
                continue
            mine += 1

    run_threads(writer, writers)
    stored = store.read("race")
    assert [s.version for s in stored] == list(range(1, writers * each + 2))
    for i in range(writers):
        mine = [s.event for s in stored[1:] if s.event.seat == i]  # type: ignore[attr-defined]
        assert [e.after_s for e in mine] == [float(n) for n in range(each)]  # type: ignore[attr-defined]


# -- configuration ---------------------------------------------------------------------------
def test_a_cluster_url_may_list_seeds_some_of_them_down(redis_cluster: LocalCluster) -> None:
    dead = free_port()
    url = f"redis+cluster://127.0.0.1:{dead},127.0.0.1:{redis_cluster.servers[1].port}"
    settings = load_settings(redis_url=url, queue_url="redis://127.0.0.1:1/0")
    assert settings.redis_cluster
    runtime = Runtime.from_settings(settings)
    assert isinstance(runtime.redis, redis.RedisCluster)
    assert len(runtime.redis.get_primaries()) == 3  # type: ignore[no-untyped-call]
    assert EventStore(runtime.redis).version("nobody") == 0
    with pytest.raises(ValueError, match="CARDROOM_QUEUE_URL"):
        Runtime.from_settings(load_settings(redis_url=url))
    plain = connect(f"redis://127.0.0.1:{redis_cluster.servers[0].port}", cluster=True)
    assert isinstance(plain, redis.RedisCluster)
    runtime.redis.close()
    plain.close()


# -- waiting for replicas ------------------------------------------------------------------
@pytest.fixture
def primary_and_replica() -> Iterator[tuple[LocalCluster, LocalCluster]]:
    primary = start_standalone()
    replica = start_standalone("--replicaof", "127.0.0.1", str(primary.servers[0].port))
    try:
        with replica.servers[0].client() as client:
            deadline = time.monotonic() + 20
            while client.info("replication").get("master_link_status") != "up":
                assert time.monotonic() < deadline, "the replica did not sync"
                time.sleep(0.05)
        yield primary, replica
    finally:
        replica.stop()
        primary.stop()


def test_appends_wait_for_a_replica_and_say_when_none_confirmed(
    primary_and_replica: tuple[LocalCluster, LocalCluster],
) -> None:
    primary, replica = primary_and_replica
    settings = load_settings(
        redis_url=primary.url, redis_wait_replicas=1, redis_wait_timeout_ms=300
    )
    from_settings = EventStore(Runtime.from_settings(settings).redis)
    assert (from_settings.wait_replicas, from_settings.wait_timeout_ms) == (1, 300)
    client = primary.servers[0].client()
    require_replicas(client, 1, 300)  # what CARDROOM_REDIS_WAIT_REPLICAS=1 does above
    store = EventStore(client)
    assert (store.wait_replicas, store.wait_timeout_ms) == (1, 300)
    assert store.append("w", [created("w")], 0) == AppendResult(1, 1)
    with replica.servers[0].client() as on_replica:
        assert on_replica.xlen(keys.events("w")) == 1  # WAIT returned: the replica has it

    replica.servers[0].kill()
    started = time.monotonic()
    with pytest.raises(NotReplicated) as info:
        store.append("w", timeouts(2), 1, idempotency_key="k")
    assert time.monotonic() - started >= 0.25
    assert (info.value.first_version, info.value.last_version) == (2, 3)
    assert (info.value.acked, info.value.wanted) == (1 - 1, 1)
    assert store.version("w") == 3  # on the master, unconfirmed
    with pytest.raises(NotReplicated):  # a retry cannot confirm it either, nor land it twice
        store.append("w", timeouts(2), 1, idempotency_key="k")
    assert store.version("w") == 3
    assert EventStore(client, wait_replicas=0).append("w", timeouts(1), 3) == AppendResult(4, 4)
    client.close()


@pytest.mark.timeout(120)
def test_acknowledged_appends_survive_a_failover_when_they_waited_for_a_replica() -> None:
    """Kill a master while games on it and on the others keep appending.

    Every append that returned is still there after its replica took over;
    the failures in between are errors the client sees (and retries with
    the same idempotency key), never a silent loss.
    """
    cluster = start_cluster(3, 1, node_timeout_ms=1000)
    try:
        client = cluster.client()
        store = EventStore(client, wait_replicas=1, wait_timeout_ms=500)
        games = ids_on_each_master(cluster, "fo-")
        acked: dict[str, list[int]] = {game_id: [] for game_id in games.values()}
        for game_id in games.values():
            store.append(game_id, [created(game_id)], 0)

        def append_one(game_id: str, n: int, deadline: float) -> str:
            """Append event ``n`` (version n + 1) as a client would: retrying
            with one idempotency key until it is acknowledged."""
            outcome = "ok"
            while time.monotonic() < deadline:
                try:
                    store.append(game_id, timeouts(1, start=n), n, idempotency_key=f"e{n}")
                except NotReplicated:
                    outcome = "unconfirmed"  # stored on a master with no replica left
                    break
                except redis.RedisError:
                    outcome = "retried"
                    time.sleep(0.1)
                    continue
                acked[game_id].append(n)
                return outcome
            return outcome

        def acknowledged(game_id: str, n: int, deadline: float) -> None:
            """Event ``n`` is acknowledged by the deadline: at once, or after retries
            through errors a loaded cluster can give (a timeout, a topology change)."""
            outcome = append_one(game_id, n, deadline)
            assert outcome in ("ok", "retried") and acked[game_id][-1:] == [n], outcome

        victim_port, victim_game = next(iter(games.items()))
        for n in range(1, 6):
            for game_id in games.values():
                acknowledged(game_id, n, time.monotonic() + 10)
        cluster.server(victim_port).kill()
        outcomes = []
        deadline = time.monotonic() + 40
        n = 6
        # Keep writing to the victim's game until its replica serves it.
        while cluster.owner_of(keys.events(victim_game)) == victim_port:
            assert time.monotonic() < deadline, "no failover"
            outcomes.append(append_one(victim_game, n, time.monotonic() + 2))
            if acked[victim_game][-1:] == [n]:
                n += 1
        for game_id in games.values():
            if game_id != victim_game:
                # The other masters may refuse writes for a moment while the cluster
                # agrees on the failover.
                acknowledged(game_id, len(acked[game_id]) + 1, deadline)
        # The promoted replica has no replica of its own: appends land but
        # cannot be confirmed until the old master is back, as its replica.
        outcome = append_one(victim_game, store.version(victim_game), deadline)
        assert outcome == "unconfirmed"
        cluster.server(victim_port).start()
        while cluster.roles().get(victim_port) != "slave":
            assert time.monotonic() < deadline, "the old master did not rejoin"
            time.sleep(0.1)
        version = store.version(victim_game)
        while append_one(victim_game, version, deadline) != "ok":  # until the replica syncs
            assert time.monotonic() < deadline, "appends were never confirmed again"
            time.sleep(0.2)

        for game_id, numbers in acked.items():
            stored = store.read(game_id)
            assert [s.version for s in stored] == list(range(1, len(stored) + 1))
            kept = {s.version - 1 for s in stored[1:]}
            assert set(numbers) <= kept, f"acknowledged appends lost in {game_id}"
        client.close()
    finally:
        cluster.stop()
