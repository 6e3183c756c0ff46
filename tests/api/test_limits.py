"""Rate limits (429 + Retry-After), the body size limit (413) and CORS."""

from __future__ import annotations

from service.config import load_settings

from .conftest import make_app


def test_rate_limit_per_address() -> None:
    app = make_app(load_settings(rate_limit="3/minute"))
    client = app.test_client()
    codes = [client.get("/games").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    r = client.get("/games")
    assert r.mimetype == "application/problem+json"
    assert 1 <= int(r.headers["Retry-After"]) <= 60
    other = client.get("/games", environ_base={"REMOTE_ADDR": "10.1.2.3"})
    assert other.status_code == 200


def test_rate_limit_per_token_across_addresses() -> None:
    app = make_app(load_settings(rate_limit="2/minute"))
    client = app.test_client()
    headers = {"Authorization": "Bearer same-token"}
    codes = [
        client.get(
            "/games", headers=headers, environ_base={"REMOTE_ADDR": f"10.0.0.{i}"}
        ).status_code
        for i in range(3)
    ]
    assert codes == [200, 200, 429]


def test_healthz_is_not_limited() -> None:
    app = make_app(load_settings(rate_limit="1/minute"))
    client = app.test_client()
    assert [client.get("/healthz").status_code for _ in range(3)] == [200, 200, 200]


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
