"""Player pages in headless Chromium: a bot's page opened from the leaderboard shows its rating
with a chart and its failure report; the failure offers its turn as a request file to download, and
the refused move's replay link opens the replay at that ply;
player names link to their pages from the replay; /player/NAME and an unknown name."""

from __future__ import annotations

import pytest
from browser_arena import Site, screenshot_path

from tests.support.guest import cells
from tests.support.wsclient import Client, play_move, start_match

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def refused_then_lost(site: Site) -> str:
    """A rated game over real sockets: ``blunder`` has an illegal move refused at ply 2, plays a
    legal one, then resigns to ``steady``. The match id."""
    tokens = {name: await site.store.add_player(name, "bot") for name in ("steady", "blunder")}
    blunder = await Client.connect(site.server.url, token=tokens["blunder"])
    steady = await Client.connect(site.server.url, token=tokens["steady"])
    try:
        match = await start_match(blunder, steady, rated=True)
        assert (await play_move(blunder, match, 0, [1, 1]))["type"] == "moved"
        assert (await play_move(steady, match, 1, [0, 0]))["type"] == "moved"
        assert (await play_move(blunder, match, 2, [0, 0]))["code"] == "illegal_move"
        assert (await play_move(blunder, match, 2, [2, 2]))["type"] == "moved"
        assert (await blunder.request("resign", match=match))["type"] == "ok"
        await steady.expect("end", match=match)
    finally:
        await blunder.close()
        await steady.close()
    return match


async def test_a_bots_failure_leads_from_the_leaderboard_to_the_replay_at_its_ply(new_page, site: Site) -> None:
    match = await refused_then_lost(site)
    page = await new_page()
    await page.goto(site.url + "#/leaderboard/tictactoe")
    await page.locator("#leaderboard").get_by_role("link", name="blunder", exact=True).click()

    await page.wait_for_selector("#player-name")
    assert (await page.inner_text("#player-name")).startswith("blunder")
    assert await page.locator('#player-ratings tr[data-pool="tictactoe/bullet"]').count() == 1
    failure = page.locator(f'#failures > li[data-match="{match}"]')
    await failure.wait_for()
    assert await failure.get_attribute("data-ply") == "2"
    refusal = failure.locator('.refusals li[data-ply="2"]')
    assert "illegal_move" in await refusal.inner_text()
    download = failure.locator(".failure-head").get_by_role("link", name="Download request")
    assert await download.get_attribute("href") == f"/request.json?match={match}&ply=2"
    assert await download.get_attribute("download") == ""
    fetched = await page.evaluate(
        "async (href) => (await (await fetch(href)).json()).moves", "/request.json?match=" + match + "&ply=2"
    )
    assert fetched == [[1, 1], [0, 0]]  # the turn the refused move was sent in
    assert "1 lost (0 on time)" in await page.inner_text("#failure-counts")
    assert "1 refused moves in 1 games" in await page.inner_text("#failure-counts")
    assert await page.locator(f'#player-thinking[data-match="{match}"] tr[data-ply]').count() == 2
    await refusal.locator("summary").click()
    await page.screenshot(path=screenshot_path("player_page"), full_page=True)

    await refusal.get_by_role("link", name="ply 2").click()
    await page.wait_for_selector("#replay-ply")
    await page.wait_for_function("() => document.querySelector('#replay-ply')?.textContent === '2 / 3'")
    assert sorted(stone for stone in (await cells(page)).values() if stone != "empty") == ["0", "1"]
    assert page.url.endswith(f"#/replay/{match}/2")

    await page.locator(".replaying .players").get_by_role("link", name="steady").click()
    await page.wait_for_selector("#player-name")
    assert (await page.inner_text("#player-name")).startswith("steady")
    assert await page.locator("#player-failures").count() == 1  # steady is a bot too: it lost nothing
    game = page.locator(f'#player-games li[data-match="{match}"]')
    await page.evaluate("document.querySelector('#player-thinking').remove()")
    await game.get_by_role("button", name="Times").click()  # that game's thinking times, fetched again
    await page.locator(f'#player-thinking[data-match="{match}"] tr[data-ply="1"]').wait_for()


async def test_player_paths_open_the_page_and_an_unknown_name_says_so(new_page, site: Site) -> None:
    await site.store.add_player("newcomer", "human")
    page = await new_page()
    await page.goto(site.url + "player/newcomer")
    await page.wait_for_selector("#player-name")
    assert page.url.endswith("/#/player/newcomer")
    assert "No rated games yet." in await page.inner_text("#player-ratings")
    assert await page.locator("#player-failures").count() == 0  # a failure report is for bots
    await page.goto(site.url + "#/player/nobody")
    alert = page.locator(".player-page [role=alert]")
    await alert.wait_for()
    assert "no player named 'nobody'" in await alert.inner_text()
