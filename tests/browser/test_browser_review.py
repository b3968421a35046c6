"""Game review and the analysis board in headless Chromium, with the real analysis worker as its own
process (``arbiter analyse``): a guest loses tic-tac-toe to the ``perfect`` bot, and the review shows
the evaluation graph, marks the losing blunder and draws the better move on the board; on the
analysis board a variation gets its own evaluation, a request over the person's limit says so, and
"Back to the game" returns to the replay; every family's board draws a mistake's better line. With
no worker online, the page says so."""

from __future__ import annotations

import json
import subprocess
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from accessibility import audit
from browser_arena import Site, analysis_worker, pooled_bot, screenshot_path

from arbiter.bots.client import BotClient, BotSettings
from arbiter.bots.perfect import PerfectBrain
from arbiter.server import ServerConfig, run_server
from arbiter.server.store.sqlite import SqliteStore
from tests.support.guest import cells, start_game, wait_turn
from tests.support.wsclient import Client, play_out, start_match

pytestmark = pytest.mark.asyncio(loop_scope="module")

BOT = "perfect"
WORKER = "analyst"
GAME = "tictactoe"
ANALYSE_BURST = 3  # the analysis-board test asks for three positions, then one too many
# A short random game of each other family (seeds picked for their length), reviewed in the browser.
FAMILY_GAMES = {"ttt3d": 4, "vanishing": 15, "paper_soccer": 16, "gomoku10": 18}
LETTERS = "abcdefghijklmnopqrstuvwxyz"
LINES = [[(x, y) for x in range(3)] for y in range(3)] + [[(x, y) for y in range(3)] for x in range(3)]
LINES += [[(i, i) for i in range(3)], [(i, 2 - i) for i in range(3)]]
GRAPH_SHOWN = "() => document.querySelector('#eval-graph:not([hidden])')"
EVALUATED = "document.querySelector('#variation-eval')?.dataset.state === 'done'"


def evaluation_shows(text: str, also: str = "true") -> str:
    """A wait_for_function body: the analysis board's evaluation is back and reads ``text``."""
    shows = f"document.querySelector('#variation-eval').textContent.includes({json.dumps(text)})"
    return f"() => {EVALUATED} && {shows} && {also}"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def site(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Site]:
    """This module's own site: reviews at 50 ms a position, so each review here takes a second or two;
    a person's analysis-board requests: ``ANALYSE_BURST``, then hardly ever (each test is a new guest)."""
    store = SqliteStore(tmp_path_factory.mktemp("review") / "review.db")
    config = ServerConfig(
        port=0, reconnect_grace_s=30.0, review_budget_ms=50, analyse_burst=ANALYSE_BURST, analyse_per_s=0.001
    )
    async with run_server(config, store) as server:
        yield Site(server, store)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def worker(site: Site) -> AsyncIterator[subprocess.Popen[bytes]]:
    """The real analysis worker as its own process, for the games reviewed here."""
    token = await site.store.add_player(WORKER, "bot")
    async with analysis_worker(site.server, WORKER, token, ",".join([GAME, *FAMILY_GAMES])) as process:
        yield process


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def perfect_bot(site: Site) -> AsyncIterator[BotClient]:
    """The real ``perfect`` bot, in this process with its own one-worker pool."""
    async with pooled_bot(site, BOT, PerfectBrain, BotSettings(games=(GAME,))) as client:
        yield client


def losing_cell(board: dict[tuple[int, ...], str], me: str) -> tuple[int, ...]:
    """The first empty cell that neither blocks the opponent's open two nor completes a line of mine:
    against perfect play, a loss (the opponent's two stays open until it completes it)."""
    opponent = "1" if me == "0" else "0"
    empty = [(x, y) for y in range(3) for x in range(3) if board[(x, y)] == "empty"]

    def decides(cell: tuple[int, int]) -> bool:
        lines = (line for line in LINES if cell in line)
        return any([board[c] for c in line if c != cell] in ([opponent] * 2, [me] * 2) for line in lines)

    return next((cell for cell in empty if not decides(cell)), empty[0])


async def lose_a_game(page: Any) -> str:
    """Play second against the perfect bot, never blocking it, until it wins; the match id."""
    match = await start_game(page, GAME, BOT, color="second")
    while await wait_turn(page):
        x, y = losing_cell(await cells(page), "1")
        await page.click(f'.cell[data-cell="{x},{y}"]')
        placed = f'document.querySelector(\'.cell[data-cell="{x},{y}"][data-stone="1"]\')'
        await page.wait_for_function(f"() => {placed} || document.querySelector('#result')?.hidden === false")
    assert "You lost" in await page.inner_text("#result")
    return match


async def stored_review(page: Any, match: str) -> dict[str, Any]:
    return await page.evaluate("async (m) => (await fetch(`/review.json?match=${m}`)).json()", match)


def losing_blunder(review: dict[str, Any], side: int) -> dict[str, Any]:
    """The move of ``side`` after which it was lost (the first whose after-chance is 0)."""
    return next(m for m in review["moves"] if m["side"] == side and m["win_after"] == 0)


async def test_the_review_of_a_game_lost_to_the_bot_marks_the_losing_blunder_and_shows_the_better_move(
    new_page, perfect_bot: BotClient, worker: subprocess.Popen[bytes]
) -> None:
    page = await new_page()
    match = await lose_a_game(page)
    await page.click("#review-link")
    await page.wait_for_url(f"**/#/review/{match}")
    await page.wait_for_function(GRAPH_SHOWN)
    review = await stored_review(page, match)
    assert len(review["positions"]) == len(review["moves"]) + 1
    blunder = losing_blunder(review, 1)
    assert blunder["class"] == "blunder" and blunder["win_before"] >= 0.5  # tic-tac-toe is a draw until then
    ply = blunder["ply"]

    item = page.locator(f'.replay-moves [data-ply="{ply}"]')
    assert await item.get_attribute("data-judgement") == "blunder"
    assert (await item.locator(".judgement").inner_text()).startswith("??")
    assert await page.locator(f'#eval-graph .graph-dot.blunder[data-ply="{ply}"]').count() == 1
    assert await page.get_attribute("#eval-graph .graph-curve", "d")
    label = await page.get_attribute("#eval-graph", "aria-label")
    assert label.endswith("win chance is 0%"), label  # from the guest's own side: it lost
    side = page.locator('#review-summary tr[data-side="1"]')
    assert int(await side.locator("td").nth(5).inner_text()) >= 1  # the blunders column

    await item.click()
    await page.wait_for_selector("#review-best")
    x, y = blunder["best"]
    assert f"Better was {LETTERS[x]}{y + 1}" in await page.inner_text("#review-best")
    assert await page.inner_text("#review-move") == f"{ply + 1}. {blunder_text(blunder)} by {blunder['name']}: " + (
        f"blunder (win chance {round(blunder['win_before'] * 100)}% → 0%)"
    )
    best = page.locator(".board .best-line .line-move.best")
    assert await best.get_attribute("data-cell") == f"{x},{y}"
    await page.screenshot(path=screenshot_path("review"))
    assert await audit(page) == []  # the review page: no serious or critical accessibility violation

    await page.click(f'.replay-moves [data-ply="{ply - 1}"]')  # the bot's move before: no line drawn
    await page.wait_for_function(f"() => document.querySelector('#replay-ply').textContent.startsWith('{ply} /')")
    assert await page.locator(".board .best-line").count() == 0
    said = review["moves"][ply - 1]["info"]  # what the bot said of its move during the game, beside it
    assert said and f"{BOT} said during the game" in await page.inner_text("#review-info")


def blunder_text(move: dict[str, Any]) -> str:
    x, y = move["move"]
    return f"{LETTERS[x]}{y + 1}"


async def test_an_analysis_variation_gets_its_own_evaluation_and_the_game_is_left_as_it_was(
    new_page, perfect_bot: BotClient, worker: subprocess.Popen[bytes]
) -> None:
    page = await new_page()
    match = await lose_a_game(page)
    await page.goto(f"{page.url.split('#')[0]}#/review/{match}")
    await page.wait_for_function(GRAPH_SHOWN)
    blunder = losing_blunder(await stored_review(page, match), 1)
    ply = blunder["ply"]
    await page.click(f'.replay-moves [data-ply="{ply - 1}"]')  # the position the blunder was played in
    await page.wait_for_function(f"() => document.querySelector('#replay-ply').textContent.startsWith('{ply} /')")
    stones = await page.locator(".match .cell:not([data-stone=empty])").count()
    assert stones == ply

    await page.click("#analyse-button")
    await page.wait_for_function(f"() => {EVALUATED}")
    guest = (await page.inner_text("#me .who")).strip()
    assert f"{guest} 50%" in await page.inner_text("#variation-eval")  # still a draw before the blunder
    x, y = blunder["move"]
    await page.click(f'#variations .cell[data-cell="{x},{y}"]')  # the blunder again, on the copy
    await page.wait_for_function(evaluation_shows(f"{guest} 0%"))
    assert await page.locator("#variation-tree .variation-move.current[data-ply]").get_attribute("data-ply") == str(ply)
    assert await page.locator("#variations .best-line .line-move.best").count() == 1  # the bot's winning reply

    await page.click("#variation-tree .variation-move.start")  # back to where it was played
    await page.wait_for_function(evaluation_shows(f"{guest} 50%"))
    bx, by = blunder["best"]
    await page.click(f'#variations .cell[data-cell="{bx},{by}"]')  # the better move: a second variation
    two = "document.querySelectorAll('#variation-tree .variation-move[data-ply]').length === 2"
    await page.wait_for_function(evaluation_shows(f"{guest} 50%", two))  # the draw kept
    await page.screenshot(path=screenshot_path("analysis-board"))
    empty = await page.eval_on_selector_all("#variations .cell[data-stone=empty]", "cs => cs.map(c => c.dataset.cell)")
    await page.click(f'#variations .cell[data-cell="{empty[0]}"]')  # a fourth position: over the limit
    await page.wait_for_selector("#variation-eval[data-code=rate_limited]")
    assert "limits how often you can ask" in await page.inner_text("#variation-eval")
    assert await page.locator("#variation-again").is_visible()

    await page.click("#variation-back")
    await page.wait_for_selector("#variations", state="detached")
    assert await page.locator(".match .cell:not([data-stone=empty])").count() == stones  # the replay as it was
    assert await page.inner_text("#replay-ply") == f"{ply} / {len((await stored_review(page, match))['moves'])}"


@pytest.mark.parametrize("game", sorted(FAMILY_GAMES))
async def test_every_family_s_board_draws_a_mistake_s_better_line(
    new_page, site: Site, worker: subprocess.Popen[bytes], game: str
) -> None:
    players = (await Client.connect(site.server.url), await Client.connect(site.server.url))
    match = await start_match(*players, game)
    await play_out(players, match, game, None, FAMILY_GAMES[game])
    page = await new_page()
    await page.goto(f"{site.url}#/review/{match}")
    await page.wait_for_function(GRAPH_SHOWN)
    review = await stored_review(page, match)
    flawed = next(m for m in review["moves"] if m["class"] in ("inaccuracy", "mistake", "blunder") and m["best"])
    await page.click(f'.replay-moves [data-ply="{flawed["ply"]}"]')
    await page.wait_for_selector("#review-best")
    assert await page.locator(".board-holder .best-line .line-move.best").count() == 1
    await page.screenshot(path=screenshot_path(f"review-{game}"))
    for client in players:
        await client.close()


async def test_with_no_worker_online_the_review_and_the_analysis_board_say_so(new_page, tmp_path: Any) -> None:
    async with run_server(ServerConfig(port=0), SqliteStore(tmp_path / "bare.db")) as bare:
        players = (await Client.connect(bare.url), await Client.connect(bare.url))
        match = await start_match(*players, GAME)
        await play_out(players, match, GAME, None, 4)
        page = await new_page()
        await page.goto(f"{bare.http_url}/#/replay/{match}")
        await page.click("#review-button")
        await page.wait_for_selector("#review-status[data-code=no_analysis_worker]")
        assert "No analysis worker is online" in await page.inner_text("#review-status")
        assert await page.locator("#review-retry").is_visible()
        await page.click("#analyse-button")
        await page.wait_for_selector("#variation-eval[data-code=no_analysis_worker]")
        for client in players:
            await client.close()
