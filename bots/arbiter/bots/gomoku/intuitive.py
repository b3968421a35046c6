"""The source's one-ply "intuitive" player: score(m) = G(m) + Q(m), play the best-scoring cell.

In each of the four directions through the move, k is the length of the player's own unbroken
line the move builds (the move plus its contiguous stones on both sides) and k' the length of the
opponent's line it breaks (the line the opponent would get by playing there). A direction whose
own-or-empty stretch through the cell is shorter than W cannot hold a win and counts 0 (for k'
the same with the opponent's stones). With exact five a line longer than W does not win and counts
0; with five-or-more it counts as W.

G(j) = B^(2j-1) and Q(j) = B^(2j-2) with B = 5 rank every term on one scale:

    Q(1) < G(1) < Q(2) < G(2) < ... < Q(W-1) < G(W-1) < Q(W) < G(W)

and B = 5 is the smallest base that keeps each term above four of every lower term put together,
which gives the source's three constraints:

1. completing a line beats everything: G(W) > 4·G(W-1) + 4·Q(W);
2. blocking an opponent line one short of winning beats any non-winning own move, even counted
   in all four directions: Q(W) > 4·G(W-1) + 4·Q(W-1);
3. one longer line beats several shorter ones: G(j+1) > 4·G(j) + 4·Q(j).

At most four terms (one per direction) share a rank, fewer than B, so a score is a base-B number
whose digits are per-rank term counts; the kernel compares those digit vectors exactly, from the
top rank down, which is G+Q itself without overflow on any board.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from .board import S_BOARD, S_CAND, S_CAND_N
from .geometry import DIRECTIONS, G_EXACT, G_K, G_M, G_N

if TYPE_CHECKING:
    from .board import Board

BASE = 5
_STEPS = np.array(DIRECTIONS, dtype=np.int64)


def g_value(j: int) -> int:
    """G(j): the worth of building an own line of length j (0 for a dead direction)."""
    return BASE ** (2 * j - 1) if j > 0 else 0


def q_value(j: int) -> int:
    """Q(j): the worth of breaking an opponent line that would have had length j."""
    return BASE ** (2 * j - 2) if j > 0 else 0


@njit(cache=True)
def line_length(g, s, c, d, stone):
    """k (or k') of the source in direction ``d``: the line ``stone`` would have through ``c``, 0 if it cannot win."""
    m = g[G_M]
    n = g[G_N]
    w = g[G_K]
    board = s[S_BOARD]
    x = c % m
    y = c // m
    dx = _STEPS[d, 0]
    dy = _STEPS[d, 1]
    room = 1  # own-or-empty cells through c; fewer than w means no win is possible in this line
    length = 1  # own stones in an unbroken run through c
    for sign in (1, -1):
        tx = x + sign * dx
        ty = y + sign * dy
        run = True
        while 0 <= tx < m and 0 <= ty < n:
            v = s[board + ty * m + tx]
            if v != stone:
                run = False
                if v != 0 or room >= w:
                    break
            elif run:
                length += 1
            room += 1
            tx += sign * dx
            ty += sign * dy
    if room < w:
        return 0
    if length > w:
        return 0 if g[G_EXACT] else w
    return length


@njit(cache=True)
def score_digits(g, s, c, p, digits):
    """G+Q of ``p`` playing ``c`` as per-rank term counts: digits[r] counts terms worth BASE**r."""
    digits[:] = 0
    for d in range(4):
        own = line_length(g, s, c, d, p + 1)
        if own > 0:
            digits[2 * own - 1] += 1
        theirs = line_length(g, s, c, d, 2 - p)
        if theirs > 0:
            digits[2 * theirs - 2] += 1


@njit(cache=True)
def _compare(a, b):
    for r in range(a.shape[0] - 1, -1, -1):
        if a[r] != b[r]:
            return 1 if a[r] > b[r] else -1
    return 0


@njit(cache=True)
def best_moves(g, s, p, out, banned):
    """Every candidate cell with the top G+Q score for ``p``, into ``out``; returns how many.

    Candidates are the empty cells near stones that ``banned`` (one flag a cell: renju's forbidden
    points for black) leaves; on an empty board, the centre.
    """
    m = g[G_M]
    n = g[G_N]
    candidates = s[S_CAND_N]
    if candidates == 0:  # no stone yet (a full board has no move at all)
        out[0] = (n // 2) * m + m // 2
        return 1 if s[s[S_BOARD] + out[0]] == 0 else 0
    best = np.zeros(2 * g[G_K], dtype=np.int64)
    digits = np.zeros(2 * g[G_K], dtype=np.int64)
    count = 0
    for i in range(candidates):
        c = s[s[S_CAND] + i]
        if banned[c]:
            continue
        score_digits(g, s, c, p, digits)
        order = 1 if count == 0 else _compare(digits, best)
        if order > 0:
            best[:] = digits
            out[0] = c
            count = 1
        elif order == 0:
            out[count] = c
            count += 1
    return count


def intuitive_move(board: Board, seed: int, forbidden: frozenset[int] = frozenset()) -> int:
    """The source's one-ply choice for the side to move: a top G+Q cell not ``forbidden``, ties broken
    by ``seed``; -1 when every candidate is forbidden."""
    buffer = np.zeros(board.cells, dtype=np.int64)
    banned = np.zeros(board.cells, dtype=np.int64)
    banned[list(forbidden)] = 1
    count = int(best_moves(board.g, board.s, board.to_move, buffer, banned))
    return random.Random(seed).choice(sorted(int(c) for c in buffer[:count])) if count else -1
