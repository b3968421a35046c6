"""Line shapes: what a stone on a cell makes along one line, read from a table over the line's code.

The classical engines' way of seeing a position: for every empty cell and each of the four
directions, the cells within ``half`` steps on both sides are encoded as one number (a base-3
digit per cell, from one player's side: empty, own stone, or blocked — an enemy stone or the
edge), and a precomputed table names the *shape* a stone of that player on the cell would make
along that line. The four shapes of a cell combine, through a second table, into the cell's value
for that player; both players' values of a cell give its move-ordering score, and the sum over
empty cells the pattern part of the evaluation. Codes change only for cells in line with a move,
so board.py keeps them up to date incrementally.

The shapes, defined on the line alone, for the stone just placed (the centre):

- FIVE: a winning line through the centre (exactly k under exact five, k or more otherwise);
- FLEX4 (open four): two or more empty cells that would each complete a five through the centre;
- BLOCK4 (four): exactly one such cell;
- FLEX3 / BLOCK3: one more stone can make a FLEX4 / at best a BLOCK4, and so on down:
  FLEX2 / BLOCK2 lead to FLEX3 / BLOCK3, FLEX1 / BLOCK1 to FLEX2 / BLOCK2, and a line still
  live but further from five than FLEX1 (long k) counts as BLOCK1;
- NONE: no winning line through the centre is possible along this line any more.

The table is filled by dynamic programming from the fullest codes down (adding a stone raises a
code), which is the recursive definition above evaluated once per code.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

from .evaluation import HAND, Evaluation

NONE, BLOCK1, FLEX1, BLOCK2, FLEX2, BLOCK3, FLEX3, BLOCK4, FLEX4, FIVE = range(10)
SHAPES = 10
NAMES = ("none", "block1", "flex1", "block2", "flex2", "block3", "flex3", "block4", "flex4", "five")
EMPTY, OWN, BLOCKED = 0, 1, 2  # the digits of a line code
MAX_HALF = 6  # cells seen on each side: 3^12 codes at most, whatever k is
COMBOS = SHAPES**4  # a cell's four shapes, one base-10 digit per direction

# One step down the ladder: the shape one stone short of a given best next shape.
_DOWN = np.array([NONE, NONE, BLOCK1, BLOCK1, FLEX1, BLOCK2, FLEX2, BLOCK3, FLEX3, NONE], dtype=np.int64)

# Per-direction worth of a shape, for the cell's owner (ORDER_OWN) and for the other side blocking
# it (ORDER_BLOCK); its worth in the evaluation (EVAL) is the Evaluation's (evaluation.py). Ordering
# values of BLOCK4 and up lie above search.TACTICAL, so making a four or taking the opponent's
# four-cell is never pruned.
_ORDER_OWN = (0, 2, 6, 12, 60, 70, 450, 6_500, 60_000, 10_000_000)
_ORDER_BLOCK = (0, 1, 3, 6, 30, 35, 250, 6_000, 20_000, 1_000_000)
# Combinations worth more than their parts: a cell making two fours or an open four wins, a
# four-three wins unless the four is answered with a four, a double three wins unless defended.
_WIN_OWN, _WIN_BLOCK = 60_000, 20_000
_FOUR_THREE_OWN, _FOUR_THREE_BLOCK = 40_000, 12_000
_DOUBLE_THREE_OWN, _DOUBLE_THREE_BLOCK = 15_000, 7_000
# Rows of combo_tables: ordering values, then the evaluation's cell value for the mover and for the waiter.
ORDER_OWN, ORDER_BLOCK, EVAL, WAITER_EVAL = range(4)
ORDERS = 2  # the ordering rows come first: the search's geometry keeps those, and the values as eval_pairs
NO_BONUS, WIN_BONUS, FOUR_THREE_BONUS, DOUBLE_THREE_BONUS = range(4)
# Pair classes: a cell's two strongest shapes (strongest first), both BLOCK2 to FLEX4; class 0: no such pair.
PAIR_SHAPES = [(a, b) for a in range(BLOCK2, FLEX4 + 1) for b in range(BLOCK2, a + 1)]
PAIRS = 1 + len(PAIR_SHAPES)


def half_width(k: int, exact: bool) -> int:
    """Cells seen on each side: k-1 hold any five through the cell, one more shows an overline."""
    return min(k - 1 + int(exact), MAX_HALF)


@njit(cache=True)
def _fill(k, exact, half, table):
    span = 2 * half
    line = np.zeros(span + 1, dtype=np.int64)
    powers = np.ones(span, dtype=np.int64)
    for j in range(1, span):
        powers[j] = powers[j - 1] * 3
    for code in range(table.size - 1, -1, -1):
        rest = code
        for j in range(span):  # digit j is line cell j below the centre, j + 1 from the centre on
            line[j if j < half else j + 1] = rest % 3
            rest //= 3
        line[half] = OWN
        run = 1
        i = half - 1
        while i >= 0 and line[i] == OWN:
            run += 1
            i -= 1
        i = half + 1
        while i <= span and line[i] == OWN:
            run += 1
            i += 1
        if run == k or (run > k and not exact):
            table[code] = FIVE
            continue
        wins = 0
        best = NONE
        for j in range(span):
            if (code // powers[j]) % 3 == EMPTY:
                shape = table[code + powers[j]]
                if shape == FIVE:
                    wins += 1
                elif shape > best:
                    best = shape
        if wins >= 2:
            table[code] = FLEX4
        elif wins == 1:
            table[code] = BLOCK4
        else:
            table[code] = _DOWN[best]


@lru_cache(maxsize=8)
def shape_table(k: int, exact: bool) -> np.ndarray:
    """[3^(2·half)]: the shape a stone on the centre makes, by the line's code (read-only)."""
    half = half_width(k, exact)
    table = np.zeros(3 ** (2 * half), dtype=np.int64)
    _fill(k, exact, half, table)
    table.setflags(write=False)
    return table


def combo_index(shapes: tuple[int, int, int, int]) -> int:
    """A cell's four shapes (by direction) as one index into the combination tables."""
    return sum(shape * SHAPES**d for d, shape in enumerate(shapes))


def combo_shapes(index: int) -> list[int]:
    """The four shapes (by direction) of a combination index: combo_index's inverse."""
    return [(index // SHAPES**d) % SHAPES for d in range(4)]


def combo_bonus(shapes: list[int]) -> int:
    """Which combination a cell's four shapes make (no FIVE among them): WIN_BONUS, ..., or NO_BONUS."""
    fours = sum(s in (BLOCK4, FLEX4) for s in shapes)
    threes = sum(s == FLEX3 for s in shapes)
    if FLEX4 in shapes or fours >= 2:
        return WIN_BONUS
    if fours and threes:
        return FOUR_THREE_BONUS
    if threes >= 2:
        return DOUBLE_THREE_BONUS
    return NO_BONUS


def pair_class(shapes: list[int]) -> int:
    """The pair class of a cell's four shapes: its two strongest as an index into PAIR_SHAPES plus one, or 0."""
    strongest, second = sorted(shapes, reverse=True)[:2]
    if second < BLOCK2 or strongest > FLEX4:
        return 0
    return 1 + PAIR_SHAPES.index((strongest, second))


@lru_cache(maxsize=4)
def combo_tables(evaluation: Evaluation = HAND) -> np.ndarray:
    """[4, COMBOS]: the ORDER_OWN, ORDER_BLOCK, EVAL (the mover's) and WAITER_EVAL value of a cell by its four shapes.

    A cell with a FIVE is worth its five for ordering and nothing in the evaluation (the game
    ends before any evaluation sees it).
    """
    mover, waiter = evaluation.cell_values(False), evaluation.cell_values(True)
    pairs = evaluation.pair_values(False, PAIRS), evaluation.pair_values(True, PAIRS)
    bonuses = {
        NO_BONUS: (0, 0, 0, 0),
        WIN_BONUS: (_WIN_OWN, _WIN_BLOCK, mover[SHAPES], waiter[SHAPES]),
        FOUR_THREE_BONUS: (_FOUR_THREE_OWN, _FOUR_THREE_BLOCK, mover[SHAPES + 1], waiter[SHAPES + 1]),
        DOUBLE_THREE_BONUS: (_DOUBLE_THREE_OWN, _DOUBLE_THREE_BLOCK, mover[SHAPES + 2], waiter[SHAPES + 2]),
    }
    tables = np.zeros((4, COMBOS), dtype=np.int64)
    for index in range(COMBOS):
        shapes = combo_shapes(index)
        if FIVE in shapes:
            tables[:, index] = (_ORDER_OWN[FIVE], _ORDER_BLOCK[FIVE], 0, 0)
            continue
        values = [sum(table[s] for s in shapes) for table in (_ORDER_OWN, _ORDER_BLOCK, mover, waiter)]
        bonus = bonuses[combo_bonus(shapes)]
        pair = pair_class(shapes)
        extras = (bonus[0], bonus[1], bonus[2] + pairs[0][pair], bonus[3] + pairs[1][pair])
        tables[:, index] = [value + extra for value, extra in zip(values, extras, strict=True)]
    tables.setflags(write=False)
    return tables


PAIR_SHIFT = 32  # the waiter's value sits this many bits above the mover's in an eval_pairs word


@lru_cache(maxsize=4)
def eval_pairs(evaluation: Evaluation = HAND) -> np.ndarray:
    """[COMBOS]: a cell's EVAL and WAITER_EVAL values in one word, the waiter's PAIR_SHIFT bits up.

    A shape change then reads one word for both values, and the difference of two words is the pair of
    differences (split_pair), which halves the table reads of board.py's busiest loop.
    """
    tables = combo_tables(evaluation)
    # A board's sum must fit in the low half too: 1,024 cells (the largest board has 26 x 26) of at most this value.
    if np.abs(tables[EVAL : WAITER_EVAL + 1]).max() >= 1 << (PAIR_SHIFT - 11):
        raise ValueError("cell values too large to pair in one word")
    pairs = tables[EVAL] + (tables[WAITER_EVAL] << PAIR_SHIFT)
    pairs.setflags(write=False)
    return pairs


@njit(cache=True, inline="always")
def split_pair(word):
    """The (mover's, waiter's) values of an eval_pairs word, or of a sum or difference of such words."""
    low = ((word + (1 << (PAIR_SHIFT - 1))) & ((1 << PAIR_SHIFT) - 1)) - (1 << (PAIR_SHIFT - 1))
    return low, (word - low) >> PAIR_SHIFT
