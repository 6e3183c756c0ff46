"""Fixtures of the browser tests: the app with its embedded worker on a real
HTTP port, and Debian's Chromium driven headless by Playwright.

Run ``tests/ensure-chromium.sh`` first; without ``/usr/bin/chromium`` these
tests are skipped, saying why.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright
from werkzeug.serving import BaseWSGIServer, make_server

from service.api import create_app
from service.config import load_settings
from service.runtime import Runtime
from service.web import bp
from workers.embedded import EmbeddedWorker

from .helpers import CHROMIUM, CHROMIUM_ARGS, Site

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


def build_app() -> tuple[Flask, EmbeddedWorker]:
    settings = load_settings(bot_delay_s=0, stream_keepalive_s=1, rate_limit="100000/second")
    runtime = Runtime.from_settings(settings)
    app = create_app(settings, runtime, {"TESTING": True, "RATELIMIT_ENABLED": False})
    if "web" not in app.blueprints:
        app.register_blueprint(bp)
    worker = EmbeddedWorker(runtime)
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
        yield Site(f"http://127.0.0.1:{server.server_port}", SCREENSHOTS)
    finally:
        server.shutdown()
        thread.join(5)
        worker.stop()


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
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    page.on(
        "console",
        lambda msg: (
            errors.append(f"console: {msg.text}")
            if msg.type == "error" and "Failed to load resource" not in msg.text
            else None
        ),
    )
    yield page
    context.close()
    assert not errors, errors
