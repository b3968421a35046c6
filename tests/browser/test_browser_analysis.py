"""Spectators see the bots' analysis in headless Chromium: the evaluation bar moves with each move's
`info`, the principal variation reads in the game's notation, a checkbox hides it, and the players
themselves never see it during their game."""

from __future__ import annotations

import pytest
from browser_arena import Site, screenshot_path

from tests.support.wsclient import Client, start_match

pytestmark = pytest.mark.asyncio(loop_scope="module")

AHEAD = {"score": 150, "unit": "cp", "depth": 7, "nodes": 52000, "pv": [[7, 7], [8, 8]]}
BEHIND = {"score": -0.9, "unit": "win", "depth": 8}  # not a probability: refused, the move not played
LOSING = {"score": 0.1, "unit": "win", "depth": 8, "pv": [[9, 9]]}


async def bar_width(page) -> float:
    return float(await page.evaluate("parseFloat(document.querySelector('#eval-fill').style.width)"))


async def test_spectators_follow_the_evaluation_bar_and_the_players_never_see_it(new_page, site: Site) -> None:
    first, second = await Client.connect(site.server.url), await Client.connect(site.server.url)
    match = await start_match(first, second, "gomoku")
    watcher = await new_page()
    await watcher.goto(f"{site.url}#/match/{match}")
    await watcher.wait_for_selector(".match .board-holder svg")
    assert await watcher.locator("#analysis").is_hidden()  # nothing to show yet

    await first.send({"type": "move", "match": match, "ply": 0, "move": [7, 7], "info": AHEAD})
    await watcher.wait_for_selector("#analysis:not([hidden])")
    assert await bar_width(watcher) > 65  # the first player is ahead by 1.50
    assert "+1.50" in await watcher.inner_text("#analysis-line")
    assert await watcher.inner_text("#analysis-pv") == "PV: h8 i9"

    refused = await second.request("move", match=match, ply=1, move=[8, 8], info=BEHIND)
    assert refused["code"] == "bad_field"
    await second.send({"type": "move", "match": match, "ply": 1, "move": [8, 8], "info": LOSING})
    await watcher.wait_for_function("() => parseFloat(document.querySelector('#eval-fill')?.style.width) > 85")
    assert "win 10%" in await watcher.inner_text("#analysis-line")  # the second player's own estimate
    await watcher.screenshot(path=screenshot_path("analysis"))

    await watcher.click("#analysis-toggle")
    assert await watcher.locator(".analysis-body").is_hidden()
    await watcher.reload()  # the choice is remembered, and a fresh snapshot brings the analysis back
    await watcher.wait_for_selector("#analysis:not([hidden])")
    assert await watcher.locator(".analysis-body").is_hidden()
    await watcher.click("#analysis-toggle")
    assert await bar_width(watcher) > 85

    assert "infos" not in (await second.request("sync", match=match))  # a player's snapshot has none
    await first.close()
    await second.close()


async def test_in_a_rated_game_the_evaluation_bar_follows_some_plies_late(new_page, site: Site) -> None:
    first = await Client.connect(site.server.url, token=await site.store.add_player("deepthought", "bot"))
    second = await Client.connect(site.server.url, token=await site.store.add_player("shallowthought", "bot"))
    match = await start_match(first, second, "gomoku", rated=True)
    watcher = await new_page()
    await watcher.goto(f"{site.url}#/match/{match}")
    await watcher.wait_for_selector(".match .board-holder svg")
    delay = site.server.hub.config.analysis_delay_plies
    assert delay is not None and delay > 0
    for ply in range(delay):  # nothing shown while the analyses are held back
        mover = first if ply % 2 == 0 else second
        await mover.send({"type": "move", "match": match, "ply": ply, "move": [ply, 0], "info": AHEAD})
        await watcher.wait_for_selector(f'#moves .move[data-ply="{ply}"]')
    assert await watcher.locator("#analysis").is_hidden()
    await (first if delay % 2 == 0 else second).send({"type": "move", "match": match, "ply": delay, "move": [delay, 0]})
    await watcher.wait_for_selector("#analysis:not([hidden])")  # the first move's analysis, released
    assert await bar_width(watcher) > 65 and "+1.50" in await watcher.inner_text("#analysis-line")
    assert "deepthought" in await watcher.inner_text("#analysis-line")  # the first move's mover
    await first.close()
    await second.close()
