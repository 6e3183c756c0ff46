"""The pages and their files as served (no browser needed)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.web import STATIC

from .conftest import web_app

PAGES = (
    "/",
    "/table/abc",
    "/replay/abc",
    "/fairness",
    "/fairness/document",
    "/my-games",
    "/my-stats",
)


@pytest.fixture
def app() -> Iterator[Flask]:
    yield web_app(rate_limit="5/minute")


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.mark.parametrize("path", PAGES)
def test_pages_are_html_with_a_strict_policy(client: FlaskClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert response.headers["Referrer-Policy"] == "no-referrer"
    # Nothing is loaded from another host.
    assert not re.search(r"""(src|href)=["'](https?:)?//""", response.get_data(as_text=True))


def test_static_files_and_every_import_exist(client: FlaskClient) -> None:
    modules = sorted((STATIC / "js").glob("*.js"))
    assert modules
    for module in modules:
        response = client.get(f"/web/static/js/{module.name}")
        assert response.status_code == 200
        assert "javascript" in (response.mimetype or "")
        for target in re.findall(r"""from '(\./[\w.-]+)'""", module.read_text()):
            assert (module.parent / target).resolve().is_file(), f"{module.name} imports {target}"
    for page in (
        "lobby.html",
        "table.html",
        "replay.html",
        "fairness.html",
        "fairness-document.html",
        "mine.html",
        "stats.html",
    ):
        html = (STATIC / page).read_text()
        for ref in re.findall(r"""(?:src|href)="(/web/static/[^"]+)\"""", html):
            assert client.get(ref).status_code == 200, ref


def test_the_offline_verifier_may_run_its_own_code_and_reach_nothing(client: FlaskClient) -> None:
    response = client.get("/verifier")
    assert response.status_code == 200 and response.mimetype == "text/html"
    policy = response.headers["Content-Security-Policy"]
    assert policy.startswith("default-src 'none'")
    assert "'self'" not in policy and "unsafe-inline" not in policy and "connect-src" not in policy
    assert re.search(r"script-src 'sha256-[A-Za-z0-9+/=]{44}';", policy)
    text = response.get_data(as_text=True)
    meta = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', text)
    assert meta is not None and meta.group(1) + "; frame-ancestors 'none'" == policy


def test_no_page_or_module_parses_data_as_html() -> None:
    offline = Path(STATIC).parent / "offline"
    for path in [*Path(STATIC).rglob("*.js"), *offline.glob("*.js")]:
        if path.name == "axe.min.js":
            continue  # the accessibility audit, injected by the browser tests; no page loads it
        text = path.read_text()
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"):
            assert sink not in text, f"{path.name} uses {sink}"


def test_fairness_document_is_escaped_text(client: FlaskClient) -> None:
    text = client.get("/fairness/document").get_data(as_text=True)
    assert "cardroom-shuffle-v1" in text
    assert "<pre" in text and "&lt;" in text  # the document's own markup is escaped
    assert "<!-- vectors" not in text


def test_pages_do_not_count_against_the_api_rate_limit(client: FlaskClient) -> None:
    for _ in range(12):
        assert client.get("/").status_code == 200
        assert client.get("/web/static/style.css").status_code == 200
    statuses = [client.get("/games").status_code for _ in range(8)]
    assert 429 in statuses  # the API itself is still limited
