"""Line shapes: the table against a slow recursive reference, the incremental codes against a recount."""

from __future__ import annotations

from functools import cache

import pytest
from board_walks import random_walk
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.bots.gomoku.board import Board
from arbiter.bots.gomoku.geometry import DIRECTIONS
from arbiter.bots.gomoku.shapes import (
    BLOCK3,
    BLOCK4,
    BLOCKED,
    COMBOS,
    EMPTY,
    EVAL,
    FIVE,
    FLEX3,
    FLEX4,
    NONE,
    OWN,
    SHAPES,
    combo_tables,
    half_width,
    shape_table,
)

# One stone short of each best next shape; a live line further off than FLEX1 still counts as BLOCK1.
LADDER = {FLEX4: FLEX3, BLOCK4: BLOCK3, FLEX3: 4, BLOCK3: 3, 4: 2, 3: 1, 2: 1, 1: 0, 0: 0}


@cache
def reference_shape(line: tuple[int, ...], k: int, exact: bool) -> int:
    """The shape by its definition: the centre holds an own stone; recurse on every empty cell."""
    centre = len(line) // 2
    left = centre
    while left > 0 and line[left - 1] == OWN:
        left -= 1
    right = centre
    while right < len(line) - 1 and line[right + 1] == OWN:
        right += 1
    run = right - left + 1
    if run == k or (run > k and not exact):
        return FIVE
    results = [reference_shape((*line[:i], OWN, *line[i + 1 :]), k, exact) for i, v in enumerate(line) if v == EMPTY]
    wins = results.count(FIVE)
    if wins >= 2:
        return FLEX4
    if wins == 1:
        return BLOCK4
    return LADDER[max(results, default=NONE)]


def code_of(line: tuple[int, ...]) -> int:
    """The table index of a line (centre left out), digit j for the j-th other cell."""
    centre = len(line) // 2
    digits = line[:centre] + line[centre + 1 :]
    return sum(d * 3**j for j, d in enumerate(digits))


@st.composite
def lines(draw):
    k = draw(st.integers(4, 6))
    exact = draw(st.booleans())
    half = half_width(k, exact)
    cells = draw(st.lists(st.sampled_from([EMPTY, EMPTY, OWN, OWN, BLOCKED]), min_size=2 * half, max_size=2 * half))
    return k, exact, (*tuple(cells[:half]), OWN, *tuple(cells[half:]))


@settings(derandomize=True, max_examples=400, deadline=None)
@given(case=lines())
def test_the_table_names_the_shape_the_definition_gives(case) -> None:
    k, exact, line = case
    assert shape_table(k, exact)[code_of(line)] == reference_shape(line, k, exact)


@pytest.mark.parametrize(
    ("text", "shape"),
    [
        ("...XXXX.....", FLEX4),  # the centre, index 6, is the stone just placed
        ("..OXXXX.....", BLOCK4),
        ("....XXX.....", FLEX3),
        ("...OXXX.....", BLOCK3),
        ("...X.XX.....", FLEX3),
        ("..XXXXX.....", FIVE),
        ("..O...XO....", NONE),
    ],
)
def test_named_shapes_on_a_fifteen_line(text: str, shape: int) -> None:
    half = half_width(5, False)
    padded = text[6 - half : 6] + "X" + text[7 : 7 + half]
    line = tuple({".": EMPTY, "X": OWN, "O": BLOCKED}[ch] for ch in padded)
    assert shape_table(5, False)[code_of(line)] == shape


def test_an_overline_is_no_five_under_exact_five() -> None:
    half = half_width(5, True)
    line = (EMPTY,) * (half - 3) + (OWN, OWN, OWN) + (OWN,) + (OWN, OWN) + (EMPTY,) * (half - 2)
    assert shape_table(5, False)[code_of(line[1:-1])] == FIVE
    assert shape_table(5, True)[code_of(line)] != FIVE


def recount(board: Board) -> tuple[list[list[list[int]]], list[list[int]], list[int]]:
    """Line codes, combination indices and evaluation sums, computed from the stones alone."""
    m, n, cells = board.m, board.n, board.cells
    k, exact = int(board.g[2]), bool(board.g[3])
    half = half_width(k, exact)
    table = shape_table(k, exact)
    evals = combo_tables()[EVAL]
    offsets = [j - half if j < half else j + 1 - half for j in range(2 * half)]
    codes = [[[0] * cells for _ in DIRECTIONS] for _ in range(2)]
    combos = [[0] * cells for _ in range(2)]
    sums = [0, 0]
    for p in range(2):
        for c in range(cells):
            x, y = c % m, c // m
            for d, (dx, dy) in enumerate(DIRECTIONS):
                code = 0
                for j, offset in enumerate(offsets):
                    tx, ty = x + offset * dx, y + offset * dy
                    if not (0 <= tx < m and 0 <= ty < n):
                        digit = BLOCKED
                    else:
                        stone = board.stone(ty * m + tx)
                        digit = EMPTY if stone == 0 else OWN if stone == p + 1 else BLOCKED
                    code += digit * 3**j
                codes[p][d][c] = code
                combos[p][c] += int(table[code]) * SHAPES**d
            assert combos[p][c] < COMBOS
            if board.stone(c) == 0:
                sums[p] += int(evals[combos[p][c]])
    return codes, combos, sums


shapes = st.tuples(st.integers(5, 9), st.integers(5, 9), st.integers(4, 6), st.booleans()).filter(
    lambda t: t[2] <= max(t[0], t[1])
)


@settings(derandomize=True, max_examples=40, deadline=None)
@given(shape=shapes, data=st.data())
def test_incremental_shapes_match_a_recount_after_moves_and_undos(shape, data) -> None:
    board = Board(*shape)
    for _ in random_walk(board, data, 30):
        codes, combos, sums = recount(board)
        assert board.line_codes().tolist() == codes
        assert board.combos().tolist() == combos
        assert list(board.shape_evals()) == sums
