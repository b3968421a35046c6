"""What a guest does in the page, as the tests drive it: start a game from the lobby form, read the
board from the DOM, and play moves by clicking cells or building paper soccer turns step by step.

The move choices are simple and deterministic: on m,n,k boards, extend the longest own run that
can still become k in a row; in paper soccer, kick towards the goal being attacked.
"""

from __future__ import annotations

import random
from typing import Any

Page = Any  # playwright.async_api.Page

MY_TURN_OR_OVER = (
    "() => document.querySelector('.match.my-turn') || document.querySelector('#result')?.hidden === false"
)


async def start_game(
    page: Page,
    game: str,
    opponent: str,
    *,
    color: str = "first",
    params: dict[str, Any] | None = None,
    level: int | None = None,
) -> str:
    """Fill the lobby form (``level``: the bot's, from its level select) and press Play; the match id
    once the match view shows."""
    await page.select_option("#game", game)
    for name, value in (params or {}).items():
        await page.fill(f'[name="param-{name}"]', str(value))
    await page.wait_for_selector(f'#opponent option[value="{opponent}"]', state="attached")
    await page.select_option("#opponent", opponent)
    if level is not None:
        await page.select_option("#level", str(level))
    await page.select_option("#color", color)
    await page.click("#play")
    await page.wait_for_url("**/#/match/*")
    await page.wait_for_selector(".match .board-holder > *")
    return page.url.rsplit("/", 1)[1]


async def wait_turn(page: Page) -> bool:
    """Wait until it is my turn (True) or the game is over (False)."""
    await page.wait_for_function(MY_TURN_OR_OVER)
    return await page.evaluate("document.querySelector('#result').hidden")


async def cells(page: Page) -> dict[tuple[int, ...], str]:
    """Every cell's coordinates and what stands there: "empty", "0" or "1"."""
    found = await page.eval_on_selector_all(".cell", "els => els.map(e => [e.dataset.cell, e.dataset.stone])")
    return {tuple(int(v) for v in key.split(",")): stone for key, stone in found}


async def moves_shown(page: Page) -> int:
    return await page.eval_on_selector_all("#moves .move", "els => els.length")


def choose_cell(board: dict[tuple[int, ...], str], me: str, k: int) -> tuple[int, ...]:
    """The empty cell that best extends one of my runs that can still reach k (ties: the first)."""
    width = 1 + max(c[0] for c in board)
    height = 1 + max(c[1] for c in board)
    best, best_score = None, -1
    for y in range(height):
        for x in range(width):
            if board[(x, y)] != "empty":
                continue
            score = 0
            for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
                for start in range(-(k - 1), 1):  # every window of k cells through (x, y)
                    window = [(x + (start + i) * dx, y + (start + i) * dy) for i in range(k)]
                    if all(c in board and board[c] in ("empty", me) for c in window):
                        score = max(score, 1 + sum(board[c] == me for c in window))
            if score > best_score:
                best, best_score = (x, y), score
    assert best is not None, "no empty cell on a board whose game is not over"
    return best


async def play_mnk_move(page: Page, color: int, k: int) -> tuple[int, ...]:
    """Click my next cell and wait until the server has confirmed it, or the game is over: the
    opponent's winning move shows before its ``end``, which the server sends once it is stored."""
    board = await cells(page)
    x, y = choose_cell(board, str(color), k)
    await page.click(f'.cell[data-cell="{x},{y}"]')
    placed = f'document.querySelector(\'.cell[data-cell="{x},{y}"][data-stone="{color}"]\')'
    await page.wait_for_function(f"() => {placed} || document.querySelector('#result')?.hidden === false")
    return x, y


async def play_mnk_to_end(page: Page, color: int, k: int) -> int:
    """Play until the game is over; the number of moves I made."""
    made = 0
    while await wait_turn(page):
        await play_mnk_move(page, color, k)
        made += 1
    return made


# --- paper soccer --------------------------------------------------------------------------------
DX = (0, 1, 1, 1, 0, -1, -1, -1)
DY = (-1, -1, 0, 1, 1, 1, 0, -1)


async def ball(page: Page) -> tuple[int, int]:
    cx, cy = await page.eval_on_selector(".ball", "b => [b.getAttribute('cx'), b.getAttribute('cy')]")
    return int(float(cx)), int(float(cy))


async def kick(page: Page, direction: int) -> None:
    """Click the point next to the ball in ``direction``."""
    x, y = await ball(page)
    await page.click(f'.point[data-point="{x + DX[direction]},{y + DY[direction]}"]')


async def play_soccer_turn(page: Page, attack_north: bool, rng: random.Random) -> list[int]:
    """Build one turn step by step towards the mouth of the attacked goal, then send it; the steps taken."""
    forward = -1 if attack_north else 1
    width = await page.eval_on_selector_all(
        ".point", "ps => Math.max(...ps.map(p => Number(p.dataset.point.split(',')[0])))"
    )
    steps: list[int] = []
    while await page.is_disabled(".send-turn"):
        x, _ = await ball(page)
        directions = await page.eval_on_selector_all(".step-target", "els => els.map(e => Number(e.dataset.dir))")
        assert directions, "my turn, but no legal step is highlighted"
        rng.shuffle(directions)
        directions.sort(key=lambda d: (-DY[d] * forward, abs(x + DX[d] - width // 2)))  # forward, then central
        await kick(page, directions[0])
        steps.append(directions[0])
    await page.click(".send-turn")
    return steps


async def play_soccer_to_end(page: Page, attack_north: bool, seed: int = 1) -> int:
    """Play turns until the game is over; the number of turns I made."""
    rng = random.Random(seed)
    turns = 0
    while await wait_turn(page):
        before = await moves_shown(page)
        await play_soccer_turn(page, attack_north, rng)
        await page.wait_for_function(f"() => document.querySelectorAll('#moves .move').length > {before}")
        turns += 1
    return turns
