"""The browser suite's arena: a real server on 127.0.0.1 (ephemeral port, SQLite file), the real
``random`` bot as its own process (``arbiter bot random``), and Debian's Chromium driven by
Playwright. Each test module shares one arena and one browser; each test gets a fresh browser
context, so every test is a new guest with its own storage. Test modules run in one event loop
each (``pytestmark = pytest.mark.asyncio(loop_scope="module")``), the loop the arena lives in.

Chromium is never downloaded: Playwright launches /usr/bin/chromium (``make install-test`` installs
it with apt), with a fresh temporary profile per launch. Page errors fail the test that caused them.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from browser_arena import Arena, Site, csp_violations, random_bot

from arbiter.server import ServerConfig, run_server
from arbiter.server.store.sqlite import SqliteStore
from arbiter.server.web_routes import find_msgpack_esm, node_modules_candidates

playwright_api = pytest.importorskip("playwright.async_api")

CHROMIUM = Path(os.environ.get("ARBITER_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
BOT_NAME = "random"
TIMEOUT_MS = 30_000  # per action; generous, because the machine running the suite may be busy


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def site(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Site]:
    if find_msgpack_esm(node_modules_candidates()) is None:
        pytest.fail("@msgpack/msgpack is not installed: run `npm ci` (make install-test does it)")
    store = SqliteStore(tmp_path_factory.mktemp("site") / "arena.db")
    async with run_server(ServerConfig(port=0, reconnect_grace_s=30.0), store) as server:
        yield Site(server, store)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def arena(site: Site) -> AsyncIterator[Arena]:
    """The site with the real random bot online, run as its own process: ``arbiter bot random``."""
    token = await site.store.add_player(BOT_NAME, "bot")
    async with random_bot(site.server, BOT_NAME, token):
        yield Arena(site.server, site.store, BOT_NAME)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[object]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (make install-test)")
    async with playwright_api.async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        await launched.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> object:
    """Keep each phase's report on the test item, so a fixture can tell whether the test failed."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


DESCRIBE_PAGE = """() => ({
  url: location.href,
  status: document.querySelector('#status')?.textContent,
  me: document.querySelector('#me')?.textContent,
  hint: document.querySelector('#hint')?.textContent,
  match: document.querySelector('#match-status')?.textContent,
  notices: [...document.querySelectorAll('.notice')].map((n) => n.textContent),
})"""


@pytest_asyncio.fixture(loop_scope="module")
async def new_page(browser: object, site: Site, request: pytest.FixtureRequest) -> AsyncIterator[object]:
    """``await new_page(**context_options)``: a page in a fresh context (a new guest); errors on it,
    and anything its Content-Security-Policy refuses (reported on the console), fail the test.
    When the test fails, what each page showed is printed with the failure."""
    contexts = []
    pages = []
    errors: list[str] = []

    async def open_page(**options: object) -> object:
        context = await browser.new_context(viewport=options.pop("viewport", {"width": 1100, "height": 860}), **options)
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        page = await context.new_page()
        pages.append(page)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda message: errors.extend(csp_violations([message.text])))
        await page.goto(site.url)
        await page.wait_for_selector("#status[data-state=open]")
        return page

    yield open_page
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        for number, page in enumerate(pages):
            print(f"page {number}:", await page.evaluate(DESCRIBE_PAGE))
    for context in contexts:
        await context.close()
    assert not errors, f"the page raised: {errors}"
