"""Everything around playing, in headless Chromium against the real server and bots: watching a
bot-vs-bot game live, replaying it move by move, two guests meeting through an open seek (a third
page sees them playing, then idle), the vanishing and 3-D boards, draw / abort / resign, the
leaderboard, and server errors shown as messages (a refused request, an unknown game, a dropped
connection)."""

from __future__ import annotations

import random
import time
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from browser_arena import Arena, pooled_bot, screenshot_path

from arbiter.bots.client import BotClient, BotSettings, ChallengeFilter
from arbiter.bots.mcts.brain import MctsBrain
from arbiter.protocol.errors import CloseCode
from arbiter.server.results.rating_updates import rate_result
from arbiter.server.store.base import GameStart, MoveRecord
from tests.support.guest import cells, moves_shown, play_mnk_move, start_game, wait_turn

pytestmark = pytest.mark.asyncio(loop_scope="module")

WATCHED_CLOCK = {"initial_ms": 8_000, "increment_ms": 0}  # MCTS spends about 0.3 s a move: a game to watch


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def mcts_bot(arena: Arena) -> AsyncIterator[BotClient]:
    """The real MCTS bot, in this process with its own one-worker pool; it only plays games it asks for."""
    settings = BotSettings(games=("gomoku",), accept=ChallengeFilter(games=frozenset()))
    async with pooled_bot(arena, "mcts", MctsBrain, settings) as client:
        yield client


async def result_text(page) -> str:
    await page.wait_for_selector("#result:not([hidden])")
    return await page.inner_text("#result")


async def test_a_guest_watches_a_bot_versus_bot_game_then_replays_it(new_page, arena: Arena, mcts_bot) -> None:
    page = await new_page()
    await page.wait_for_selector('#bots [data-player="mcts"]')
    await mcts_bot.challenge(arena.bot, "gomoku", WATCHED_CLOCK, color="first")
    row = page.locator("#live-games li", has_text="mcts vs random")
    await row.wait_for()
    await page.screenshot(path=screenshot_path("lobby"), full_page=True)
    await row.get_by_role("link", name="Watch").click()

    await page.wait_for_selector(".match .board-holder svg")
    assert (await page.inner_text("#match-status")).startswith("Watching")
    seen = await moves_shown(page)
    # The moves arrive live.
    await page.wait_for_function(f"() => document.querySelectorAll('#moves .move').length > {seen}")
    assert await page.locator(".match-actions button").count() == 0  # a spectator cannot act
    board = await cells(page)
    empty = next(c for c, s in board.items() if s == "empty")
    await page.click(f'.cell[data-cell="{empty[0]},{empty[1]}"]')
    assert await page.locator(".cell.pending").count() == 0

    text = await result_text(page)
    assert "won" in text or "Draw" in text, text
    assert await page.locator(".clock.running").count() == 0
    plies = await moves_shown(page)
    stones = sum(s != "empty" for s in (await cells(page)).values())
    assert stones == plies

    await page.get_by_role("link", name="Replay", exact=True).click()
    await page.wait_for_selector("#replay-ply")
    assert await page.inner_text("#replay-ply") == f"{plies} / {plies}"
    await page.get_by_role("button", name="first position").click()
    await page.wait_for_function("() => document.querySelector('#replay-ply')?.textContent.startsWith('0 /')")
    assert all(s == "empty" for s in (await cells(page)).values())
    await page.get_by_role("button", name="next move").click()
    await page.keyboard.press("ArrowRight")
    await page.wait_for_function("() => document.querySelector('#replay-ply')?.textContent.startsWith('2 /')")
    assert sorted(s for s in (await cells(page)).values() if s != "empty") == ["0", "1"]
    assert await page.locator(".replay-moves li.current").count() == 1
    paint = "els => els.map(e => getComputedStyle(e).backgroundColor)"
    marks = await page.eval_on_selector_all(".replaying .player .side-mark", paint)  # beside the names...
    pieces = [await page.eval_on_selector(f".stone.p{c}", "e => getComputedStyle(e).fill") for c in (0, 1)]
    assert marks == pieces, (marks, pieces)  # ... each side's stone colour
    await page.get_by_role("button", name="final position").click()
    await page.wait_for_function(f"() => document.querySelector('#replay-ply')?.textContent.startsWith('{plies} /')")
    assert "a line" in await page.inner_text("#result") or "Draw" in text

    await page.click('[data-nav="replays"]')
    await page.wait_for_selector('#finished-games li:has-text("mcts vs random")')


async def test_two_guests_meet_through_an_open_seek(new_page) -> None:
    seeker = await new_page()
    taker = await new_page()
    watcher = await new_page()  # stays in the lobby: it sees the two playing, then idle again
    await seeker.select_option("#game", "tictactoe")
    await seeker.select_option("#opponent", "")
    await seeker.select_option("#color", "first")
    await seeker.click("#play")
    await seeker.wait_for_selector(".waiting:not([hidden])")
    name = await seeker.inner_text("#me .who")
    seek = taker.locator("#seeks li", has_text=name)
    await seek.get_by_role("button", name="Accept").click()
    await seeker.wait_for_url("**/#/match/*")
    await taker.wait_for_url("**/#/match/*")
    assert seeker.url.rsplit("/", 1)[1] == taker.url.rsplit("/", 1)[1]
    listed = watcher.locator(f'#people li[data-player="{name}"]')
    await listed.filter(has_text="playing 1").wait_for()

    assert await wait_turn(seeker)
    await play_mnk_move(seeker, 0, 3)
    await taker.wait_for_selector(".match.my-turn")
    assert await moves_shown(taker) == 1
    await taker.get_by_role("button", name="Resign").click()
    await taker.get_by_role("button", name="Really resign?").click()
    assert "You lost" in await result_text(taker)
    assert "You won" in await result_text(seeker) and "resignation" in await seeker.inner_text("#result")
    await listed.filter(has_text="idle").wait_for()


async def test_vanishing_marks_the_stone_about_to_go(new_page, arena: Arena) -> None:
    """Play without making a line and block the bot's, until six stones stand; then the mover's oldest fades."""
    page = await new_page()
    for _attempt in range(4):  # a forced block may complete my own line early; then play another game
        await start_game(page, "vanishing", arena.bot, color="first")
        while await wait_turn(page) and await moves_shown(page) < 6:
            board = await cells(page)
            x, y = quiet_cell(board)
            await page.click(f'.cell[data-cell="{x},{y}"]')
            await page.wait_for_selector(f'.cell[data-cell="{x},{y}"][data-stone="0"]')
        if await page.evaluate("document.querySelector('#result').hidden"):
            break
        await page.click('[data-nav="lobby"]')
    else:
        pytest.fail("every vanishing game ended before six stones stood")
    await page.wait_for_selector(".match.my-turn")
    fading = page.locator(".cell.vanishing")
    assert await fading.count() == 1
    assert await fading.get_attribute("data-stone") == "0"  # my oldest stone goes after my move
    key = await fading.get_attribute("data-cell")
    before = await cells(page)
    await page.click(f'.cell[data-cell="{key}"]')
    await page.wait_for_selector("#hint.show")
    assert "vanishes" in await page.inner_text("#hint")
    assert await cells(page) == before
    await page.wait_for_timeout(250)  # the hint fades in
    await page.screenshot(path=screenshot_path("vanishing"), full_page=True)

    x, y = quiet_cell(before)
    await page.click(f'.cell[data-cell="{x},{y}"]')
    await page.wait_for_selector(f'.cell[data-cell="{key}"]:not([data-stone="0"])')  # it vanished
    if not await page.evaluate("document.querySelector('#result').hidden"):
        return
    await page.get_by_role("button", name="Resign").click()
    await page.get_by_role("button", name="Really resign?").click()
    assert "resignation" in await result_text(page)


def quiet_cell(board: dict[tuple[int, ...], str]) -> tuple[int, int]:
    """Block a bot's two-in-a-line if there is one; else a cell that makes no line of mine."""
    lines = [[(x, y) for x in range(3)] for y in range(3)] + [[(x, y) for y in range(3)] for x in range(3)]
    lines += [[(i, i) for i in range(3)], [(i, 2 - i) for i in range(3)]]
    for line in lines:
        stones = [board[c] for c in line]
        if stones.count("1") == 2 and stones.count("empty") == 1:
            return line[stones.index("empty")]
    for cell, stone in sorted(board.items()):
        if stone == "empty" and not any(
            cell in line and [board[c] for c in line if c != cell] == ["0", "0"] for line in lines
        ):
            return cell
    return next(c for c, s in sorted(board.items()) if s == "empty")


async def test_the_cube_is_drawn_as_layers_with_draw_offers_and_a_finish(new_page, arena: Arena) -> None:
    page = await new_page()
    await start_game(page, "ttt3d", arena.bot, color="first")
    assert await page.locator(".layer").count() == 3 and await page.locator(".cell").count() == 27
    assert await wait_turn(page)
    await page.get_by_role("button", name="Offer draw").click()
    await page.wait_for_function("() => document.querySelector('#hint')?.textContent.includes('declined the draw')")
    rng = random.Random(5)
    while await wait_turn(page):
        board = await cells(page)
        x, y, z = rng.choice(sorted(c for c, s in board.items() if s == "empty"))
        await page.click(f'.cell[data-cell="{x},{y},{z}"]')
        await page.wait_for_selector(f'.cell[data-cell="{x},{y},{z}"][data-stone="0"]')
    text = await result_text(page)
    assert "a line" in text or "full" in text, text
    if "a line" in text:
        assert await page.locator(".cell.win").count() == 3
    moves = await page.eval_on_selector_all("#moves .move", "els => els.map(e => e.textContent)")
    assert all(m[-2] == ":" and m[-1] in "123" for m in moves), moves  # "b2:2": the cell, then its layer
    await page.screenshot(path=screenshot_path("ttt3d"), full_page=True)


async def test_abort_before_the_first_move(new_page, arena: Arena) -> None:
    page = await new_page()
    await start_game(page, "tictactoe", arena.bot, color="second")
    assert await wait_turn(page)  # the bot has moved; I have not
    await page.get_by_role("button", name="Abort").click()
    await page.get_by_role("button", name="Abort the game?").click()
    text = await result_text(page)
    assert "No result" in text and "aborted" in text


async def test_the_leaderboard_shows_rated_results(new_page, arena: Arena) -> None:
    for name in ("alpha", "beta"):
        await arena.store.add_player(name, "bot")
    clock = {"initial_ms": 60_000, "increment_ms": 0, "move_limit_ms": None}
    for i, result in enumerate(("1-0", "1-0", "1/2-1/2")):
        match_id = f"rated{i}"
        start = GameStart(match_id, "tictactoe4", {"m": 4, "n": 4, "k": 4, "exact": False}, ("alpha", "beta"), clock,
                          True, time.time())  # fmt: skip
        await arena.store.start_game(start)
        arena.store.record_move(match_id, MoveRecord(0, [0, 0], 5))
        await arena.store.finish_game(match_id, result, "resign", time.time(), rate_result)
    page = await new_page()
    await page.click('[data-nav="leaderboard"]')  # no game named: the first whose ladder has ratings
    await page.wait_for_selector("#leaderboard")
    assert await page.eval_on_selector("#leaderboard-game", "s => s.value") == "tictactoe4"
    assert await page.eval_on_selector("#leaderboard-pool", "s => s.value") == "tictactoe4/bullet"  # the ladder's
    rows = await page.eval_on_selector_all(
        "#leaderboard tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))"
    )
    assert [r[1] for r in rows] == ["alpha", "beta"]
    assert rows[0][4:] == ["3", "2", "1", "0"] and rows[1][4:] == ["3", "0", "1", "2"]
    assert rows[0][2].endswith("?")  # three games: still provisional
    await page.select_option("#leaderboard-game", "gomoku10")
    await page.wait_for_selector(".standings .empty")


async def test_server_errors_are_shown_as_messages(new_page, arena: Arena) -> None:
    page = await new_page()
    await page.select_option("#game", "mnk")
    for name, value in (("m", 5), ("n", 5), ("k", 9)):
        await page.fill(f'[name="param-{name}"]', str(value))
    await page.select_option("#opponent", arena.bot)
    await page.click("#play")
    notice = page.locator(".notice.error", has_text="larger than the board")
    await notice.wait_for()
    assert await page.is_enabled("#play")

    await page.goto(arena.url + "#/match/nosuchgame")
    await page.wait_for_selector(".panel.error")
    assert "no match 'nosuchgame'" in await page.inner_text(".panel.error")
    await page.goto(arena.url + "#/replay/nosuchgame")
    await page.wait_for_selector(".panel.error")
    assert "no game 'nosuchgame'" in await page.inner_text(".panel.error")

    # The server drops the connection: the page says so, reconnects by itself, and is the same guest.
    await page.goto(arena.url + "#/")
    await page.wait_for_selector("#status[data-state=open]")
    me = await page.inner_text("#me .who")
    player = arena.server.hub.roster.get(me)
    assert player is not None and player.session is not None
    player.session.close(CloseCode.GOING_AWAY, "test")
    await page.wait_for_selector("#status[data-state=waiting], #status[data-state=connecting]")
    await page.wait_for_selector("#status[data-state=open]")
    await page.wait_for_selector("#bots li")


async def test_the_opponent_s_soccer_turn_is_replayed_step_by_step(new_page) -> None:
    """On a 4×4 field the second player's turn W, NE bounces off the side border: the first player
    sees it drawn one step at a time, the ball passing the border point, not the whole turn at once."""
    first = await new_page()
    second = await new_page()
    await first.select_option("#game", "paper_soccer")
    for name, value in (("width", 4), ("length", 4)):
        await first.fill(f'[name="param-{name}"]', str(value))
    await first.select_option("#opponent", "")
    await first.select_option("#color", "first")
    await first.click("#play")
    name = await first.inner_text("#me .who")
    await second.locator("#seeks li", has_text=name).get_by_role("button", name="Accept").click()
    await first.wait_for_selector(".match.my-turn")
    await first.evaluate(
        """() => {
          window.seen = [];
          const drawn = document.querySelector('.drawn');
          const ball = document.querySelector('.ball');
          const note = () =>
            window.seen.push([drawn.children.length, ball.getAttribute('cx'), ball.getAttribute('cy')]);
          new MutationObserver(note).observe(drawn, {childList: true});
          new MutationObserver(note).observe(ball, {attributes: true});
        }"""
    )
    await first.click('.point[data-point="1,2"]')  # W from the centre (2, 2): a fresh point ends the turn
    await first.click(".send-turn")

    await second.wait_for_selector(".match.my-turn")
    assert await second.eval_on_selector(".soccer > g", "g => g.getAttribute('transform')")  # turned round
    await second.click('.point[data-point="0,2"]')  # W onto the border: a bounce
    assert await second.is_disabled(".send-turn")
    assert "Bounce" in await second.inner_text(".turn-info")
    await second.click('.point[data-point="1,1"]')  # NE onto a fresh point: the turn is complete
    await second.click(".send-turn")

    await first.wait_for_selector(".match.my-turn")
    seen = await first.evaluate("window.seen")
    lines_when = {count: [x, y] for count, x, y in seen}
    assert lines_when[2] == ["0", "2"] and lines_when[3] == ["1", "1"]  # the bounce was shown before the end
    assert await moves_shown(first) == 2
    await first.get_by_role("button", name="Resign").click()
    await first.get_by_role("button", name="Really resign?").click()
    assert "You won" in await result_text(second)


async def test_signing_in_with_a_token_and_out_again(new_page, arena: Arena) -> None:
    token = await arena.store.add_player("alice", "human")
    page = await new_page()
    guest = await page.inner_text("#me .who")
    await page.reload()  # a guest without a game is forgotten at once: a new guest, no error shown
    await page.wait_for_selector("#status[data-state=open]")
    assert (await page.inner_text("#me .who")).startswith("guest-") and await page.inner_text("#me .who") != guest
    assert await page.locator(".notice.error").count() == 0

    await page.click('a[data-nav="account"]')
    await page.fill('#token-sign-in input[name="token"]', token)
    await page.click('#token-sign-in button[type="submit"]')
    await page.wait_for_function("() => document.querySelector('#me .who')?.textContent === 'alice'")
    await page.click('a[data-nav="lobby"]')
    await page.wait_for_selector('#people [data-player="alice"]:has-text("(you)")')
    await page.reload()  # the account is remembered
    await page.wait_for_function("() => document.querySelector('#me .who')?.textContent === 'alice'")

    await page.click('a[data-nav="account"]')
    await page.click("#sign-out")
    await page.wait_for_function("() => document.querySelector('#me .who')?.textContent.startsWith('guest-')")

    await page.fill('#token-sign-in input[name="token"]', "not-a-token")
    await page.click('#token-sign-in button[type="submit"]')
    await page.locator(".notice.error", has_text="refused your token").wait_for()
    await page.wait_for_function("() => document.querySelector('#me .who')?.textContent.startsWith('guest-')")
