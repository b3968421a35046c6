"""VCF: victory by continuous fours, a narrow proof search the full-width search cannot reach.

The attacker plays only fours; each four leaves the defender one cell to play, or the defender
loses at once. A four that makes two winning cells, or a chain of fours ending in one, is a forced
win. Every step is exact: the defender's only alternative to the block is a five of their own
(checked before each attacker move), so a "yes" is a proof. "No" means only that no such win
exists within the depth and node budget.

The same kernel defends: asking it for the opponent's VCF with the opponent to move tells the
search which of its own moves leave the opponent no forced win.

In renju the board's windows already hold black to exactly five; the VCF also skips black's fours
on its forbidden points (board.forbidden_for), and a white four whose one block is such a point
wins at once: a line may then end with white's four, the five's cell left for black to be unable
to take.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from arbiter.engine.borrow import borrow

from .board import (
    FOURS,
    S_HASH,
    S_SET_LEN,
    S_WIN,
    THREES,
    W_CODE,
    WIN_STRIDE,
    forbidden_for,
    four_moves,
    make_windows,
    unmake_windows,
    winning_cells,
)
from .clock import now_ns
from .geometry import G_CW_STRIDE, G_CWIN, G_CWIN_N, G_K
from .layout import allocate

MAX_VCF_PLIES = 64  # attacker and defender moves along one line
MAX_FOURS = (MAX_VCF_PLIES - 4) // 2  # so a line never outgrows the ply stack
FAIL_TABLE_BITS = 16
SIDE_KEYS = np.array([0x2545F4914F6CDD1D, 0x5851F42D4C957F2D], dtype=np.int64)

# Scalar slots of v.
V_NODES, V_NODE_LIMIT, V_ABORTED, V_LINE_LEN, V_CELLS, V_DEADLINE_NS = range(6)  # deadline: now_ns() scale, 0 none
V_STOP = 6  # set from another thread to stop a search at its next node; no search clears it
# Offset slots of v's regions.
(
    V_MOVES,  # [MAX_VCF_PLIES + 2, cells]: move lists per ply
    V_LINE,  # [MAX_VCF_PLIES + 2]: the winning line found, attacker first
    V_FAIL_KEYS,  # [2^FAIL_TABLE_BITS]: positions (attacker to move) known to hold no VCF...
    V_FAIL_FOURS,  # ...within this many fours
) = range(7, 11)
V_HEADER = 11
CLOCK_EVERY = 512  # nodes between two readings of the clock, from the first node on (a power of two: a mask test)

ARRAY = types.Array(types.int64, 1, "C")
GEOMETRY = types.Array(types.int64, 1, "C", readonly=True)


def new_vcf_work(cells: int) -> np.ndarray:
    """The threat search's scratch array ``v`` for a board of ``cells`` cells."""
    v = allocate(
        V_HEADER,
        [
            (V_MOVES, (MAX_VCF_PLIES + 2) * cells, 0),
            (V_LINE, MAX_VCF_PLIES + 2, 0),
            (V_FAIL_KEYS, 1 << FAIL_TABLE_BITS, 0),
            (V_FAIL_FOURS, 1 << FAIL_TABLE_BITS, -1),
        ],
    )
    v[V_CELLS] = cells
    return v


@njit(cache=True)
def makes_four(g, s, c, p):
    """Whether ``p`` on the empty cell ``c`` makes a four (some three of p through c)."""
    k = g[G_K]
    first = g[G_CWIN] + c * g[G_CW_STRIDE]
    win = s[S_WIN]
    for i in range(g[g[G_CWIN_N] + c]):  # noqa: SIM110 - a plain loop compiles to tight numba code
        if s[win + WIN_STRIDE * g[first + i] + W_CODE + p] == k - 2:
            return True
    return False


@njit(types.int64(GEOMETRY, ARRAY, ARRAY, types.int64, types.int64, types.int64), cache=True, nogil=True)
def vcf(g, s, v, p, fours, ply):
    """1 if ``p``, to move, wins by at most ``fours`` continuous fours, else 0. Sets the line on success."""
    g, s, v = borrow(g), borrow(s), borrow(v)  # no reference counting in the recursion (arbiter.engine.borrow)
    v[V_NODES] += 1
    if (v[V_NODE_LIMIT] > 0 and v[V_NODES] > v[V_NODE_LIMIT]) or (
        v[V_NODES] & (CLOCK_EVERY - 1) == 1 and v[V_DEADLINE_NS] > 0 and now_ns() >= v[V_DEADLINE_NS]
    ):
        v[V_ABORTED] = 1
        return 0
    cells = v[V_CELLS]
    moves = v[V_MOVES] + ply * cells
    line = v[V_LINE]
    if s[S_SET_LEN + FOURS + p] > 0:
        winning_cells(g, s, p, v, moves)
        v[line + ply] = v[moves]
        v[V_LINE_LEN] = ply + 1
        return 1
    if fours <= 0:
        return 0
    key = s[S_HASH] ^ SIDE_KEYS[p]
    slot = key & ((1 << FAIL_TABLE_BITS) - 1)
    if v[v[V_FAIL_KEYS] + slot] == key and v[v[V_FAIL_FOURS] + slot] >= fours:
        return 0
    o = 1 - p
    blocks = winning_cells(g, s, o, v, moves)
    if blocks >= 2:
        count = 0
    elif blocks == 1:
        count = 1 if makes_four(g, s, v[moves], p) else 0
    elif s[S_SET_LEN + THREES + p] == 0:
        count = 0
    else:
        count = four_moves(g, s, p, v, moves)
    replies = moves + cells
    for i in range(count):
        c = v[moves + i]
        if forbidden_for(g, s, p, c):
            continue  # renju: black's four on a forbidden point (a double four, say) is no move
        make_windows(g, s, c, p)  # the VCF reads only the windows: a quarter of make's time
        wins = winning_cells(g, s, p, v, replies)
        found = 0
        if wins >= 2:
            v[line + ply + 2] = v[replies + 1]
            v[V_LINE_LEN] = ply + 3
            found = 1
        elif wins == 1 and forbidden_for(g, s, o, v[replies]):
            unmake_windows(g, s)  # renju: the one block is black's forbidden point, so the four wins
            v[line + ply] = c
            v[V_LINE_LEN] = ply + 1
            return 1
        elif wins == 1:
            make_windows(g, s, v[replies], o)
            found = vcf(g, s, v, p, fours - 1, ply + 2)
            unmake_windows(g, s)
        unmake_windows(g, s)
        if found:
            v[line + ply] = c
            v[line + ply + 1] = v[replies]
            return 1
        if v[V_ABORTED]:
            return 0
    v[v[V_FAIL_KEYS] + slot] = key
    v[v[V_FAIL_FOURS] + slot] = fours
    return 0


def find_vcf(
    g: np.ndarray, s: np.ndarray, v: np.ndarray, p: int, fours: int, node_limit: int, deadline_ns: int = 0
) -> list[int] | None:
    """The winning line (attacker, defender, ..., the five) if ``p`` to move has a VCF, else None.

    Deepened one four at a time, so the line found is a shortest one; the table of failed
    positions makes the repeated shallow passes cheap. Stops (``v[V_ABORTED]``) after
    ``node_limit`` nodes or at ``deadline_ns`` (``now_ns()`` scale), 0 meaning none.
    """
    v[[V_NODES, V_ABORTED, V_LINE_LEN]] = 0
    v[V_NODE_LIMIT] = node_limit
    v[V_DEADLINE_NS] = deadline_ns
    for depth in range(1, min(fours, MAX_FOURS) + 1):
        if vcf(g, s, v, p, depth, 0):
            start = int(v[V_LINE])
            return [int(c) for c in v[start : start + v[V_LINE_LEN]]]
        if v[V_ABORTED]:
            break
    return None
