"""Line shapes: the table against a slow recursive reference, the incremental codes against a recount."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import numpy as np
import pytest
from board_walks import random_walk
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.bots.gomoku.board import Board
from arbiter.bots.gomoku.evaluation import FITTED, HAND, Evaluation
from arbiter.bots.gomoku.geometry import DIRECTIONS
from arbiter.bots.gomoku.shapes import (
    BLOCK2,
    BLOCK3,
    BLOCK4,
    BLOCKED,
    COMBOS,
    EMPTY,
    EVAL,
    FIVE,
    FLEX2,
    FLEX3,
    FLEX4,
    NONE,
    OWN,
    PAIR_SHAPES,
    PAIRS,
    SHAPES,
    WAITER_EVAL,
    combo_index,
    combo_tables,
    eval_pairs,
    half_width,
    pair_class,
    shape_table,
    split_pair,
)

# Cell values that differ for the mover and the waiter, with pair values: each table row is its own.
SPLIT = Evaluation(
    name="split",
    window_mover=HAND.window_mover,
    window_waiter=HAND.window_waiter,
    shape=(0, 3, 5, 11, 29, 41, 97, 130, 700, 0),
    win=900,
    four_three=650,
    double_three=310,
    shape_mover=1,
    shape_waiter=1,
    waiter_cell=(0, 2, 7, 13, 23, 37, 83, 150, 500, 0, 800, 420, 170),
    mover_pairs=tuple(17 * i - 40 for i in range(PAIRS)),
    waiter_pairs=tuple(60 - 9 * i for i in range(PAIRS)),
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


def recount(board: Board) -> tuple[list[list[list[int]]], list[list[int]], list[list[int]]]:
    """Line codes, combination indices and evaluation sums (the mover's and the waiter's values, per
    player), computed from the stones alone."""
    m, n, cells = board.m, board.n, board.cells
    k, exact = int(board.g[2]), bool(board.g[3])
    half = half_width(k, exact)
    table = shape_table(k, exact)
    tables = combo_tables(board.evaluation)
    offsets = [j - half if j < half else j + 1 - half for j in range(2 * half)]
    codes = [[[0] * cells for _ in DIRECTIONS] for _ in range(2)]
    combos = [[0] * cells for _ in range(2)]
    sums = [[0, 0], [0, 0]]
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
                for role, row in enumerate((EVAL, WAITER_EVAL)):
                    sums[role][p] += int(tables[row][combos[p][c]])
    return codes, combos, sums


shapes = st.tuples(st.integers(5, 9), st.integers(5, 9), st.integers(4, 6), st.booleans()).filter(
    lambda t: t[2] <= max(t[0], t[1])
)


@settings(derandomize=True, max_examples=40, deadline=None)
@given(shape=shapes, data=st.data())
def test_incremental_shapes_match_a_recount_after_moves_and_undos(shape, data) -> None:
    """Every empty cell's codes and combination, and the sums. An occupied cell keeps the ones it had when its stone
    came (no one reads them, and the stone's lift, last in first out, finds the board as it was then)."""
    board = Board(*shape, evaluation=data.draw(st.sampled_from([HAND, SPLIT])))
    for _ in random_walk(board, data, 30):
        codes, combos, sums = recount(board)
        empty = np.array([board.stone(c) == 0 for c in range(board.cells)])
        assert np.array_equal(board.line_codes()[:, :, empty], np.array(codes)[:, :, empty])
        assert np.array_equal(board.combos()[:, empty], np.array(combos)[:, empty])
        assert board.shape_evals() == sums


def test_pair_classes_name_a_cells_two_strongest_shapes() -> None:
    assert pair_class([BLOCK4, NONE, FLEX3, BLOCK2]) == 1 + PAIR_SHAPES.index((BLOCK4, FLEX3))
    assert pair_class([FLEX3, FLEX3, NONE, NONE]) == 1 + PAIR_SHAPES.index((FLEX3, FLEX3))
    assert pair_class([NONE, FLEX2, BLOCK3, FLEX2]) == 1 + PAIR_SHAPES.index((BLOCK3, FLEX2))
    assert pair_class([FLEX4, NONE, NONE, NONE]) == 0  # one line only
    assert pair_class([FLEX3, 2, NONE, NONE]) == 0  # the second line too weak
    assert pair_class([FIVE, BLOCK2, BLOCK2, NONE]) == 0
    assert len({pair_class([a, b, NONE, NONE]) for a, b in PAIR_SHAPES}) == PAIRS - 1  # every pair its own class
    assert (BLOCK2, BLOCK2) in PAIR_SHAPES and (FLEX4, FLEX4) in PAIR_SHAPES


def test_cell_values_add_shapes_bonus_and_pair_per_side() -> None:
    tables = combo_tables(SPLIT)
    four_three = combo_index((BLOCK4, FLEX3, NONE, FLEX2))
    pair = 1 + PAIR_SHAPES.index((BLOCK4, FLEX3))
    assert tables[EVAL][four_three] == 130 + 97 + 0 + 29 + 650 + SPLIT.mover_pairs[pair]
    assert tables[WAITER_EVAL][four_three] == 150 + 83 + 0 + 23 + 420 + SPLIT.waiter_pairs[pair]
    assert tables[EVAL][combo_index((FIVE, FLEX3, NONE, NONE))] == 0
    hand = combo_tables(HAND)
    assert (hand[EVAL] == hand[WAITER_EVAL]).all()  # one table for both sides: levels 1 to 3 play as before


@settings(derandomize=True, max_examples=60, deadline=None)
@given(
    evaluation=st.sampled_from([HAND, SPLIT, FITTED]),
    added=st.lists(st.integers(0, COMBOS - 1), max_size=225),
    taken=st.lists(st.integers(0, COMBOS - 1), max_size=225),
)
def test_sums_of_eval_pair_words_split_into_the_sums_of_each_value(evaluation, added, taken) -> None:
    """What board.py keeps: a board's worth of cell values added and taken away, both values in one word."""
    tables, pairs = combo_tables(evaluation), eval_pairs(evaluation)
    word = sum(int(pairs[i]) for i in added) - sum(int(pairs[i]) for i in taken)
    mover = sum(int(tables[EVAL][i]) for i in added) - sum(int(tables[EVAL][i]) for i in taken)
    waiter = sum(int(tables[WAITER_EVAL][i]) for i in added) - sum(int(tables[WAITER_EVAL][i]) for i in taken)
    assert split_pair(word) == (mover, waiter)


def test_cell_values_too_large_to_pair_are_refused() -> None:
    """Past 2^21 a cell's value could overflow a large board's sum into the other half of the word."""
    with pytest.raises(ValueError, match="too large"):
        eval_pairs(replace(SPLIT, win=1 << 21))
    assert eval_pairs(replace(SPLIT, win=1 << 18)).size == COMBOS  # under the bound: accepted
