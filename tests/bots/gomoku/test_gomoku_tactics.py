"""Tactical positions, each proved by the independent solver, then solved by the bot within its budget.

The VCF positions came from games between shallow levels of the bot (a position was kept when
the side to move had a win by continuous fours); each one's claimed length is checked here by
the solver, so the suite stands on its own. ``plies`` counts every stone to the winning one.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest
from gomoku_solver import Position, forced_win

from arbiter.bots.brain import ThinkRequest
from arbiter.bots.gomoku.brain import LEVELS, GomokuBrain
from arbiter.bots.gomoku.searcher import SearchConfig, Searcher

BUDGET = 1.0  # seconds per move, the time limit every position must be solved in
FULL = len(LEVELS)  # full strength, the top level


class Puzzle(NamedTuple):
    name: str
    size: int
    exact: bool
    plies: int
    moves: list[int]


VCF_PUZZLES = [
    Puzzle(
        "15x15, 3 fours",
        15,
        False,
        5,
        [99, 143, 127, 98, 113, 141, 129, 142, 144, 114, 128, 130, 82, 126, 112, 139, 140, 146, 162, 96],
    ),
    Puzzle("15x15, 4 fours", 15, False, 7, [141, 142, 125, 113, 157, 173, 126, 128, 156, 111, 158, 159, 124, 123]),
    Puzzle(
        "15x15, 5 fours",
        15,
        False,
        9,
        [
            99,
            111,
            144,
            98,
            130,
            112,
            158,
            172,
            114,
            84,
            126,
            159,
            142,
            110,
            109,
            143,
            127,
            128,
            113,
            85,
            70,
            116,
            125,
            141,
            146,
            124,
            145,
            174,
            129,
            97,
        ],
    ),
    Puzzle(
        "15x15, 6 fours",
        15,
        False,
        11,
        [125, 144, 110, 98, 140, 95, 124, 96, 97, 128, 112, 113, 83, 111, 127, 143, 158, 142],
    ),
    Puzzle(
        "15x15, 7 fours",
        15,
        False,
        13,
        [
            144,
            96,
            82,
            98,
            97,
            112,
            67,
            126,
            84,
            111,
            81,
            83,
            113,
            129,
            140,
            128,
            127,
            53,
            141,
            68,
            38,
            99,
            80,
            52,
            95,
            110,
        ],
    ),
    Puzzle(
        "15x15 exact, 4 fours",
        15,
        True,
        7,
        [81, 95, 144, 114, 145, 143, 159, 111, 79, 113, 112, 128, 158, 100, 142, 116, 117, 131, 86, 132, 148],
    ),
    Puzzle(
        "15x15 exact, 5 fours",
        15,
        True,
        9,
        [141, 140, 81, 111, 113, 97, 127, 99, 125, 98, 96, 126, 112, 83, 157, 69, 55, 109, 100, 172, 128, 144],
    ),
    Puzzle(
        "15x15 exact, 6 fours",
        15,
        True,
        11,
        [142, 110, 127, 143, 157, 112, 141, 113, 111, 128, 158, 96, 144, 172, 125, 173, 83, 97, 156, 159],
    ),
    Puzzle(
        "10x10, 3 fours",
        10,
        False,
        5,
        [57, 53, 76, 66, 67, 77, 55, 58, 45, 35, 56, 34, 65, 44, 62, 54, 64, 63, 47, 24, 14, 17, 26, 38],
    ),
    Puzzle("10x10, 4 fours", 10, False, 7, [76, 43, 63, 44, 45, 54, 64, 34, 65, 62, 55, 35]),
    Puzzle(
        "10x10, 5 fours", 10, False, 9, [77, 56, 65, 57, 55, 66, 75, 45, 76, 78, 67, 85, 54, 43, 53, 46, 44, 74, 64, 86]
    ),
]


def game_name(size: int, k: int = 5) -> tuple[str, dict]:
    if k != 5:
        return "mnk", {"m": size, "n": size, "k": k}
    return ("gomoku" if size == 15 else "gomoku10"), {}


def bot_move(position: Position, *, level: int = FULL, budget: float = BUDGET) -> tuple[int, dict]:
    """The bot's cell for the side to move in ``position``, and its info."""
    name, params = game_name(position.m, position.k)
    params = {**params, "exact": position.exact}
    cells = [c for c, v in enumerate(position.board) if v]
    first = [c for c in cells if position.board[c] == 1]
    second = [c for c in cells if position.board[c] == 2]
    moves = [c for pair in zip(first, second, strict=False) for c in pair] + first[len(second) :]
    m = position.m
    request = ThinkRequest("t", name, params, [[c % m, c // m] for c in moves], budget=budget, seed=1)
    result = GomokuBrain(level).think(request)
    x, y = result.move
    assert position.board[y * m + x] == 0
    return y * m + x, result.info


def after(position: Position, cell: int) -> Position:
    child = Position(position.m, position.n, position.k, position.exact)
    child.board = list(position.board)
    child.board[cell] = position.to_move
    return child


@pytest.mark.parametrize("puzzle", VCF_PUZZLES, ids=lambda p: p.name)
def test_the_solver_proves_each_vcf_and_the_bot_finds_it(puzzle: Puzzle) -> None:
    position = Position(puzzle.size, puzzle.size, 5, puzzle.exact, puzzle.moves)
    attacker = position.to_move
    assert not position.winning_cells(3 - attacker), "the defender has no four to answer first"
    assert forced_win(position, attacker, puzzle.plies, fours_only=True)
    assert not forced_win(position, attacker, puzzle.plies - 2, fours_only=True)

    cell, info = bot_move(position)
    assert info["seconds"] < BUDGET
    assert info["mate_in"] == puzzle.plies
    assert forced_win(after(position, cell), attacker, puzzle.plies - 1, fours_only=True)


def test_the_threat_search_finds_a_win_that_the_main_search_misses() -> None:
    puzzle = VCF_PUZZLES[4]  # seven fours: 13 plies, far beyond a 4-ply search
    searcher = Searcher(15, 15, 5, False)
    searcher.set_position(puzzle.moves)
    blind = searcher.think(SearchConfig(max_depth=4))
    assert blind.mate_in is None
    seeing = searcher.think(SearchConfig(max_depth=4, root_vcf=100_000))
    assert (seeing.reason, seeing.mate_in) == ("vcf", puzzle.plies)


def rows_position(rows: list[str], k: int = 5, exact: bool = False) -> Position:
    return Position.from_rows(rows, k, exact)


EMPTY15 = "..............."

# 7×7, four in a row wins: X to move completes its diagonal at a1 or e5; O threatens d7.
WIN_ON_SEVEN = [".......", ".X.....", "..X....", "...X...", ".......", ".......", "OOO...."]
# X to move: X X X X . X on row 4 with the left end held by O, and X X X . X on row 10.
OVERLINE_OR_FIVE = [
    "O......O......O",
    EMPTY15,
    EMPTY15,
    ".OXXXX.X.......",
    EMPTY15,
    EMPTY15,
    EMPTY15,
    "O.............O",
    EMPTY15,
    ".....XXX.X.....",
    EMPTY15,
    EMPTY15,
    EMPTY15,
    EMPTY15,
    "O......O......O",
]


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_win_in_one(level: int) -> None:
    position = rows_position(WIN_ON_SEVEN, k=4)
    cell, _ = bot_move(position, level=level)
    assert position.completes(cell, 1)


@pytest.mark.parametrize("exact", [False, True])
def test_an_overline_does_not_win_under_exact_five(exact: bool) -> None:
    position = rows_position(OVERLINE_OR_FIVE, exact=exact)
    gap, five = 3 * 15 + 6, 9 * 15 + 8
    assert position.winning_cells(1) == ([five] if exact else [gap, five])
    for level in (1, FULL):
        cell, _ = bot_move(position, level=level)
        assert cell in position.winning_cells(1)


# X to move: O's broken four on row 8 must be blocked at f8, though X has an open three.
BLOCK_FOUR = [EMPTY15] * 7 + ["...OO.OO.......", EMPTY15, EMPTY15, "......XXX.....X"] + [EMPTY15] * 4
# X to move: O's open three on row 8; X has nothing but scattered stones.
BLOCK_OPEN_THREE = ["X.............X"] + [EMPTY15] * 6 + [".....OOO......."] + [EMPTY15] * 6 + ["X.............."]
# X to move on 10×10: O's split three on row 5.
BLOCK_SPLIT_THREE = [".........X"] + [".........."] * 3 + ["..OO.O...."] + [".........."] * 4 + ["X........X"]


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_block_a_four(level: int) -> None:
    position = rows_position(BLOCK_FOUR)
    assert position.winning_cells(2) == [7 * 15 + 5]
    cell, _ = bot_move(position, level=level)
    assert cell == 7 * 15 + 5
    assert not forced_win(after(position, cell), 2, 1)


@pytest.mark.parametrize("rows", [BLOCK_OPEN_THREE, BLOCK_SPLIT_THREE], ids=["open three", "split three"])
@pytest.mark.parametrize("level", sorted(LEVELS)[1:])
def test_block_an_open_three(rows: list[str], level: int) -> None:
    position = rows_position(rows)
    far = 0 if position.board[0] == 0 else len(position.board) - 1
    assert forced_win(after(position, far), 2, 3), "without a block, O makes an open four and wins"
    cell, _ = bot_move(position, level=level)
    assert not forced_win(after(position, cell), 2, 3)


@pytest.mark.parametrize("exact", [False, True])
def test_exact_five_knows_an_overline_is_no_threat(exact: bool) -> None:
    # O O O O . O on row 3 threatens five only when five-or-more wins; X has an open three.
    rows = [
        "..........",
        "..........",
        "OOOO.O....",
        "..........",
        ".........X",
        "..........",
        "...XXX....",
        "..........",
        "..........",
        ".........X",
    ]
    position = rows_position(rows, exact=exact)
    cell, info = bot_move(position)
    if exact:
        assert position.winning_cells(2) == []
        assert info["mate_in"] == 3 and forced_win(after(position, cell), 1, 2)
    else:
        assert cell == 2 * 10 + 4
