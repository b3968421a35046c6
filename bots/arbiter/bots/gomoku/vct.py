"""VCT: victory by continuous threats — fours and open threes — a proof search wider than VCF.

The attacker plays only threats: a four (one reply or lose) or an open three (a move after
which it could make an open four). Against a four the defender must block; against an open
three the defender's only moves that can matter are a stone in one of the attacker's threes
(the windows missing two stones, where every open four would be made) or a four of its own
(which the attacker must answer before going on): any other move lets the attacker make an open
four, and an open four with no four to answer it wins. The defender gets all of those moves, so
a "yes" is a proof; "no" means only that no such win exists within the depth and node budget.

In renju black's forbidden points (board.forbidden_for) are neither black's threats nor black's
defences: the attacker skips them, a defender's reply there is no reply, and a black three that
only a forbidden point would make an open four is no threat (board.double_threat).

Depth counts the attacker's moves (its forced blocks included). Results are facts about a
position, so the table keeps them across searches and across the moves of a match: the least
depth a win was proved at, and the greatest depth a search found none within.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from arbiter.engine.borrow import borrow

from .board import (
    FOURS,
    S_CAND,
    S_CAND_N,
    S_COMBO,
    S_HASH,
    S_SET_LEN,
    THREES,
    add_three_cells,
    double_threat,
    forbidden_for,
    four_moves,
    make,
    unmake,
    winning_cells,
)
from .clock import now_ns
from .geometry import G_CELLS, G_COMBO
from .layout import allocate
from .shapes import COMBOS, FLEX3, ORDER_BLOCK, ORDER_OWN, SHAPES
from .vcf import ARRAY, CLOCK_EVERY, GEOMETRY

MAX_VCT_DEPTH = 12  # attacker moves along one line
MAX_VCT_PLIES = 4 * MAX_VCT_DEPTH + 8  # the defender's counter-fours and their blocks come on top
TABLE_BITS = 18
NO_WIN = 1 << 20  # the win depth of an entry that proved no win
ATTACKER_KEYS = np.array([0x1D8E4E27C47D124F, 0x6C62272E07BB0142], dtype=np.int64)

# Scalar slots of t.
T_NODES, T_NODE_LIMIT, T_ABORTED, T_CELLS, T_LINE_LEN, T_DEADLINE_NS = range(6)  # deadline: now_ns() scale, 0 none
T_STOP = 6  # set from another thread to stop a search at its next node; no search clears it
# Offset slots of t's regions.
(
    T_MOVES,  # [MAX_VCT_PLIES, cells]: move lists per ply
    T_SCORES,  # [MAX_VCT_PLIES, cells]: their ordering scores
    T_LINE,  # [MAX_VCT_PLIES]: the main line of the last win found (attacker's move, a reply, ...)
    T_KEYS,  # [2^TABLE_BITS]: position keys (stones, attacker), attacker to move
    T_WIN_DEPTH,  # ... least depth a win was proved at, NO_WIN if none
    T_WIN_MOVE,  # ... the attacker's move that wins then
    T_FAIL_DEPTH,  # ... greatest depth within which no win was found, -1 if none
) = range(7, 14)
T_HEADER = 14


def new_vct_work(cells: int) -> np.ndarray:
    """The threat search's array ``t`` for a board of ``cells`` cells: scratch and table."""
    t = allocate(
        T_HEADER,
        [
            (T_MOVES, MAX_VCT_PLIES * cells, 0),
            (T_SCORES, MAX_VCT_PLIES * cells, 0),
            (T_LINE, MAX_VCT_PLIES, -1),
            (T_KEYS, 1 << TABLE_BITS, 0),
            (T_WIN_DEPTH, 1 << TABLE_BITS, NO_WIN),
            (T_WIN_MOVE, 1 << TABLE_BITS, -1),
            (T_FAIL_DEPTH, 1 << TABLE_BITS, -1),
        ],
    )
    t[T_CELLS] = cells
    return t


@njit(cache=True)
def threat_moves(g, s, p, out, base, score_base):
    """The cells where ``p`` makes a four or an open three, into out[base:] best first; returns how many.

    Read from each candidate cell's four line shapes (shapes.py) and ordered by the cell's value
    for p plus its value as a block of the other side; out[score_base:] gets those values.
    """
    cells = g[G_CELLS]
    own = s[S_COMBO] + p * cells
    theirs = s[S_COMBO] + (1 - p) * cells
    make_value = g[G_COMBO] + ORDER_OWN * COMBOS
    block_value = g[G_COMBO] + ORDER_BLOCK * COMBOS
    cand = s[S_CAND]
    count = 0
    for i in range(s[S_CAND_N]):
        c = s[cand + i]
        combo = s[own + c]
        threat = False
        for _ in range(4):
            if combo % SHAPES >= FLEX3:
                threat = True
            combo //= SHAPES
        if not threat:
            continue
        score = g[make_value + s[own + c]] + g[block_value + s[theirs + c]]
        j = count  # insertion: the lists are short
        while j > 0 and out[score_base + j - 1] < score:
            out[base + j] = out[base + j - 1]
            out[score_base + j] = out[score_base + j - 1]
            j -= 1
        out[base + j] = c
        out[score_base + j] = score
        count += 1
    return count


@njit(cache=True)
def defences(g, s, p, out, base):
    """The defender's replies to ``p``'s open three: its own fours, and every empty cell of p's threes."""
    count = four_moves(g, s, 1 - p, out, base)  # stamps its cells, so the threes' cells add no repeats
    return add_three_cells(g, s, p, out, base, count)


@njit(cache=True)
def _remember(t, key, slot, depth, move):
    """Record a win at ``depth`` by ``move`` (or, with move -1, no win within ``depth``)."""
    if t[t[T_KEYS] + slot] != key:
        t[t[T_KEYS] + slot] = key
        t[t[T_WIN_DEPTH] + slot] = NO_WIN
        t[t[T_WIN_MOVE] + slot] = -1
        t[t[T_FAIL_DEPTH] + slot] = -1
    if move >= 0:
        if depth < t[t[T_WIN_DEPTH] + slot]:
            t[t[T_WIN_DEPTH] + slot] = depth
            t[t[T_WIN_MOVE] + slot] = move
    elif depth > t[t[T_FAIL_DEPTH] + slot]:
        t[t[T_FAIL_DEPTH] + slot] = depth


_NODE = types.int64(GEOMETRY, ARRAY, ARRAY, types.int64, types.int64, types.int64, types.int64)


@njit(_NODE, cache=True, nogil=True)
def vct(g, s, t, p, depth, ply, defending):
    """1 if attacker ``p`` wins by threats within ``depth`` more attacker moves, else 0.

    ``defending``: 0 when p is to move, 1 when the defender is (p having just made its threat).
    On a win, the line from ``ply`` on holds the last branch proved: the attacker's move, the
    defender's last reply, and so on.
    """
    g, s, t = borrow(g), borrow(s), borrow(t)  # no reference counting in the recursion (arbiter.engine.borrow)
    t[T_NODES] += 1
    if (
        (t[T_NODE_LIMIT] > 0 and t[T_NODES] > t[T_NODE_LIMIT])
        or t[T_STOP]
        or (t[T_NODES] & (CLOCK_EVERY - 1) == 1 and t[T_DEADLINE_NS] > 0 and now_ns() >= t[T_DEADLINE_NS])
    ):
        t[T_ABORTED] = 1
        return 0
    if ply >= MAX_VCT_PLIES - 1:
        return 0
    o = 1 - p
    cells = t[T_CELLS]
    moves = t[T_MOVES] + ply * cells
    line = t[T_LINE]
    if defending:
        if s[S_SET_LEN + FOURS + o] > 0:
            return 0  # the defender completes a five
        blocks = winning_cells(g, s, p, t, moves)
        if blocks >= 2:
            t[line + ply] = t[moves]
            t[T_LINE_LEN] = ply + 1
            return 1
        if blocks == 1:
            count = 1
        elif double_threat(g, s, p) >= 0:
            count = defences(g, s, p, t, moves)
        else:
            return 0  # no threat left standing: the defender is free
        for i in range(count):
            c = t[moves + i]
            if forbidden_for(g, s, o, c):
                t[T_LINE_LEN] = ply  # renju: black may not defend there, so that reply is no defence
                continue
            make(g, s, c, o)
            won = vct(g, s, t, p, depth, ply + 1, defending - 1)  # not a literal: numba's recursion
            unmake(g, s)
            if not won:
                return 0
            t[line + ply] = c
        return 1

    if s[S_SET_LEN + FOURS + p] > 0:
        winning_cells(g, s, p, t, moves)
        t[line + ply] = t[moves]
        t[T_LINE_LEN] = ply + 1
        return 1
    blocks = winning_cells(g, s, o, t, moves)
    if blocks >= 2:
        return 0
    if blocks == 0 and s[S_SET_LEN + THREES + p] >= 2:
        c = double_threat(g, s, p)
        if c >= 0:
            t[line + ply] = c
            t[T_LINE_LEN] = ply + 1
            return 1
    if depth <= 0:
        return 0
    key = s[S_HASH] ^ ATTACKER_KEYS[p]
    slot = key & ((1 << TABLE_BITS) - 1)
    if t[t[T_KEYS] + slot] == key:
        if t[t[T_WIN_DEPTH] + slot] <= depth:
            t[line + ply] = t[t[T_WIN_MOVE] + slot]
            t[T_LINE_LEN] = ply + 1
            return 1
        if t[t[T_FAIL_DEPTH] + slot] >= depth:
            return 0
    # facing the defender's four, the block comes first (it is already at moves[0])
    count = 1 if blocks == 1 else threat_moves(g, s, p, t, moves, t[T_SCORES] + ply * cells)
    for i in range(count):
        c = t[moves + i]
        if forbidden_for(g, s, p, c):
            continue
        make(g, s, c, p)
        won = vct(g, s, t, p, depth - 1, ply + 1, 1 - defending)
        unmake(g, s)
        if won:
            t[line + ply] = c
            _remember(t, key, slot, depth, c)
            return 1
        if t[T_ABORTED]:
            return 0
    _remember(t, key, slot, depth, -1)
    return 0


def find_vct(
    g: np.ndarray, s: np.ndarray, t: np.ndarray, p: int, depth: int, node_limit: int, deadline_ns: int = 0
) -> list[int] | None:
    """A winning line (attacker's move first) if ``p`` to move wins by threats, else None.

    Deepened one attacker move at a time, so a short win is found before a long one; the
    table makes the repeated shallow passes cheap. Only the first move is sure to be the
    attacker's best; the rest is one branch of the proof. Stops (``t[T_ABORTED]``) after
    ``node_limit`` nodes or at ``deadline_ns`` (``now_ns()`` scale), 0 meaning none.
    """
    t[[T_NODES, T_ABORTED, T_LINE_LEN]] = 0
    t[T_NODE_LIMIT] = node_limit
    t[T_DEADLINE_NS] = deadline_ns
    for d in range(1, min(depth, MAX_VCT_DEPTH) + 1):
        if vct(g, s, t, p, d, 0, 0):
            start = int(t[T_LINE])
            return [int(c) for c in t[start : start + t[T_LINE_LEN]]]
        if t[T_ABORTED]:
            break
    return None
