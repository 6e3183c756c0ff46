"""cardroom scaled out: two API processes and two workers on a 3-master Redis Cluster.

Bots play games of all three kinds, driven only over HTTP: each table is
opened on one API process, its seats are taken through both, its live
event stream is read from the other, and its end is polled on both. Games
are opened until every master of the cluster holds at least one. Every game
must finish, every stream must carry every event once and in order, every
replay must audit clean, and both workers must have done some of the work.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from typing import Any

import httpx
import pytest
import redis
from rq import Queue, Worker

from service.devstack import LocalCluster, Stack, create_bot_game, stack_env
from service.replay import audit_replay
from service.store import EventStore, keys
from tests.scaleout.conftest import QUEUE_URL

pytestmark = [pytest.mark.cluster, pytest.mark.slow]

OPTIONS: dict[str, dict[str, Any]] = {
    "hazari": {"target": 360},
    "azi": {"buy_in": 60, "ante": 10, "min_bet": 10},
    "murlan": {},
}
FIRST = ["hazari", "azi", "murlan"]
CHEAP = ["hazari", "azi"]
"""After one game of each kind, short games until every master has one."""
MAX_GAMES = 14
DEADLINE_S = 150


class StreamReader(threading.Thread):
    """Reads a game's live NDJSON stream from the start to its ``end`` line."""

    def __init__(self, url: str, game_id: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.game_id = game_id
        self.versions: list[int] = []
        self.ended_at: int | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            headers = {"Accept": "application/x-ndjson"}
            with (
                httpx.Client(timeout=httpx.Timeout(10, read=20)) as http,
                http.stream(
                    "GET", f"{self.url}/games/{self.game_id}/events?after=0", headers=headers
                ) as response,
            ):
                assert response.status_code == 200, response.read()
                for line in response.iter_lines():
                    item = json.loads(line)
                    if item["kind"] == "event":
                        self.versions.append(item["version"])
                    elif item["kind"] == "end":
                        self.ended_at = item["version"]
                        return
        except BaseException as exc:  # reported by the test
            self.error = exc


@pytest.mark.timeout(DEADLINE_S + 90)
def test_bots_play_through_two_apis_and_two_workers_on_every_master(
    redis_cluster: LocalCluster, queue_redis: redis.Redis
) -> None:
    client = redis_cluster.client()
    client.flushall()
    seeds = ",".join(f"127.0.0.1:{s.port}" for s in redis_cluster.servers)
    queue_name = f"scaleout-{uuid.uuid4().hex[:8]}"
    env = stack_env(redis_cluster.url, cluster=True, queue_url=QUEUE_URL, queue_name=queue_name)
    stack = Stack(env)
    try:
        # The second pair finds the cluster from a seed list instead. Each API holds
        # the live streams of up to half the games (streams may take half its threads).
        threads = 2 * MAX_GAMES
        apis = [
            stack.start_api(threads=threads),
            stack.start_api(threads=threads, CARDROOM_REDIS_URL=f"redis+cluster://{seeds}"),
        ]
        stack.start_worker()
        stack.start_worker(CARDROOM_REDIS_URL=f"redis+cluster://{seeds}")
        stack.wait_healthy()

        masters = set(redis_cluster.slot_owners())
        games: dict[str, tuple[str, int]] = {}
        readers: list[StreamReader] = []
        with httpx.Client(timeout=30) as http:
            while len(games) < len(FIRST) or {m for _, m in games.values()} != masters:
                assert len(games) < MAX_GAMES, f"games on {games}, masters {masters}"
                n = len(games)
                kind = FIRST[n] if n < len(FIRST) else CHEAP[n % len(CHEAP)]
                here, there = apis[n % 2], apis[(n + 1) % 2]
                game_id = create_bot_game(http, here, [there, here], kind, OPTIONS[kind])
                games[game_id] = (kind, redis_cluster.owner_of(keys.events(game_id)))
                readers.append(StreamReader(there, game_id))
                readers[-1].start()

            final = wait_for_the_end(http, apis, list(games), stack)
            for game_id, version in final.items():
                doc = http.get(f"{apis[version % 2]}/games/{game_id}/replay").json()
                report = audit_replay(doc)
                assert report.ok, (game_id, report.mismatch)
                assert doc["complete"] and len(doc["events"]) == version

        for reader in readers:
            reader.join(30)
            assert reader.error is None, (reader.game_id, reader.error)
            version = final[reader.game_id]
            assert reader.versions == list(range(1, version + 1)), reader.game_id
            assert reader.ended_at == version

        store = EventStore(client)
        for game_id, version in final.items():
            assert [s.version for s in store.read(game_id)] == list(range(1, version + 1))
            assert projected(store, game_id, version), f"projection of {game_id} lags"

        kinds_on = {kind for kind, _ in games.values()}
        assert kinds_on == set(OPTIONS)
        assert {master for _, master in games.values()} == masters
        workers = Worker.all(queue=Queue(queue_name, connection=queue_redis))
        assert len(workers) == 2
        assert all(w.successful_job_count > 0 for w in workers), "a worker did nothing"
    except BaseException:
        print(stack.logs())
        raise
    finally:
        stack.stop()
        client.flushall()
        client.close()


def wait_for_the_end(
    http: httpx.Client, apis: list[str], game_ids: list[str], stack: Stack
) -> dict[str, int]:
    """Poll each game on both API processes until it has ended and shown its seed;
    returns each game's final version."""
    deadline = time.monotonic() + DEADLINE_S
    final: dict[str, int] = {}
    turn = 0
    while len(final) < len(game_ids):
        stack.check_running()
        for game_id in game_ids:
            if game_id in final:
                continue
            turn += 1
            view = http.get(f"{apis[turn % 2]}/games/{game_id}").json()
            if view["status"] == "ended" and view["server_seed"] is not None:
                final[game_id] = view["version"]
        if time.monotonic() > deadline:
            stuck = {g: http.get(f"{apis[0]}/games/{g}").json()["version"] for g in game_ids}
            raise AssertionError(f"games did not finish in {DEADLINE_S} s: {stuck}")
        time.sleep(0.5)
    return final


def projected(store: EventStore, game_id: str, version: int, timeout_s: float = 30) -> bool:
    """Whether the workers' projection reaches ``version`` in time."""
    deadline = time.monotonic() + timeout_s
    while store.snapshot_version(game_id) < version:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True
