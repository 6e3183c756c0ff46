"""Fixtures of the browser tests: the app with its embedded worker on a real
HTTP port, and Debian's Chromium driven headless by Playwright.

Run ``tests/ensure-chromium.sh`` first; without ``/usr/bin/chromium-headless-shell`` these
tests are skipped, saying why.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright
from werkzeug.serving import BaseWSGIServer, make_server

from service.api import create_app
from service.api.limits import Limits
from service.config import load_settings
from service.runtime import Runtime
from service.web import bp
from tests.testredis import TEST_REDIS
from workers.embedded import EmbeddedWorker

from .helpers import CHROMIUM, CHROMIUM_ARGS, Site, budgets_of_a_deployment, collect_errors

SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-output" / "screenshots"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).resolve().parent
    reason = None
    if not Path(CHROMIUM).exists():
        reason = f"{CHROMIUM} is missing: run tests/ensure-chromium.sh"
    if reason is None:
        return
    for item in items:
        in_here = here in Path(str(item.fspath)).resolve().parents
        if in_here and item.get_closest_marker("browser") is not None:
            item.add_marker(pytest.mark.skip(reason=reason))


OUT_OF_REACH = "100000/second"


def web_app(database: int | None = None, **settings: Any) -> Flask:
    """The API with the web pages: on its own in-process fake Redis, or with
    ``database`` on that database of the tests' real Redis, emptied first (what
    a site that plays whole games stands on: the fake's Python costs more than
    all the rest of the server together)."""
    if database is not None:
        url = f"{TEST_REDIS}/{database}"
        flushed = redis.Redis.from_url(url)
        try:
            flushed.flushdb()
        except redis.ConnectionError as exc:
            pytest.skip(f"no Redis answers at {url} ({exc}); run tests/ensure-redis.sh")
        finally:
            flushed.close()
        settings["redis_url"] = url
    config = load_settings(**settings)
    app = create_app(config, Runtime.from_settings(config), {"TESTING": True})
    if "web" not in app.blueprints:
        app.register_blueprint(bp)
    return app


SITE_DATABASES = {"site": 1, "pages-layout": 2}
"""The real Redis's databases of the browser suites' sites (a test process serves
both at once); the other suites keep to databases 7 to 15 (``tests/testredis.py``)."""


def build_app(database: int = SITE_DATABASES["site"]) -> tuple[Flask, EmbeddedWorker]:
    """The app with limiting on and every budget out of reach (tests that play
    to the real budgets set them with :func:`default_budgets`), on ``database``
    of the real Redis."""
    budgets = {
        name: OUT_OF_REACH
        for name in ("rate_limit", "limit_moves", "limit_games", "limit_seats", "limit_reads")
    }
    app = web_app(database, bot_delay_s=0, stream_keepalive_s=1, **budgets)
    worker = EmbeddedWorker(app.extensions["cardroom"].runtime)
    worker.start()
    return app, worker


@pytest.fixture(scope="package")
def site() -> Iterator[Site]:
    """The whole service on 127.0.0.1 and a free port: API, pages, bots and deals.

    Package-scoped: its worker thread is stopped before other packages' tests run."""
    app, worker = build_app()
    server: BaseWSGIServer = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="web-test-server", daemon=True)
    thread.start()
    try:
        limits = app.extensions["cardroom_limits"]
        service = app.extensions["cardroom"]
        streams = app.extensions["cardroom_streams"]
        yield Site(f"http://127.0.0.1:{server.server_port}", SCREENSHOTS, limits, service, streams)
    finally:
        server.shutdown()
        thread.join(5)
        worker.stop()


@pytest.fixture(autouse=True)
def ends_its_games(site: Site) -> Iterator[None]:
    """The games a test leaves unfinished are abandoned when it ends: their bots
    (and seats gone away, which bots then play) would otherwise play whole
    matches in the background, on the worker the next tests wait on."""
    before = site.unfinished_games()
    yield
    site.end_games(site.unfinished_games() - before)


BOT_THINKING_S = 0.25


@pytest.fixture
def bots_think(site: Site) -> Iterator[float]:
    """Bots (and seats marked away, which the bots play) take a quarter of a second
    per move for one test, then none again. With no thinking delay, a table whose
    four seats the bots play finishes a whole Murlan match in about a second: a
    test that looks at such a table for longer would find the match over."""
    settings = site.service.runtime.settings
    kept = settings.bot_delay_s
    settings.bot_delay_s = BOT_THINKING_S
    try:
        yield BOT_THINKING_S
    finally:
        settings.bot_delay_s = kept


@pytest.fixture
def default_budgets(site: Site) -> Iterator[Limits]:
    """The site's rate budgets set to the defaults a deployment has (fresh
    buckets) for one test, then out of reach again."""
    with budgets_of_a_deployment(site) as limits:
        yield limits


@pytest.fixture(scope="package")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="package")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@pytest.fixture
def page(browser: Browser, site: Site) -> Iterator[Page]:
    """A fresh browser profile (its own localStorage) whose script errors fail the test."""
    context: BrowserContext = browser.new_context(
        base_url=site.url, viewport={"width": 1280, "height": 900}
    )
    context.set_default_timeout(15_000)
    errors: list[str] = []
    page = collect_errors(context.new_page(), errors)
    yield page
    context.close()
    assert not errors, errors
