"""The swap openings in headless Chromium: the opening rule in the lobby form (a select of the game's
parameters) and in the game's header; a swap2 game in which the page's player places the three stones by
clicks (the status says which), the other player (a client of the test's own) places two more, and the
page chooses with the buttons its options allow while its clock runs; after the choice the view is
rebuilt in colour order and the page plays on as white; a spectator sees the phase; the replay names
the opening and the choices."""

from __future__ import annotations

import pytest
from browser_arena import Site, screenshot_path

from tests.support.wsclient import Client, play_move

pytestmark = pytest.mark.asyncio(loop_scope="module")

PARAMS = {"opening": "swap2"}
PROPOSAL = [[7, 7], [8, 7], [7, 9]]  # the page's three stones (black, white, black)
PLACED = [[8, 8], [6, 6]]  # the chooser's two more (white, black)


async def test_the_lobby_form_offers_the_opening_rule_for_gomoku(new_page, site: Site):
    page = await new_page()
    await page.select_option("#game", "gomoku")
    opening = page.locator('select[name="param-opening"]')
    assert await opening.evaluate("(s) => [...s.options].map((o) => o.value)") == ["none", "swap1", "swap2"]
    await page.select_option("#game", "tictactoe")
    assert await page.locator('select[name="param-opening"]').count() == 0  # not a gomoku-family game


async def test_a_swap2_game_through_the_choice_buttons(new_page, site: Site):
    page = await new_page()
    chooser = await Client.connect(site.server.url, features=["swap"])
    name = await page.inner_text("#me .who")
    fields = {"to": name, "game": "gomoku", "params": PARAMS, "clock": {"initial_ms": 600_000}, "color": "second"}
    created = await chooser.request("challenge", **fields)
    assert created["type"] == "challenge_created", created
    await page.get_by_role("button", name="Accept").click()
    start = await chooser.expect("match_start")
    match = start["match"]
    assert start["swap"]["phase"] == "place" and start["swap"]["to_act"] == 0  # the page's guest opens
    await page.wait_for_url(f"**/#/match/{match}")
    await page.wait_for_selector(".match .board-holder svg")
    assert "Swap2 opening" in await page.inner_text(".match-title")

    for ply, (x, y) in enumerate(PROPOSAL):  # the opener places all three, black, white, black
        await page.wait_for_selector(".match.my-turn")
        assert f"Place stone {ply + 1} of 3" in await page.inner_text("#match-status")
        await page.click(f'.cell[data-cell="{x},{y}"]')
        await chooser.expect("moved", match=match, ply=ply)
    await page.wait_for_function("() => document.querySelector('#match-status').textContent.includes('chooses')")
    assert await page.locator("#swap-choice").is_hidden()  # the chooser's turn, not the page's

    spectator = await new_page()  # a stranger watching sees the phase
    await spectator.goto(f"{site.url}#/match/{match}")
    await spectator.wait_for_function(
        "() => (document.querySelector('#match-status') || {}).textContent?.includes('Swap2 opening')"
    )

    assert (await chooser.request("swap", match=match, choice="place"))["type"] == "ok"
    for ply, move in enumerate(PLACED, start=len(PROPOSAL)):
        await play_move(chooser, match, ply, move)
    buttons = page.locator("#swap-choice button")
    await buttons.first.wait_for()
    assert await buttons.all_inner_texts() == ["Black", "White"]
    assert "Your choice" in await page.inner_text("#match-status")
    await page.wait_for_selector('.player-bar.to-move .clock.running[data-color="0"]')  # the chooser's clock runs
    await page.screenshot(path=screenshot_path("swap2-choice"), full_page=True)

    await page.get_by_role("button", name="White").click()
    swapped = await chooser.expect("swapped", match=match, choice="white")
    assert swapped["choice"] == "white" and swapped["swap"]["phase"] == "done"
    await page.wait_for_selector("#swap-choice", state="hidden")
    await page.wait_for_selector(".match.my-turn")  # white moves sixth: the page
    assert await page.locator(".player-bar .badge.you").count() == 1
    await page.click('.cell[data-cell="9,9"]')
    await chooser.expect("moved", match=match, ply=5)
    await spectator.wait_for_function("() => document.querySelector('#match-status').textContent.includes('to move')")

    await page.get_by_role("button", name="Resign").click()
    await page.get_by_role("button", name="Really resign?").click()
    await page.wait_for_selector("#result:not([hidden])")
    await page.get_by_role("link", name="Replay", exact=True).click()
    await page.wait_for_selector("#replay-ply")
    assert "Swap2 opening" in await page.inner_text(".match-title")
    record = await page.inner_text("#swap-record")
    assert "placed two more" in record and "took white" in record
    await chooser.close()


async def test_the_chooser_places_two_more_and_the_opener_s_choice_settles_the_colours(new_page, site: Site):
    page = await new_page()
    opener = await Client.connect(site.server.url, features=["swap"])
    name = await page.inner_text("#me .who")
    fields = {"to": name, "game": "gomoku", "params": PARAMS, "clock": {"initial_ms": 600_000}, "color": "first"}
    assert (await opener.request("challenge", **fields))["type"] == "challenge_created"
    await page.get_by_role("button", name="Accept").click()
    match = (await opener.expect("match_start"))["match"]
    await page.wait_for_url(f"**/#/match/{match}")
    for ply, move in enumerate(PROPOSAL):
        await play_move(opener, match, ply, move)
    buttons = page.locator("#swap-choice button")
    await page.wait_for_function("() => document.querySelectorAll('#swap-choice button').length === 3")
    assert await buttons.all_inner_texts() == ["Black", "White", "Place two more"]
    await page.wait_for_selector('.clock.running[data-color="1"]')  # the chooser's (the page's seat) runs
    await page.get_by_role("button", name="Place two more").click()
    for ply, (x, y) in enumerate(PLACED, start=len(PROPOSAL)):
        await page.wait_for_selector(".match.my-turn")
        assert f"Place stone {ply + 1} of 5" in await page.inner_text("#match-status")
        await page.click(f'.cell[data-cell="{x},{y}"]')
        await opener.expect("moved", match=match, ply=ply)
    await page.wait_for_function("() => document.querySelector('#match-status').textContent.includes('chooses')")
    assert (await opener.request("swap", match=match, choice="black"))["type"] == "ok"
    await page.wait_for_selector(".match.my-turn")  # the opener took black: the page is white, sixth to move
    assert "Your turn" in await page.inner_text("#match-status")
    await page.click('.cell[data-cell="9,9"]')
    await opener.expect("moved", match=match, ply=5)
    await opener.close()
