"""Renju and caro in headless Chromium: black's forbidden points crossed out while black is to move,
a click on one explained and never sent; the rule named in the game's header and in its replay; a
caro game against the real ``random`` bot played to its end with the winning line drawn."""

from __future__ import annotations

import pytest
from browser_arena import Arena, Site, screenshot_path

from tests.support.guest import play_mnk_to_end, start_game
from tests.support.wsclient import Client, play_move

pytestmark = pytest.mark.asyncio(loop_scope="module")

# Black h8, g8, i9, i10 against white far away: i8 would make two open threes (a row, a column).
OPENING = [[7, 7], [0, 0], [6, 7], [0, 2], [8, 8], [0, 4], [8, 9], [14, 14]]
DOUBLE_THREE = '.cell[data-cell="8,7"]'


async def challenged(page, site: Site, game: str, params: dict | None = None) -> tuple[Client, str]:
    """A client of the test's own challenges the page's guest (who moves first), the page accepts:
    the client and the match id."""
    opponent = await Client.connect(site.server.url)
    name = await page.inner_text("#me .who")
    fields = {"to": name, "game": game, "clock": {"initial_ms": 600_000}, "color": "second"}
    created = await opponent.request("challenge", **fields, **({"params": params} if params else {}))
    assert created["type"] == "challenge_created", created
    await page.get_by_role("button", name="Accept").click()
    start = await opponent.expect("match_start")
    await page.wait_for_url(f"**/#/match/{start['match']}")
    await page.wait_for_selector(".match .board-holder svg")
    return opponent, start["match"]


async def test_renju_crosses_out_black_s_forbidden_points_and_a_click_on_one_sends_nothing(new_page, site: Site):
    page = await new_page()
    white, match = await challenged(page, site, "renju")
    assert "Renju (RIF)" in await page.inner_text(".match-title")
    assert await page.locator(".cell").count() == 225
    for ply, move in enumerate(OPENING):
        if ply % 2:
            await play_move(white, match, ply, move)
            continue
        await page.wait_for_selector(".match.my-turn")
        assert await page.locator(".cell.forbidden").count() == 0  # nothing is forbidden yet
        await page.click(f'.cell[data-cell="{move[0]},{move[1]}"]')
        await white.expect("moved", match=match, ply=ply)
    await page.wait_for_selector(".match.my-turn")
    forbidden = page.locator(".cell.forbidden")
    await forbidden.first.wait_for()
    assert await forbidden.count() == 1
    point = page.locator(DOUBLE_THREE)
    assert await point.get_attribute("aria-label") == "forbidden for black: double-three"
    assert await point.locator(".forbidden-mark line").count() == 2
    await page.screenshot(path=screenshot_path("renju"), full_page=True)

    await point.click()
    await page.wait_for_selector("#hint.show")
    assert "double-three" in await page.inner_text("#hint")
    await page.wait_for_timeout(200)  # room for a wrongly sent move to come back
    assert await point.get_attribute("data-stone") == "empty" and await page.locator(".cell.pending").count() == 0
    assert not [m for m in white.pending("moved") if m["ply"] == len(OPENING)]
    await page.click('.cell[data-cell="7,9"]')  # a legal point: played, and white to move has no marks
    await white.expect("moved", match=match, ply=len(OPENING))
    await page.wait_for_function("() => !document.querySelector('.cell.forbidden')")

    await play_move(white, match, len(OPENING) + 1, [14, 0])
    await page.wait_for_selector(".match.my-turn")  # black to move again, the double-three still there
    await page.wait_for_selector(f"{DOUBLE_THREE}.forbidden")
    await page.reload()  # a fresh match_state brings the marks back
    await page.wait_for_selector(f"{DOUBLE_THREE}.forbidden")
    await page.get_by_role("button", name="Resign").click()
    await page.get_by_role("button", name="Really resign?").click()
    await page.wait_for_selector("#result:not([hidden])")
    assert await page.locator(".cell.forbidden").count() == 0  # the game is over: nothing to forbid
    await page.get_by_role("link", name="Replay", exact=True).click()
    await page.wait_for_selector("#replay-ply")
    assert "Renju (RIF)" in await page.inner_text(".match-title")
    await white.close()


async def test_caro_exactly_five_is_named_in_the_header(new_page, site: Site) -> None:
    page = await new_page()
    white, match = await challenged(page, site, "caro", {"exact": True})
    assert "Caro, exactly five" in await page.inner_text(".match-title")
    assert (await white.request("abort", match=match))["type"] == "ok"
    await white.close()


async def test_a_guest_plays_caro_against_the_bot_to_the_end(new_page, arena: Arena) -> None:
    page = await new_page()
    offered = await page.eval_on_selector_all("#game option", "els => els.map((e) => e.textContent)")
    assert {"renju", "caro"} <= {text.split(" — ")[0] for text in offered}, offered  # the lobby offers both
    await start_game(page, "caro", arena.bot, color="first")
    title = await page.inner_text(".match-title")
    assert title.startswith("caro") and "Caro" in title and "exactly" not in title
    assert await page.locator(".cell").count() == 225
    assert await play_mnk_to_end(page, 0, 5) >= 5
    await page.wait_for_selector("#result:not([hidden])")
    assert "You won" in await page.inner_text("#result")  # five in a row against random moves
    assert await page.locator(".win-line").count() == 1
    assert await page.locator(".cell.forbidden").count() == 0
