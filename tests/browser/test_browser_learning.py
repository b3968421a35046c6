"""A person learning against our bot in headless Chromium (SPEC.md section 15): keyboard play, a takeback
the bot grants, a hint, the sound switch remembered across visits, "Your turn" in a background tab's
title, and the axe-core accessibility audit with no serious or critical violation on the lobby and a game."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from accessibility import audit
from browser_arena import Site

from arbiter.bots.client import BotClient, BotSettings
from arbiter.bots.perfect import PerfectBrain
from arbiter.bots.pool import BrainPool
from tests.support.guest import moves_shown, start_game, wait_turn

pytestmark = pytest.mark.asyncio(loop_scope="module")

BOT = "teacher"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def teacher(site: Site) -> AsyncIterator[BotClient]:
    """Our perfect tic-tac-toe bot with the default policy: grants takebacks in casual games, gives hints."""
    token = await site.store.add_player(BOT, "bot")
    async with (
        BrainPool(PerfectBrain, workers=1) as pool,
        BotClient(site.server.url, token=token, pool=pool, settings=BotSettings(games=("tictactoe",))).running(
            connect_timeout=60
        ) as client,
    ):
        yield client


async def test_keyboard_play_a_takeback_the_bot_grants_a_hint_sounds_and_the_title(new_page, teacher) -> None:
    page = await new_page()
    switch = page.locator("#sound-switch")
    assert await switch.get_attribute("aria-pressed") == "false"  # off by default
    await switch.click()
    assert await switch.get_attribute("aria-pressed") == "true"
    await page.reload()
    await page.wait_for_selector("#status[data-state=open]")
    assert await page.locator("#sound-switch").get_attribute("aria-pressed") == "true"  # remembered

    await start_game(page, "tictactoe", BOT, color="first")
    assert await wait_turn(page)
    # Keyboard: Tab's one stop is the board's first cell; the arrows move, Enter plays.
    first = page.locator('.cell[data-cell="0,0"]')
    assert await first.get_attribute("tabindex") == "0" and await first.get_attribute("aria-label") == "a1, empty"
    await first.focus()
    await page.keyboard.press("ArrowDown")
    assert await page.evaluate("() => document.activeElement.dataset.cell") == "0,1"
    await page.keyboard.press("Enter")  # a slip: the edge
    await page.wait_for_function("() => document.querySelectorAll('#moves .move').length === 2")
    me = await page.evaluate("() => document.querySelector('#me .who').textContent")
    assert await page.get_attribute('.cell[data-cell="0,1"]', "aria-label") == f"a2, {me}"
    await page.wait_for_function("() => document.documentElement.dataset.sound === 'move'")  # the bot's move
    label = await page.get_attribute('#moves .move[data-ply="1"]', "aria-label")
    assert label.startswith(f"move 2, {BOT}: ")

    await page.click("#takeback")
    await page.wait_for_function("() => document.querySelectorAll('#moves .move').length === 0")
    assert await page.get_attribute('.cell[data-cell="0,1"]', "data-stone") == "empty"
    assert await wait_turn(page)

    await page.click("#hint-button")
    hint = page.locator("#hint-move")
    await hint.wait_for()
    assert "(1 used)" in await hint.inner_text()
    assert await page.locator("#hint-button").count() == 0  # once per turn

    # A background tab: the title says it is my turn; back in front, it does not.
    await page.evaluate(
        "() => { Object.defineProperty(document, 'hidden', { value: true, configurable: true });"
        " document.dispatchEvent(new Event('visibilitychange')); }"
    )
    assert (await page.title()).startswith("Your turn · ")
    await page.evaluate(
        "() => { Object.defineProperty(document, 'hidden', { value: false, configurable: true });"
        " document.dispatchEvent(new Event('visibilitychange')); }"
    )
    assert not (await page.title()).startswith("Your turn")
    await page.click("text=Resign")
    await page.click("text=Really resign?")
    await page.wait_for_function("() => document.documentElement.dataset.sound === 'end'")
    assert await moves_shown(page) == 0


async def test_no_serious_accessibility_violation_on_the_lobby_and_a_game(new_page, teacher) -> None:
    page = await new_page()
    await page.wait_for_selector(f'#opponent option[value="{BOT}"]', state="attached")
    assert await audit(page) == []
    await start_game(page, "tictactoe", BOT, color="second")
    await page.wait_for_function("() => document.querySelectorAll('#moves .move').length === 1")
    assert await audit(page) == []


async def test_a_person_is_asked_and_declines_then_accepts(new_page) -> None:
    seeker, taker = await new_page(), await new_page()
    await seeker.select_option("#game", "tictactoe")
    await seeker.select_option("#opponent", "")
    await seeker.select_option("#color", "first")
    await seeker.click("#play")
    await seeker.wait_for_selector(".waiting:not([hidden])")
    seek = taker.locator("#seeks li", has_text=await seeker.inner_text("#me .who"))
    await seek.get_by_role("button", name="Accept").click()
    await seeker.wait_for_url("**/#/match/*")
    await seeker.wait_for_selector(".match.my-turn")
    assert await seeker.locator("#hint-button").count() == 0  # hints are a bot's to give
    await seeker.click('.cell[data-cell="0,1"]')
    await taker.wait_for_selector(".match.my-turn")
    await seeker.click("#takeback")
    await seeker.wait_for_selector("#takeback[disabled]")
    await taker.click("#decline-takeback")
    await seeker.wait_for_selector("#takeback:not([disabled])")
    await seeker.click("#takeback")  # asked again at the same ply: refused, and nothing changes
    await seeker.locator(".notice", has_text="declined").wait_for()
    assert await moves_shown(seeker) == 1
    await taker.click('.cell[data-cell="1,1"]')
    await seeker.wait_for_selector(".match.my-turn")
    await seeker.click("#takeback")  # after the reply: both moves go
    await taker.click("#accept-takeback")
    for page in (seeker, taker):
        await page.wait_for_function("() => document.querySelectorAll('#moves .move').length === 0")
    await seeker.wait_for_selector(".match.my-turn")


@pytest.mark.parametrize("game", ["gomoku", "qubic", "paper_soccer", "vanishing"])
async def test_every_board_passes_the_audit_and_takes_the_keyboard(new_page, arena, game: str) -> None:
    page = await new_page()
    await start_game(page, game, arena.bot, color="first")
    await page.wait_for_selector(".match.my-turn")
    assert await audit(page) == []
    stop = page.locator('.board [tabindex="0"]')
    assert await stop.count() == 1 and await stop.get_attribute("aria-label")  # one tab stop, labelled
    await stop.focus()
    await page.keyboard.press("ArrowRight")
    assert await page.evaluate("() => document.activeElement.getAttribute('tabindex')") == "0"  # the stop moved
