"""Rate limits (429 + Retry-After, naming the budget), the body size limit (413) and CORS."""

from __future__ import annotations

import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.budgets import MemoryBudgets, Rate, RedisBudgets
from service.config import ConfigError, load_settings
from service.store import keys

from .conftest import REAL_REDIS_URL, make_app
from .helpers import Api


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_rate_parsing() -> None:
    assert Rate.parse("60/minute") == Rate(60, 60)
    assert Rate.parse("5 per second") == Rate(5, 1)
    assert str(Rate.parse("3/hour")) == "3 per hour"
    for bad in ("0/minute", "10/fortnight", "120/minute;20/second", ""):
        with pytest.raises(ValueError, match="bad rate"):
            Rate.parse(bad)
    with pytest.raises(ConfigError, match="CARDROOM_LIMIT_MOVES"):
        load_settings(limit_moves="lots")


def test_a_bucket_refills_at_its_rate() -> None:
    now = [100.0]
    budgets = MemoryBudgets(clock=lambda: now[0])
    rate = Rate(3, 60)  # three at once, then one every 20 s
    assert [budgets.take("k", rate) for _ in range(3)] == [0, 0, 0]
    assert budgets.take("k", rate) == pytest.approx(20_000)
    now[0] += 19.9
    assert budgets.take("k", rate) > 0
    now[0] += 0.1
    assert budgets.take("k", rate) == 0
    assert budgets.take("other", rate) == 0


@given(
    start_s=st.floats(min_value=0, max_value=1e8, allow_nan=False),
    count=st.integers(min_value=1, max_value=500),
    period_s=st.sampled_from([1, 60, 3600]),
    tokens=st.integers(min_value=1, max_value=1000),
)
def test_an_empty_bucket_takes_its_whole_size_at_any_time(
    start_s: float, count: int, period_s: int, tokens: int
) -> None:
    """Whatever the clock reads (a machine's monotonic clock is its uptime), an
    empty bucket lets ``count`` requests through at once, or one charge of
    ``tokens`` (at most the whole bucket); then it refuses."""
    rate = Rate(count, period_s)
    budgets = MemoryBudgets(clock=lambda: start_s)
    assert budgets.take("big", rate, tokens) == 0
    if tokens >= count:
        assert budgets.take("big", rate) > 0
    assert [budgets.take("one by one", rate) for _ in range(count)] == [0] * count
    assert budgets.take("one by one", rate) > 0


@pytest.mark.redis
@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(count=st.integers(min_value=1, max_value=200), period_s=st.sampled_from([60, 3600]))
def test_an_empty_bucket_in_redis_takes_its_whole_size(
    api_redis: redis.Redis, count: int, period_s: int
) -> None:
    """The same of the buckets in Redis, on Redis's clock in milliseconds since 1970
    (its numbers are larger still): ``count`` at once, then a refusal (per minute
    or hour: the clock moves on while they are taken)."""
    api_redis.delete("bucket:whole", "bucket:one")
    rate = Rate(count, period_s)
    budgets = RedisBudgets(api_redis)
    assert budgets.take("bucket:whole", rate, count) == 0
    assert budgets.take("bucket:whole", rate) > 0
    assert [budgets.take("bucket:one", rate) for _ in range(count)] == [0] * count
    assert budgets.take("bucket:one", rate) > 0


def test_opening_games_is_limited_per_address() -> None:
    app = make_app(load_settings(limit_games="3/minute"))
    client = app.test_client()
    codes = [client.post("/games", json={"game": "murlan"}).status_code for _ in range(4)]
    assert codes == [201, 201, 201, 429]
    r = client.post("/games", json={"game": "murlan"})
    assert r.mimetype == "application/problem+json"
    problem = r.get_json()
    assert problem["budget"] == "games" and "3 per minute" in problem["detail"]
    assert 1 <= int(r.headers["Retry-After"]) <= 20
    other = client.post("/games", json={"game": "murlan"}, environ_base={"REMOTE_ADDR": "10.1.2.3"})
    assert other.status_code == 201
    assert client.get("/games").status_code == 200  # other budgets are untouched


def test_taking_seats_is_limited_per_address() -> None:
    app = make_app(load_settings(limit_seats="2/minute"))
    client = app.test_client()
    gid = client.post("/games", json={"game": "murlan"}).get_json()["game_id"]
    codes = [client.post(f"/games/{gid}/seats", json={"name": "x"}).status_code for _ in range(3)]
    assert codes == [201, 201, 429]
    assert client.get(f"/games/{gid}").get_json()["version"] == 3  # the refused seat left no trace


def test_moves_are_limited_per_seat_across_addresses() -> None:
    app = make_app(load_settings(limit_moves="2/minute"))
    api = Api(app.test_client(), app.extensions["cardroom"])
    tab = api.table("murlan")
    before = api.view(tab.game_id)["version"]
    codes = [
        api.client.post(
            f"/games/{tab.game_id}/moves",
            json={"move": {"type": "nonsense"}},
            headers=bearer(tab.tokens[0]),
            environ_base={"REMOTE_ADDR": f"10.0.0.{i}"},
        ).status_code
        for i in range(3)
    ]
    assert codes[:2] != [429, 429] and codes[2] == 429
    refused = api.move(tab.game_id, tab.tokens[0], {"type": "pass"})
    assert refused.status_code == 429 and refused.get_json()["budget"] == "moves"
    assert "this seat" in refused.get_json()["detail"]
    assert api.move(tab.game_id, tab.tokens[1], {"type": "nonsense"}).status_code != 429
    assert api.view(tab.game_id)["version"] == before


def test_expensive_reads_are_limited_per_address() -> None:
    app = make_app(load_settings(limit_reads="1/minute"))
    client = app.test_client()
    gid = client.post("/games", json={"game": "murlan"}).get_json()["game_id"]
    assert client.get(f"/games/{gid}/verify").status_code == 200
    r = client.get(f"/games/{gid}/replay")
    assert r.status_code == 429 and r.get_json()["budget"] == "reads"


def test_a_flood_of_cheap_reads_is_refused() -> None:
    app = make_app(load_settings(rate_limit="3/second"))
    client = app.test_client()
    codes = [client.get("/games").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    assert client.get("/games").get_json()["budget"] == "requests"
    other = client.get("/games", environ_base={"REMOTE_ADDR": "10.1.2.3"})
    assert other.status_code == 200


def test_probes_and_pages_are_not_limited() -> None:
    app = make_app(load_settings(rate_limit="1/minute"))
    client = app.test_client()
    assert [client.get("/healthz").status_code for _ in range(3)] == [200, 200, 200]
    assert [client.get("/metrics").status_code for _ in range(3)] == [200, 200, 200]
    assert [client.get("/").status_code for _ in range(3)] == [200, 200, 200]


@pytest.mark.redis
def test_limiter_keys_are_namespaced_and_expire(api_redis: redis.Redis) -> None:
    settings = load_settings(redis_url=REAL_REDIS_URL, limit_games="3/minute")
    app = make_app(settings)
    api = Api(app.test_client(), app.extensions["cardroom"])
    tab = api.table("murlan")
    api.move(tab.game_id, tab.tokens[1], {"type": "pass"})
    codes = [api.client.post("/games", json={"game": "murlan"}).status_code for _ in range(3)]
    assert codes == [201, 201, 429]  # the table above opened one game already
    rate_keys = [k.decode() for k in api_redis.scan_iter("*rate*")]
    assert sorted(rate_keys) == sorted(
        [
            keys.rate_address("games", "127.0.0.1"),
            keys.rate_address("seats", "127.0.0.1"),
        ]
    )
    assert not [k for k in api_redis.scan_iter() if not k.startswith((b"cardroom:", b"rq:"))]
    for key in rate_keys:
        assert key.startswith("cardroom:{")
        assert 0 < api_redis.pttl(key) <= 60_000


def test_body_size_limit() -> None:
    app = make_app(load_settings(max_body_bytes=1024), RATELIMIT_ENABLED=False)
    client = app.test_client()
    r = client.post("/games", json={"game": "murlan", "options": {"x": "y" * 2000}})
    assert r.status_code == 413 and r.mimetype == "application/problem+json"
    assert client.post("/games", json={"game": "murlan"}).status_code == 201


def test_cors_is_off_by_default_and_on_when_configured() -> None:
    origin = {"Origin": "https://table.example"}
    off = make_app(load_settings(), RATELIMIT_ENABLED=False).test_client()
    assert "Access-Control-Allow-Origin" not in off.get("/games", headers=origin).headers
    on = make_app(
        load_settings(cors_origins="https://table.example"), RATELIMIT_ENABLED=False
    ).test_client()
    r = on.get("/games", headers=origin)
    assert r.headers["Access-Control-Allow-Origin"] == "https://table.example"
    other = on.get("/games", headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in other.headers
