"""A guest plays the real ``random`` bot in headless Chromium: complete games of tic-tac-toe, gomoku
and paper soccer; bad clicks that change nothing but show a hint; a refresh in the middle of a game
that resumes it. Each board's screenshot goes to docs/screenshots/."""

from __future__ import annotations

import random

import pytest
from browser_arena import Arena, screenshot_path

from tests.support.guest import (
    ball,
    cells,
    choose_cell,
    kick,
    moves_shown,
    play_mnk_move,
    play_mnk_to_end,
    play_soccer_to_end,
    play_soccer_turn,
    start_game,
    wait_turn,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def result_text(page) -> str:
    await page.wait_for_selector("#result:not([hidden])")
    return await page.inner_text("#result")


# Per side: the colour of its mark beside its name, and of its pieces on the board (X's strokes, O's ring,
# a stone's fill), as the browser paints them.
SIDE_COLOURS = """() => [0, 1].map((c) => {
  const paint = (selector, property) => getComputedStyle(document.querySelector(selector))[property];
  const piece = document.querySelector(`.stone.p${c}`)
    ? paint(`.stone.p${c}`, "fill")
    : paint(c === 0 ? ".mark.p0 line" : ".mark.p1", "stroke");
  return [paint(`.player-bar[data-color="${c}"] .side-mark`, "backgroundColor"), piece];
})"""


async def test_a_guest_plays_tic_tac_toe_against_the_bot_by_touch(new_page, arena: Arena) -> None:
    page = await new_page(has_touch=True, is_mobile=True, viewport={"width": 390, "height": 844})
    me = await page.inner_text("#me .who")
    assert me.startswith("guest-")
    await start_game(page, "tictactoe", arena.bot, color="first")
    assert await page.inner_text(".player-bar .name .you") == "you"
    made = 0
    while await wait_turn(page):
        x, y = choose_cell(await cells(page), "0", 3)
        await page.tap(f'.cell[data-cell="{x},{y}"]')
        await page.wait_for_selector(f'.cell[data-cell="{x},{y}"][data-stone="0"]')
        made += 1
    text = await result_text(page)
    assert any(word in text for word in ("You won", "You lost", "Draw")), text
    stones = [s for s in (await cells(page)).values() if s != "empty"]
    assert made >= 3 and len(stones) == await moves_shown(page)
    assert await page.locator(".cell.last").count() == 1
    assert await page.locator(".clock.running").count() == 0  # both clocks stopped at the end
    for mark, piece in await page.evaluate(SIDE_COLOURS):  # X blue, O red, beside the names too
        assert mark == piece, (mark, piece)
    await page.screenshot(path=screenshot_path("tictactoe"), full_page=True)


async def test_an_occupied_cell_shows_a_hint_and_changes_nothing(new_page, arena: Arena) -> None:
    page = await new_page()
    await start_game(page, "tictactoe", arena.bot, color="first")
    assert await wait_turn(page)
    mine = await play_mnk_move(page, 0, 3)
    assert await wait_turn(page)
    before, shown = await cells(page), await moves_shown(page)
    for taken in (mine, next(c for c, s in before.items() if s == "1")):
        await page.click(f'.cell[data-cell="{taken[0]},{taken[1]}"]')
        await page.wait_for_selector("#hint.show")
        assert "taken" in await page.inner_text("#hint")
    await page.wait_for_timeout(200)  # room for a wrongly sent move to come back
    assert await cells(page) == before and await moves_shown(page) == shown
    assert await page.evaluate("!!document.querySelector('.match.my-turn')")
    await play_mnk_to_end(page, 0, 3)
    await result_text(page)

    first_match = page.url
    await page.get_by_role("button", name="Play again").click()  # a rematch, sides swapped
    await page.wait_for_function(f"() => location.href !== {first_match!r} && !!document.querySelector('.cell')")
    await page.wait_for_function("() => document.querySelector('#result')?.hidden")
    assert await page.inner_text(".player-bar:last-child .name .you") == "you"
    assert await page.locator('.player-bar[data-color="1"] .you').count() == 1  # now second


async def test_a_guest_plays_gomoku_to_the_end(new_page, arena: Arena) -> None:
    page = await new_page()
    await start_game(page, "gomoku", arena.bot, color="first")
    made = await play_mnk_to_end(page, 0, 5)
    text = await result_text(page)
    assert "You won" in text and "a line" in text, text  # five in a row against random moves
    assert made >= 5
    assert await page.locator(".win-line").count() == 1
    coordinates = await page.eval_on_selector_all(".coords text", "els => els.map(e => e.textContent)")
    assert coordinates[:3] == ["a", "b", "c"] and "15" in coordinates
    colours = await page.evaluate(SIDE_COLOURS)  # black and white stones, and beside the names
    assert all(mark == piece for mark, piece in colours) and colours[0][0] != colours[1][0], colours
    await page.screenshot(path=screenshot_path("gomoku"), full_page=True)


async def test_a_19_by_19_board_has_coordinates_and_marks_the_last_move(new_page, arena: Arena) -> None:
    page = await new_page()
    await start_game(page, "mnk", arena.bot, color="first", params={"m": 19, "n": 19, "k": 5})
    assert await page.locator(".cell").count() == 361
    coordinates = await page.eval_on_selector_all(".coords text", "els => els.map(e => e.textContent)")
    assert coordinates[0] == "a" and coordinates[18] == "s" and coordinates[-1] == "19"
    for _ in range(2):
        assert await wait_turn(page)
        await play_mnk_move(page, 0, 5)
    await page.wait_for_selector(".match.my-turn")
    last = page.locator(".cell.last")
    assert await last.count() == 1 and await last.get_attribute("data-stone") == "1"  # the bot's reply
    assert await page.locator(".last-dot").count() == 1
    await page.get_by_role("button", name="Resign").click()
    await page.get_by_role("button", name="Really resign?").click()
    assert "resignation" in await result_text(page)


async def test_a_guest_plays_paper_soccer_step_by_step(new_page, arena: Arena) -> None:
    page = await new_page()
    await start_game(page, "paper_soccer", arena.bot, color="first")
    assert await wait_turn(page)
    x, y = await ball(page)

    # Bad steps: the ball's own point, a point two away. Nothing changes, a hint says why.
    for point in (f"{x},{y}", f"{x + 2},{y}"):
        await page.click(f'.point[data-point="{point}"]')
        await page.wait_for_selector("#hint.show")
        assert "point" in await page.inner_text("#hint")
    assert await page.locator(".drawn .line").count() == 0
    assert await page.is_disabled(".send-turn") and await page.is_disabled(".take-back")

    # A step, taken back, then the turn built again and sent.
    await kick(page, 0)
    assert await page.locator(".drawn .line.pending").count() == 1
    assert await ball(page) == (x, y - 1)
    await page.click(".take-back")
    assert await page.locator(".drawn .line").count() == 0 and await ball(page) == (x, y)
    rng = random.Random(7)
    await play_soccer_turn(page, attack_north=True, rng=rng)

    # After the bot's turn: stepping back along the line it just drew is refused with a hint.
    assert await wait_turn(page)
    last = await page.eval_on_selector_all(
        ".drawn .line", "ls => ls.map(l => [l.getAttribute('x1'), l.getAttribute('y1')])"
    )
    back = [int(float(v)) for v in last[-1]]
    lines = await page.locator(".drawn .line").count()
    await page.click(f'.point[data-point="{back[0]},{back[1]}"]')
    await page.wait_for_selector("#hint.show")
    assert "already drawn" in await page.inner_text("#hint")
    assert await page.locator(".drawn .line").count() == lines

    await play_soccer_turn(page, attack_north=True, rng=rng)  # a legal step clears the hint
    if await wait_turn(page):
        assert await page.locator("#hint.show").count() == 0
        assert await page.locator(".step-target").count() > 0
        await page.wait_for_timeout(250)  # the hint has faded out
    await page.screenshot(path=screenshot_path("paper_soccer"), full_page=True)
    await play_soccer_to_end(page, attack_north=True, seed=3)
    text = await result_text(page)
    assert "goal" in text or "stuck" in text, text


async def test_a_refresh_mid_game_resumes_it(new_page, arena: Arena) -> None:
    page = await new_page()
    me = await page.inner_text("#me .who")
    match_id = await start_game(page, "tictactoe4", arena.bot, color="second")
    for _ in range(2):
        assert await wait_turn(page)
        await play_mnk_move(page, 1, 4)
    board, shown = await cells(page), await moves_shown(page)

    await page.reload()
    await page.wait_for_selector("#status[data-state=open]")
    assert await page.inner_text("#me .who") == me  # the same guest, brought back by its resume token
    assert page.url.endswith(f"#/match/{match_id}")
    await page.wait_for_function(f"() => document.querySelectorAll('#moves .move').length >= {shown}")
    after = await cells(page)
    assert {c: s for c, s in after.items() if board[c] != "empty"} == {c: s for c, s in board.items() if s != "empty"}
    assert await page.inner_text(".player-bar .name .you") == "you"

    await play_mnk_to_end(page, 1, 4)
    await result_text(page)
