"""The fixed geometry of an m×n board with lines of k: windows, neighbourhoods, hash keys.

A *window* is k consecutive cells along one of the four directions, wholly on the board. Every
possible winning line is a window, so a window that holds stones of both colours can never win
and drops out of every count (the source's "ignore lines that cannot hold a win"). The tables
are built once per (m, n, k, exact) and packed into one read-only flat array ``g`` (see layout).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .evaluation import HAND, Evaluation
from .layout import allocate, region
from .patterns import window_weights
from .shapes import BLOCKED, COMBOS, ORDERS, SHAPES, combo_tables, eval_pairs, half_width, shape_table

DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))
NEAR_RADIUS = 2  # candidate moves: empty cells within this many steps of a stone along a line
NEAR_STRIDE = 8 * NEAR_RADIUS
END_STRIDE = 8  # a cell borders at most two windows per direction

# Scalar slots of g.
G_M, G_N, G_K, G_EXACT, G_CELLS, G_WINDOWS, G_CW_STRIDE, G_NEAR_STRIDE, G_END_STRIDE = range(9)
# Offset slots of g's regions.
(
    G_WCELLS,  # [windows, k]: the cells of each window
    G_WENDS,  # [windows, 2]: the cells just outside each end, -1 off the board
    G_CWIN,  # [cells, 4k]: windows holding the cell
    G_CWIN_N,  # [cells]
    G_CEND,  # [cells, END_STRIDE]: windows the cell borders (they die for its owner under exact five)
    G_CEND_N,  # [cells]
    G_NEAR,  # [cells, NEAR_STRIDE]: cells within NEAR_RADIUS steps along the four lines
    G_NEAR_N,  # [cells]
    G_ZOB,  # [2, cells]: hash key of a stone of each player on each cell
    G_WEIGHTS,  # [2, k+1]: patterns.window_weights
) = range(9, 19)
G_HALF = 19  # cells seen on each side of a cell by the line shapes (shapes.half_width)
G_RULE = 27  # RULE_FREE, RULE_RENJU or RULE_CARO: who wins with which five, and black's forbidden points
(
    G_LINE_CELLS,  # [cells, 4, 2·half]: the cell t whose line code has this cell as digit j, -1 off the board
    G_POW3,  # [2·half]: 3^j
    G_LINE_CODE0,  # [4, cells]: each cell's line codes on the empty board (the edge is blocked)
    G_COMBO0,  # [cells]: each cell's combination index on the empty board
    G_SHAPE,  # [3^(2·half)]: shapes.shape_table
    G_COMBO,  # [2, COMBOS]: the ordering rows of shapes.combo_tables (ORDER_OWN, ORDER_BLOCK)
    G_EVAL_PAIR,  # [COMBOS]: a cell's two evaluation values in one word, shapes.eval_pairs
) = range(20, 27)
G_HEADER = 28
# The tournament rules of five in a row (arbiter.engine.five) the board and the search know.
RULE_FREE = 0  # k or more in a row wins (k exactly with ``exact``)
RULE_RENJU = 1  # black (the first player) wins with exactly five and may not play its forbidden points
RULE_CARO = 2  # a five blocked by the opponent at both ends does not win


@lru_cache(maxsize=16)
def geometry(m: int, n: int, k: int, exact: bool, evaluation: Evaluation = HAND, rule: int = RULE_FREE) -> np.ndarray:
    """The flat table array for an m×n board (m columns, n rows; cell = y*m + x) with lines of k,
    holding ``evaluation``'s weights, under ``rule`` (RULE_*)."""
    cells = m * n
    window_cells: list[list[int]] = []
    window_ends: list[tuple[int, int]] = []
    for dx, dy in DIRECTIONS:
        for y in range(n):
            for x in range(m):
                last_x, last_y = x + (k - 1) * dx, y + (k - 1) * dy
                if 0 <= last_x < m and 0 <= last_y < n:
                    window_cells.append([(y + i * dy) * m + (x + i * dx) for i in range(k)])
                    window_ends.append((_cell(m, n, x - dx, y - dy), _cell(m, n, last_x + dx, last_y + dy)))
    windows = len(window_cells)

    cell_windows: list[list[int]] = [[] for _ in range(cells)]
    cell_ends: list[list[int]] = [[] for _ in range(cells)]
    for w in range(windows):
        for c in window_cells[w]:
            cell_windows[c].append(w)
        for c in window_ends[w]:
            if c >= 0:
                cell_ends[c].append(w)
    near: list[list[int]] = []
    for c in range(cells):
        x, y = c % m, c // m
        steps = [(dx * r, dy * r) for dx, dy in DIRECTIONS for r in range(-NEAR_RADIUS, NEAR_RADIUS + 1) if r]
        near.append([q for ox, oy in steps if (q := _cell(m, n, x + ox, y + oy)) >= 0])

    half = half_width(k, exact)
    span = 2 * half
    offsets = [j - half if j < half else j + 1 - half for j in range(span)]
    line_cells = np.full((cells, 4, span), -1, dtype=np.int64)
    line_code0 = np.zeros((4, cells), dtype=np.int64)
    for c in range(cells):
        x, y = c % m, c // m
        for d, (dx, dy) in enumerate(DIRECTIONS):
            for j, offset in enumerate(offsets):
                line_cells[c, d, j] = _cell(m, n, x - offset * dx, y - offset * dy)
                if _cell(m, n, x + offset * dx, y + offset * dy) < 0:
                    line_code0[d, c] += BLOCKED * 3**j
    shapes = shape_table(k, exact)
    combo0 = sum(shapes[line_code0[d]] * SHAPES**d for d in range(4))

    g = allocate(
        G_HEADER,
        [
            (G_WCELLS, windows * k, 0),
            (G_WENDS, windows * 2, 0),
            (G_CWIN, cells * 4 * k, -1),
            (G_CWIN_N, cells, 0),
            (G_CEND, cells * END_STRIDE, -1),
            (G_CEND_N, cells, 0),
            (G_NEAR, cells * NEAR_STRIDE, -1),
            (G_NEAR_N, cells, 0),
            (G_ZOB, 2 * cells, 0),
            (G_WEIGHTS, 2 * (k + 1), 0),
            (G_LINE_CELLS, cells * 4 * span, -1),
            (G_POW3, span, 0),
            (G_LINE_CODE0, 4 * cells, 0),
            (G_COMBO0, cells, 0),
            (G_SHAPE, shapes.size, 0),
            (G_COMBO, ORDERS * COMBOS, 0),
            (G_EVAL_PAIR, COMBOS, 0),
        ],
    )
    g[G_HALF] = half
    g[G_RULE] = rule
    g[[G_M, G_N, G_K, G_EXACT, G_CELLS, G_WINDOWS]] = [m, n, k, int(exact), cells, windows]
    g[[G_CW_STRIDE, G_NEAR_STRIDE, G_END_STRIDE]] = [4 * k, NEAR_STRIDE, END_STRIDE]
    region(g, G_WCELLS, windows * k)[:] = np.array(window_cells, dtype=np.int64).ravel()
    region(g, G_WENDS, windows * 2)[:] = np.array(window_ends, dtype=np.int64).ravel()
    _fill_rows(region(g, G_CWIN, cells * 4 * k), region(g, G_CWIN_N, cells), cell_windows, 4 * k)
    _fill_rows(region(g, G_CEND, cells * END_STRIDE), region(g, G_CEND_N, cells), cell_ends, END_STRIDE)
    _fill_rows(region(g, G_NEAR, cells * NEAR_STRIDE), region(g, G_NEAR_N, cells), near, NEAR_STRIDE)
    info = np.iinfo(np.int64)
    keys = np.random.default_rng(0x676F6D6F6B75).integers(info.min, info.max, size=2 * cells, dtype=np.int64)
    region(g, G_ZOB, 2 * cells)[:] = keys
    region(g, G_WEIGHTS, 2 * (k + 1))[:] = window_weights(k, evaluation).ravel()
    region(g, G_LINE_CELLS, cells * 4 * span)[:] = line_cells.ravel()
    region(g, G_POW3, span)[:] = 3 ** np.arange(span, dtype=np.int64)
    region(g, G_LINE_CODE0, 4 * cells)[:] = line_code0.ravel()
    region(g, G_COMBO0, cells)[:] = combo0
    region(g, G_SHAPE, shapes.size)[:] = shapes
    region(g, G_COMBO, ORDERS * COMBOS)[:] = combo_tables(evaluation)[:ORDERS].ravel()
    region(g, G_EVAL_PAIR, COMBOS)[:] = eval_pairs(evaluation)
    g.setflags(write=False)
    return g


def window_cells(g: np.ndarray, w: int) -> list[int]:
    """The cells of window ``w`` (for tests and diagnostics)."""
    k = int(g[G_K])
    start = int(g[G_WCELLS]) + w * k
    return [int(c) for c in g[start : start + k]]


def _fill_rows(table: np.ndarray, counts: np.ndarray, rows: list[list[int]], stride: int) -> None:
    for i, row in enumerate(rows):
        table[i * stride : i * stride + len(row)] = row
        counts[i] = len(row)


def _cell(m: int, n: int, x: int, y: int) -> int:
    return y * m + x if 0 <= x < m and 0 <= y < n else -1
