"""What a finished game leaves in Redis: only documented keys, each kept on purpose or expiring.

A whole Azi game is played with real ``cardroom worker`` processes: one
seat by a person through the API (limits on, moves with idempotency keys,
views as the web table fetches them), the others by bots. Then every key in
the database must match a row of the Redis key tables in docs/events.md,
and a key documented as expiring must carry a TTL no longer than the bound
written there. Waiting the TTLs out is not needed to know what would
remain: the keys without a TTL, which must all be documented as kept.
"""

from __future__ import annotations

import re
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from rq.registry import StartedJobRegistry

from service.api import create_app
from service.config import load_settings
from service.store import keys
from tests.jobs.conftest import WORKER_DB_URL, Cluster, finished

pytestmark = [pytest.mark.redis, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
UNITS = {"s": 1, "min": 60, "h": 3600, "d": 86_400}
LIFETIME_RE = re.compile(r"expires, at most (\d+) (s|min|h|d)\b")


def documented_keys() -> list[tuple[re.Pattern[str], str, float | None]]:
    """``(pattern, as written, bound in seconds or None when kept)`` of every row
    of the key tables in docs/events.md (their last column says how long)."""
    rows = []
    for line in (ROOT / "docs" / "events.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if (
            len(cells) < 4
            or not cells[0].startswith("`")
            or ("`cardroom:" not in cells[0] and "`rq:" not in cells[0])
        ):
            continue
        lifetime = cells[-1]
        match = LIFETIME_RE.search(lifetime)
        if match is None:
            assert lifetime.startswith("kept"), f"no lifetime for {cells[0]}: {lifetime!r}"
            bound = None
        else:
            bound = int(match.group(1)) * UNITS[match.group(2)]
        for written in re.findall(r"`([^`]+)`", cells[0]):
            parts = re.split(r"<[^>]+>", written)
            pattern = re.compile("[^:]+".join(re.escape(p) for p in parts) + "$")
            rows.append((pattern, written, bound))
    return rows


def call(client: Any, method: str, path: str, **kwargs: Any) -> Any:
    """A request whose response is closed, as a server closes it: that is when
    the API sends the workers their follow-up job."""
    with client.open(path, method=method, **kwargs) as r:
        return r.status_code, r.get_json()


def play_as_the_person(client: Any, game_id: str, token: str, cluster: Cluster) -> None:
    auth = {"Authorization": f"Bearer {token}"}
    while True:
        state = cluster.wait_until(game_id, lambda s: finished(s) or 0 in _to_act(s), 60)
        if finished(state):
            return
        status, view = call(client, "GET", f"/games/{game_id}", headers=auth)
        assert status == 200, view
        if 0 not in view["to_act"] or not view.get("legal_moves"):
            continue
        body = {"move": view["legal_moves"][0], "idempotency_key": str(uuid.uuid4())}
        status, answer = call(client, "POST", f"/games/{game_id}/moves", json=body, headers=auth)
        assert status in (201, 409), answer


def _to_act(state: Any) -> set[int]:
    if state.over or not state.seated:
        return set()
    return set(state.engine.to_act(state.engine_state))


def drains_end(cluster: Cluster, deadline_s: float = 30) -> None:
    """Until no drain job is queued or running and no drain slot is held: a job's
    own keys live while it runs (RQ gives them a TTL when it ends), and a drain
    ends within its linger once the list is empty. Nothing to block on: poll."""
    queue = cluster.runtime.queue
    started = StartedJobRegistry(queue=queue)  # type: ignore[no-untyped-call]
    slots = f"{keys.PREFIX}:{{drains:{queue.name}}}:slot:*"
    deadline = time.monotonic() + deadline_s
    while len(queue) or started.count or any(cluster.runtime.queue_redis.scan_iter(slots)):
        assert time.monotonic() < deadline, "the drains never ended"
        time.sleep(0.05)


def test_a_finished_game_leaves_only_documented_keys(cluster: Cluster) -> None:
    cluster.stack.start_worker()
    cluster.stack.start_worker()
    settings = load_settings(
        redis_url=WORKER_DB_URL,
        queue_name=cluster.stack.env["CARDROOM_QUEUE_NAME"],
        bot_delay_s=0,
        log_level="WARNING",
        # The in-process client answers its turns far faster than a person, at
        # tens of requests a second: the per-process flood guard (in memory, no
        # keys) is set out of its reach. The budgets kept in Redis stay as they are.
        rate_limit="1000/second",
    )
    client = create_app(settings, cluster.runtime).test_client()
    options = {"buy_in": 60, "ante": 10, "min_bet": 10}
    _, created = call(
        client, "POST", "/games", json={"game": "azi", "seats": 3, "options": options}
    )
    game_id = created["game_id"]
    _, seat = call(client, "POST", f"/games/{game_id}/seats", json={"name": "person"})
    token = seat["token"]
    for i in (1, 2):
        status, _ = call(
            client, "POST", f"/games/{game_id}/seats", json={"name": f"bot {i}", "bot": True}
        )
        assert status == 201
    play_as_the_person(client, game_id, token, cluster)
    assert cluster.projected(game_id) == cluster.store.version(game_id)
    assert call(client, "GET", f"/games/{game_id}/verify")[1]["verified"] is True

    redis = cluster.runtime.redis
    drains_end(cluster)
    rows = documented_keys()
    kept: list[str] = []
    for raw in redis.scan_iter(count=1000):
        key = raw.decode()
        row = next((r for r in rows if r[0].match(key)), None)
        assert row is not None, f"{key} is not documented in docs/events.md"
        ttl_ms = redis.pttl(key)
        if row[2] is not None:
            assert 0 < ttl_ms <= row[2] * 1000, f"{key}: TTL {ttl_ms} ms, documented {row[1]}"
        if ttl_ms < 0:
            kept.append(key)
    game_kept = sorted(k.split("}:", 1)[1] for k in kept if k.startswith(f"cardroom:{{{game_id}}}"))
    assert set(game_kept) <= {
        "events",
        "snapshot",
        "tokens",
        "ledger",
        "meta",
        "answer:replay",
        "answer:verify",
        "answer:events",
    }, game_kept
    assert "events" in game_kept and "snapshot" in game_kept
    print(f"keys left without a TTL: {len(kept)}: {sorted(kept)}")
