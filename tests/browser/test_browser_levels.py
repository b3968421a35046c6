"""A guest picks a bot and its level in headless Chromium: the lobby lists the bot's levels, the form's
level select offers them (the middle one by default), and the real gomoku bot plays the match at the
level picked, as its own record of every decision shows."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from browser_arena import Site, pooled_bot

from arbiter.bots.client import BotClient, BotSettings
from arbiter.bots.gomoku.brain import GomokuBrain
from tests.support.guest import play_mnk_to_end, start_game

pytestmark = pytest.mark.asyncio(loop_scope="module")

BOT = "alphabeta"
GAME = "tictactoe4"  # the smallest board the gomoku bot plays: a quick game at any level


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def gomoku_bot(site: Site) -> AsyncIterator[BotClient]:
    """The real gomoku bot (several levels), in this process with its own one-worker pool."""
    async with pooled_bot(site, BOT, GomokuBrain, BotSettings(games=(GAME,))) as client:
        yield client


async def test_a_guest_picks_the_bot_s_level_and_the_bot_plays_at_it(new_page, gomoku_bot: BotClient) -> None:
    page = await new_page()
    row = page.locator(f'#bots [data-player="{BOT}"]')
    assert await row.locator(".levels").inner_text() == f"levels 1–{GomokuBrain.levels}"
    await page.select_option("#game", GAME)
    await page.select_option("#opponent", BOT)
    offered = await page.eval_on_selector_all("#level option", "els => els.map(e => e.value)")
    assert offered == [str(level) for level in range(1, GomokuBrain.levels + 1)]
    # The suggestion and the levels' descriptions come with the pool's ratings (a fetch): wait for them.
    await page.wait_for_function("() => document.querySelector('#level-suggestion').textContent !== ''")
    assert await page.input_value("#level") == "1"  # a guest's first game: the weakest is suggested
    assert await page.inner_text("#level-suggestion") == "Suggested: level 1 (the weakest, for a first game)"
    assert "beginner" in await page.inner_text('#level option[value="1"]')  # each level says what it is
    await page.select_option("#opponent", "")  # an open seek names no level
    assert await page.locator("#level").is_hidden()

    await start_game(page, GAME, BOT, color="first", level=2)
    assert await page.inner_text('.player-bar[data-color="1"] .badge.level') == "level 2"
    await play_mnk_to_end(page, 0, 4)
    (record,) = await asyncio.wait_for(gomoku_bot.wait_finished(1), 60)
    assert record["level"] == 2
    assert record["decisions"] and {d["info"]["level"] for d in record["decisions"]} == {2}
    assert all(d["source"] == "brain" for d in record["decisions"])


async def test_after_three_games_against_bots_the_lobby_suggests_the_level_closest_to_an_even_score(
    new_page, gomoku_bot: BotClient
) -> None:
    page = await new_page()
    # Three wins at level 2 (what the match view remembers at each end): the bot's levels have no
    # ratings yet in this pool, so the suggestion is one level up.
    await page.evaluate(
        "() => localStorage.setItem('arbiter.botGames', JSON.stringify("
        f"[1, 1, 1].map((score) => ({{ bot: '{BOT}', level: 2, score }}))))"
    )
    await page.reload()
    await page.wait_for_selector("#status[data-state=open]")
    await page.select_option("#game", GAME)
    await page.select_option("#opponent", BOT)
    await page.wait_for_function("() => document.querySelector('#level-suggestion').textContent.includes('last 3')")
    assert await page.input_value("#level") == "3"
    await page.select_option("#level", "4")  # the person's choice stands over the suggestion
    await page.select_option("#clock", index=1)
    assert await page.input_value("#level") == "4"


async def test_a_signed_in_person_plays_rated_at_a_level_and_the_lobby_shows_that_level_s_rating(
    new_page, site: Site, gomoku_bot: BotClient
) -> None:
    """Rated play from the browser: guests cannot tick "Rated"; a signed-in person can, the game
    rates the person and the bot's level-2 identity in the game's pool (the default clock, 5+3:
    blitz), level 4 stays untouched, and the lobby then shows level 2's rating beside it, and names
    another pool (from the server) when a rule changes."""
    token = await site.store.add_player("carol", "human")
    page = await new_page()
    assert await page.locator("#rated").is_disabled()  # a guest: never rated
    await page.click('a[data-nav="account"]')
    await page.fill('#token-sign-in input[name="token"]', token)
    await page.click('#token-sign-in button[type="submit"]')
    await page.wait_for_function("() => document.querySelector('#me .who')?.textContent === 'carol'")
    await page.click('a[data-nav="lobby"]')
    await page.check("#rated")
    await start_game(page, GAME, BOT, color="first", level=2)
    await play_mnk_to_end(page, 0, 4)
    pool = "tictactoe4/blitz"
    await site.store.flush()
    carol, level2 = await site.store.get_rating("carol", pool), await site.store.get_rating(BOT, pool, 2)
    assert (carol.games, level2.games) == (1, 1)
    assert (await site.store.get_rating(BOT, pool, 4)).games == 0  # another level: another identity
    assert (await site.store.get_rating(BOT, pool)).games == 0  # nor the bot's own level

    await page.click('[data-nav="lobby"]')
    await page.select_option("#game", GAME)
    await page.select_option("#opponent", BOT)
    await page.select_option("#level", "2")
    shown = f"{BOT}@2: {round(level2.rating)}? in {pool} (1 game)"
    await page.wait_for_function(f"() => document.querySelector('#opponent-rating')?.textContent === {shown!r}")
    option = await page.inner_text('#level option[value="2"]')
    assert option == f"2 — casual: sees a move or two ahead — {round(level2.rating)}?"  # its description, its rating
    await page.select_option("#level", "4")
    await page.wait_for_function(
        f"() => document.querySelector('#opponent-rating')?.textContent === '{BOT} has no rating in {pool} yet'"
    )
    await page.check('input[name="param-exact"]')  # another rule, another pool: the server names it (pools.py)
    await page.wait_for_function(
        f"() => document.querySelector('#opponent-rating')?.textContent === "
        f"'{BOT} has no rating in {GAME}[exact=true]/blitz yet'"
    )
