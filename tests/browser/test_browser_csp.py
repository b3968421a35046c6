"""The browser client under its Content-Security-Policy, in headless Chromium: the lobby loads, the
websocket opens (CSP3's connect-src 'self' covers the page's own ws:), a game is played to the end
with nothing refused (conftest.py fails any test whose page reports a violation), and an injected
inline script and style are refused and reported, so such a report would be seen."""

from __future__ import annotations

import pytest
from browser_arena import Arena, Site, csp_violations

from arbiter.server.net.http import SECURITY_HEADERS
from tests.support.guest import play_mnk_to_end, start_game

pytestmark = pytest.mark.asyncio(loop_scope="module")

INJECT = """() => {
  const script = document.createElement("script");
  script.textContent = "window.injected = true";
  document.body.append(script);
  const div = document.createElement("div");
  div.setAttribute("style", "color: rgb(255, 0, 0)");
  document.body.append(div);
  return [window.injected === true, getComputedStyle(div).color];
}"""


async def test_the_client_loads_and_plays_a_game_under_its_policy(new_page, arena: Arena) -> None:
    page = await new_page()  # the lobby loaded and its websocket is open, nothing refused (conftest)
    headers = (await page.context.request.get(page.url)).headers  # what the page was served with
    assert {name: headers.get(name.lower()) for name in SECURITY_HEADERS} == SECURITY_HEADERS
    await start_game(page, "gomoku", arena.bot, color="first")
    assert await play_mnk_to_end(page, 0, 5) >= 5
    await page.wait_for_selector("#result:not([hidden])")
    # The board's coordinates keep their size, set by an attribute now rather than an inline style.
    assert await page.evaluate("getComputedStyle(document.querySelector('.coords text')).fontSize") == "0.3px"


async def test_inline_script_and_style_are_refused_and_reported(browser, site: Site) -> None:
    context = await browser.new_context()
    try:
        page = await context.new_page()
        console: list[str] = []
        page.on("console", lambda message: console.append(message.text))
        await page.goto(site.url)
        await page.wait_for_selector("#status[data-state=open]")
        assert csp_violations(console) == []
        ran, colour = await page.evaluate(INJECT)
        assert not ran and colour != "rgb(255, 0, 0)"  # neither applied
        for _ in range(50):  # the reports reach the console asynchronously
            if len(csp_violations(console)) >= 2:
                break
            await page.wait_for_timeout(20)
        refused = csp_violations(console)
        assert len(refused) == 2 and any("script-src" in r for r in refused) and any("style-src" in r for r in refused)
    finally:
        await context.close()
