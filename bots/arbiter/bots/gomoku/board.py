"""The search's own board: stones plus every window's pattern, kept up to date move by move.

Placing or lifting a stone touches only the windows through that cell (and, with exact five, the
windows it borders) and the line codes of the cells in line with it, so the evaluation, the sets
of fours and threes, every cell's line shapes (shapes.py), the candidate moves near stones and
the hash all change in O(k) work instead of a board rescan. Each window caches a
*code* per player: -1 when it can no longer win for that player, else the player's stone count.

A placement pushes what it changed onto an undo stack (in ``s``), and lifting the stone pops it:
the removal restores those words instead of recomputing them, so it reads no pattern or value
table (make and unmake together take about 0.9 of the time they took before, docs/lab/performance-2026-11.md).
It restores the tracks exactly, down to the order of the window sets and the candidate list, so
what a search plays next never depends on the moves it tried and took back before.

The VCF reads only the stones, the windows and the hash, so it places its stones with make_windows,
which leaves the cells' shapes and the candidates alone: about a quarter of make's time
(docs/lab/performance-2026-11.md).

Fours (windows missing one stone) and threes (missing two) are kept in index sets per player, so
"can the side to move win at once", "must it block", and "which moves make a four" are answered
from a handful of windows. All of it lives in one flat array ``s`` (see layout); kernels take
``(g, s)``, the geometry and the tracks.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from arbiter.engine.five import NOT_FORBIDDEN, forbidden, may_be_forbidden, new_stack

from .evaluation import HAND, Evaluation
from .geometry import (
    G_CELLS,
    G_CEND,
    G_CEND_N,
    G_COMBO0,
    G_CW_STRIDE,
    G_CWIN,
    G_CWIN_N,
    G_END_STRIDE,
    G_EVAL_PAIR,
    G_EXACT,
    G_HALF,
    G_K,
    G_LINE_CELLS,
    G_LINE_CODE0,
    G_M,
    G_N,
    G_NEAR,
    G_NEAR_N,
    G_NEAR_STRIDE,
    G_POW3,
    G_RULE,
    G_SHAPE,
    G_WCELLS,
    G_WEIGHTS,
    G_WENDS,
    G_WINDOWS,
    G_ZOB,
    RULE_CARO,
    RULE_FREE,
    RULE_RENJU,
    geometry,
)
from .layout import allocate, region
from .patterns import EVAL_MOVER, EVAL_WAITER
from .shapes import COMBOS, SHAPES, split_pair

# Rows of the window sets: fours of player p are row FOURS + p, threes row THREES + p.
FOURS = 0
THREES = 2
# Scalar slots of s.
S_STONES, S_HASH, S_CAND_N, S_STAMP = range(4)
S_EVAL = 4  # 4 slots: [EVAL_MOVER, EVAL_WAITER] x player, sums over each player's live windows
S_SET_LEN = 8  # 4 slots, one per set row
# Offset slots of s's regions.
(
    S_BOARD,  # [cells]: 0 empty, 1 first player, 2 second player
    S_WIN,  # [windows, WIN_STRIDE]: see the W_* fields
    S_SETS,  # [4, windows]: the window lists
    S_SET_POS,  # [4, windows]: index of a window in its list, -1 when absent
    S_NEAR,  # [cells]: stones within the candidate radius
    S_CAND,  # [cells]: empty cells near a stone, in no particular order
    S_CAND_POS,  # [cells]: index in the candidate list, -1 when absent
    S_MOVES,  # [cells]: cells in the order they were played
    S_MARK,  # [cells]: scratch stamps for de-duplicating cells
    S_PARTNER,  # [cells]: scratch, used with the stamps
) = range(12, 22)
S_SHAPE_EVAL = (
    22  # 4 slots: [EVAL_MOVER, EVAL_WAITER] x player, cell values (EVAL, WAITER_EVAL) summed over empty cells
)
(
    S_LINE_CODE,  # [2, 4, cells]: each empty cell's line code per player and direction (see shapes and _update_shapes)
    S_COMBO,  # [2, cells]: each empty cell's combination index per player: its four shapes
    S_UNDO,  # [cells * undo_words]: a stack, per stone on the board, of what unmake restores (see _update)
) = range(26, 29)
S_UNDO_TOP = 29  # words in use on the undo stack
S_HEADER = 30
# Fields of a window's record in the S_WIN region.
W_COUNT = 0  # 2 fields: stones of player 0, of player 1
W_CODE = 2  # 2 fields: -1 if dead for that player, else its stones
WIN_STRIDE = 4


@njit(cache=True, inline="always")
def _u(i):
    """Offset ``i`` as an unsigned index. numba tests every signed index for a negative value (which would count
    from the end) before each access. The offsets in the move's loops are never negative, and without the tests
    make and unmake take about 0.7 of the time (docs/lab/performance-2026-11.md)."""
    return np.uint64(i)


def new_tracks(g: np.ndarray) -> np.ndarray:
    """The empty board's tracks: every window live and empty for both players."""
    cells = int(g[G_CELLS])
    windows = int(g[G_WINDOWS])
    # per stone: the window part (4 sums, three words per window code changed, the count), the shape part
    # (4 sums, a pair per combination index changed, the count), and where the stone's cell stood in the candidates
    windows_touched = int(g[G_CW_STRIDE] + g[G_END_STRIDE])
    undo_words = 5 + 3 * 2 * windows_touched + 5 + 2 * 2 * 4 * 2 * int(g[G_HALF]) + 1
    s = allocate(
        S_HEADER,
        [
            (S_BOARD, cells, 0),
            (S_WIN, windows * WIN_STRIDE, 0),
            (S_SETS, 4 * windows, 0),
            (S_SET_POS, 4 * windows, -1),
            (S_NEAR, cells, 0),
            (S_CAND, cells, 0),
            (S_CAND_POS, cells, -1),
            (S_MOVES, cells, 0),
            (S_MARK, cells, 0),
            (S_PARTNER, cells, 0),
            (S_LINE_CODE, 2 * 4 * cells, 0),
            (S_COMBO, 2 * cells, 0),
            (S_UNDO, cells * undo_words, 0),
        ],
    )
    codes0 = region(g, G_LINE_CODE0, 4 * cells)
    combo0 = region(g, G_COMBO0, cells)
    region(s, S_LINE_CODE, 2 * 4 * cells)[:] = np.tile(codes0, 2)
    region(s, S_COMBO, 2 * cells)[:] = np.tile(combo0, 2)
    mover, waiter = split_pair(int(region(g, G_EVAL_PAIR, COMBOS)[combo0].sum()))  # every cell empty
    for role, value in ((EVAL_MOVER, mover), (EVAL_WAITER, waiter)):
        s[S_SHAPE_EVAL + 2 * role : S_SHAPE_EVAL + 2 * role + 2] = value
    return s


@njit(cache=True)
def _set_toggle(s, row, w, windows, add):
    lists = s[S_SETS] + row * windows
    pos = s[S_SET_POS] + row * windows
    if add:
        n = s[_u(S_SET_LEN + row)]
        s[_u(lists + n)] = w
        s[_u(pos + w)] = n
        s[_u(S_SET_LEN + row)] = n + 1
    else:
        i = s[_u(pos + w)]
        last = s[_u(S_SET_LEN + row)] - 1
        moved = s[_u(lists + last)]
        s[_u(lists + i)] = moved
        s[_u(pos + moved)] = i
        s[_u(pos + w)] = -1
        s[_u(S_SET_LEN + row)] = last


@njit(cache=True)
def _set_row(k, q, code):
    """The set row a window with this code for q belongs in (FOURS + q or THREES + q), or -1."""
    if code == k - 1:
        return FOURS + q
    if code == k - 2:
        return THREES + q
    return -1


@njit(cache=True)
def _reinsert(s, lists, pos, length, item, at):
    """Undo the removal of ``item`` from index ``at`` of a list kept by swapping the last entry into a removed one's
    place (the window sets, the candidates): the entry moved then goes back to the end, and the list's order with it.
    ``lists`` and ``pos`` are the offsets of the list and of each item's index, ``length`` the slot of its length."""
    n = s[length]
    if at < n:
        moved = s[lists + at]
        s[lists + n] = moved
        s[pos + moved] = n
    s[lists + at] = item
    s[pos + item] = at
    s[length] = n + 1


@njit(cache=True)
def _update(g, s, c, p, sign, cells):
    """Add (sign 1) or remove (sign -1) p's stone on c, refreshing every window it touches, and with ``cells``
    the cells' shapes and the candidates too (a removal must be given the ``cells`` of its placement).

    In a window through c, p's code just steps by one while the window is live for p (its
    borders do not change), and the opponent's dies. Windows that c borders (exact five, renju, caro)
    may die: for p under exact five or as renju's black (an overline), for the opponent in caro (a five
    blocked at both ends). A placement pushes onto the undo stack the four window sums and every window
    code it changes, with the window's place in the set it leaves; a removal pops them in reverse,
    putting each window back where it stood in the sets of fours and threes, and steps the stone
    counts back. The window loop is one body on purpose: a numba call costs reference counting per
    array argument.
    """
    k = g[G_K]
    windows = g[G_WINDOWS]
    board = s[S_BOARD]
    win = s[S_WIN]
    undo = s[S_UNDO]
    through = g[g[G_CWIN_N] + c]
    first = g[G_CWIN] + c * g[G_CW_STRIDE]
    if sign < 0:
        if cells:
            _update_candidates(g, s, c, sign)  # pushed last, so popped first
            _update_shapes(g, s, c, p, sign)
        s[board + c] = 0
        for i in range(through):
            s[_u(win + WIN_STRIDE * g[_u(first + i)] + W_COUNT + p)] -= 1
        top = s[S_UNDO_TOP] - 1
        for _ in range(s[_u(undo + top)]):
            top -= 3
            w = s[_u(undo + top)] >> 1
            q = s[_u(undo + top)] & 1
            old = s[_u(undo + top + 1)]
            at = _u(win + WIN_STRIDE * w + W_CODE + q)
            row = _set_row(k, q, s[at])
            if row >= 0:  # joined last by the placement, so last in its list: its removal moves no other
                _set_toggle(s, row, w, windows, False)
            if s[_u(undo + top + 2)] >= 0:
                row = _set_row(k, q, old)
                lists, pos = s[S_SETS] + row * windows, s[S_SET_POS] + row * windows
                _reinsert(s, lists, pos, S_SET_LEN + row, w, s[_u(undo + top + 2)])
            s[at] = old
        top -= 4
        for i in range(4):
            s[S_EVAL + i] = s[undo + top + i]
        s[S_UNDO_TOP] = top
    else:
        exact = g[G_EXACT]
        rule = g[G_RULE]
        weights = g[G_WEIGHTS]
        wends = g[G_WENDS]
        s[board + c] = p + 1
        top = s[S_UNDO_TOP]
        for i in range(4):
            s[undo + top + i] = s[S_EVAL + i]
        top += 4
        changed = 0
        bordering = g[g[G_CEND_N] + c] if exact or rule != RULE_FREE else 0
        for i in range(through + bordering):
            if i < through:
                w = g[_u(first + i)]
                s[_u(win + WIN_STRIDE * w + W_COUNT + p)] += 1
            else:
                w = g[g[G_CEND] + c * g[G_END_STRIDE] + i - through]
            at = win + WIN_STRIDE * w
            for q in range(2):
                old = s[_u(at + W_CODE + q)]
                if i < through:
                    new = old + 1 if q == p and old >= 0 else -1
                else:
                    # a bordered window: with exact five (renju's black) p's may now only fill into an
                    # overline, which does not win; in caro, a window whose two ends hold q's opponent's
                    # stones makes a five blocked at both ends, which does not win either
                    new = s[at + W_COUNT + q] if s[at + W_COUNT + 1 - q] == 0 else -1
                    if new >= 0:
                        e0 = g[wends + 2 * w]
                        e1 = g[wends + 2 * w + 1]
                        own_end = (e0 >= 0 and s[board + e0] == q + 1) or (e1 >= 0 and s[board + e1] == q + 1)
                        if own_end and (exact or (rule == RULE_RENJU and q == 0)):
                            new = -1
                        if rule == RULE_CARO and e0 >= 0 and e1 >= 0 and s[board + e0] == 2 - q == s[board + e1]:
                            new = -1
                if new == old:
                    continue
                row = _set_row(k, q, old)
                s[_u(undo + top)] = 2 * w + q
                s[_u(undo + top + 1)] = old
                s[_u(undo + top + 2)] = s[_u(s[S_SET_POS] + row * windows + w)] if row >= 0 else -1
                top += 3
                changed += 1
                s[_u(at + W_CODE + q)] = new
                if row >= 0:
                    _set_toggle(s, row, w, windows, False)
                row = _set_row(k, q, new)
                if row >= 0:
                    _set_toggle(s, row, w, windows, True)
                if old > 0:
                    s[_u(S_EVAL + 2 * EVAL_MOVER + q)] -= g[_u(weights + EVAL_MOVER * (k + 1) + old)]
                    s[_u(S_EVAL + 2 * EVAL_WAITER + q)] -= g[_u(weights + EVAL_WAITER * (k + 1) + old)]
                if new > 0:
                    s[_u(S_EVAL + 2 * EVAL_MOVER + q)] += g[_u(weights + EVAL_MOVER * (k + 1) + new)]
                    s[_u(S_EVAL + 2 * EVAL_WAITER + q)] += g[_u(weights + EVAL_WAITER * (k + 1) + new)]
        s[undo + top] = changed
        s[S_UNDO_TOP] = top + 1
        if cells:
            _update_shapes(g, s, c, p, sign)
            _update_candidates(g, s, c, sign)
    s[S_HASH] ^= g[g[G_ZOB] + p * g[G_CELLS] + c]


@njit(cache=True)
def _update_candidates(g, s, c, sign):
    """The stone counts near the cells around c, and the candidate list: c leaves it, cells first near a stone join.

    A placement takes c out of the list (pushing where it stood) and appends the cells that join; a
    removal drops those again from the end, last first, and puts c back where it stood, so the list's
    order, and with it the search's move order among equal scores, comes back exactly.
    """
    near = g[G_NEAR] + c * g[G_NEAR_STRIDE]
    count = g[g[G_NEAR_N] + c]
    near_stones = s[S_NEAR]
    cand_pos = s[S_CAND_POS]
    board = s[S_BOARD]
    top = s[S_UNDO_TOP]
    if sign > 0:
        at = s[cand_pos + c]
        s[s[S_UNDO] + top] = at
        s[S_UNDO_TOP] = top + 1
        if at >= 0:
            _candidate_toggle(s, c, False)
        for i in range(count):
            q = g[_u(near + i)]
            s[_u(near_stones + q)] += 1
            if s[_u(near_stones + q)] == 1 and s[_u(board + q)] == 0:
                _candidate_toggle(s, q, True)
        return
    for i in range(count - 1, -1, -1):
        q = g[_u(near + i)]
        s[_u(near_stones + q)] -= 1
        if s[_u(near_stones + q)] == 0 and s[_u(cand_pos + q)] >= 0:  # joined last, so last in the list: moves no other
            _candidate_toggle(s, q, False)
    top -= 1
    s[S_UNDO_TOP] = top
    at = s[s[S_UNDO] + top]
    if at >= 0:
        _reinsert(s, s[S_CAND], cand_pos, S_CAND_N, c, at)


@njit(cache=True)
def _update_shapes(g, s, c, p, sign):
    """The line codes, shapes and combination values of the cells in line with c, after p's stone on c came or went.

    Cell c is digit j of each cell t listed for it; its digit there is 1 (own) in p's code and
    2 (blocked) in the opponent's. Only a changed shape touches t's combination index, and only
    an empty cell's value counts in the evaluation sum (so c's own value leaves it or returns).

    A placement pushes onto the undo stack the four cell-value sums and every combination index it
    changes, so that the removal only steps the codes back and restores those words: it reads no
    shape or value table.

    Occupied cells are skipped: nothing reads their codes or combinations, and because stones are
    lifted last in, first out, a stone's lift finds the board, and so its cell's codes, as they were when
    it came. Both evaluation values of a combination are read as one word (shapes.eval_pairs). The two
    together took 0.94 of the search's time (same trees; docs/lab/performance-2026-11.md).
    """
    cells = g[G_CELLS]
    span = 2 * g[G_HALF]
    codes = s[S_LINE_CODE]
    line = g[G_LINE_CELLS] + c * 4 * span
    undo = s[S_UNDO]
    top = s[S_UNDO_TOP]
    board = s[S_BOARD]
    if sign < 0:
        top -= 1
        for _ in range(s[undo + top]):
            top -= 2
            s[s[undo + top]] = s[undo + top + 1]
        top -= 4
        for i in range(4):
            s[S_SHAPE_EVAL + i] = s[undo + top + i]
        s[S_UNDO_TOP] = top
        pow3 = g[G_POW3]
        for d in range(4):
            for j in range(span):
                t = g[_u(line + d * span + j)]
                if t >= 0 and s[_u(board + t)] == 0:
                    step = g[_u(pow3 + j)]
                    s[_u(codes + (p * 4 + d) * cells + t)] -= step
                    s[_u(codes + ((1 - p) * 4 + d) * cells + t)] -= 2 * step
        return
    combos = s[S_COMBO]
    shape = g[G_SHAPE]
    pairs = g[G_EVAL_PAIR]
    for i in range(4):
        s[undo + top + i] = s[S_SHAPE_EVAL + i]
    top += 4
    changed = 0
    for q in range(2):
        mover, waiter = split_pair(g[pairs + s[combos + q * cells + c]])
        s[S_SHAPE_EVAL + 2 * EVAL_MOVER + q] -= mover
        s[S_SHAPE_EVAL + 2 * EVAL_WAITER + q] -= waiter
    weight = 1
    pow3 = g[G_POW3]
    for d in range(4):
        for j in range(span):
            t = g[_u(line + d * span + j)]
            if t < 0 or s[_u(board + t)] != 0:
                continue
            step = g[_u(pow3 + j)]
            for q in range(2):
                at = _u(codes + (q * 4 + d) * cells + t)
                old = s[at]
                new = old + (step if q == p else 2 * step)
                s[at] = new
                change = g[_u(shape + new)] - g[_u(shape + old)]
                if change != 0:
                    index = combos + q * cells + t
                    before = s[index]
                    s[undo + top] = index
                    s[undo + top + 1] = before
                    top += 2
                    changed += 1
                    s[index] = before + change * weight
                    mover, waiter = split_pair(g[_u(pairs + before + change * weight)] - g[_u(pairs + before)])
                    s[S_SHAPE_EVAL + 2 * EVAL_MOVER + q] += mover
                    s[S_SHAPE_EVAL + 2 * EVAL_WAITER + q] += waiter
        weight *= SHAPES
    s[undo + top] = changed
    s[S_UNDO_TOP] = top + 1


@njit(cache=True)
def _candidate_toggle(s, c, add):
    cand = s[S_CAND]
    pos = s[S_CAND_POS]
    if add:
        n = s[S_CAND_N]
        s[cand + n] = c
        s[pos + c] = n
        s[S_CAND_N] = n + 1
    else:
        i = s[pos + c]
        last = s[S_CAND_N] - 1
        moved = s[cand + last]
        s[cand + i] = moved
        s[pos + moved] = i
        s[pos + c] = -1
        s[S_CAND_N] = last


@njit(cache=True, inline="always")
def _place(g, s, c, p, cells):
    """Put ``p``'s stone on the empty cell ``c`` (see _update for ``cells``) and note it for _lift."""
    _update(g, s, c, p, 1, cells)
    s[s[S_MOVES] + s[S_STONES]] = c
    s[S_STONES] += 1


@njit(cache=True, inline="always")
def _lift(g, s, cells):
    """Lift the last stone, placed by _place with the same ``cells``."""
    s[S_STONES] -= 1
    c = s[s[S_MOVES] + s[S_STONES]]
    _update(g, s, c, s[s[S_BOARD] + c] - 1, -1, cells)


@njit(cache=True)
def make(g, s, c, p):
    """Put player ``p``'s stone on the empty cell ``c`` and bring every track up to date."""
    _place(g, s, c, p, True)


@njit(cache=True)
def unmake(g, s):
    """Lift the last stone placed with make()."""
    _lift(g, s, True)


@njit(cache=True)
def make_windows(g, s, c, p):
    """make() for a search that reads only the stones, the windows (their sets of fours and threes) and the hash,
    as the VCF does: the cells' shapes, the evaluation's cell values and the candidates are left as they were,
    most of make's work. Lift the stone with unmake_windows() before anything reads those again."""
    _place(g, s, c, p, False)


@njit(cache=True)
def unmake_windows(g, s):
    """Lift the last stone placed with make_windows()."""
    _lift(g, s, False)


# --- questions the search asks ----------------------------------------------------------------


@njit(cache=True)
def winning_cells(g, s, p, out, base):
    """The distinct empty cells where ``p`` completes a five, into out[base:]; returns how many.

    One cell is a four the opponent must block; two or more cannot both be blocked.
    """
    k = g[G_K]
    windows = g[G_WINDOWS]
    lists = s[S_SETS] + (FOURS + p) * windows
    board = s[S_BOARD]
    count = 0
    for i in range(s[S_SET_LEN + FOURS + p]):
        w = s[lists + i]
        cells = g[G_WCELLS] + w * k
        for j in range(k):
            c = g[cells + j]
            if s[board + c] == 0:
                seen = False
                for t in range(count):
                    if out[base + t] == c:
                        seen = True
                        break
                if not seen:
                    out[base + count] = c
                    count += 1
                break
    return count


@njit(cache=True)
def four_moves(g, s, p, out, base):
    """The distinct empty cells where ``p`` makes a four, into out[base:]; returns how many.

    Leaves the cells stamped with s[S_STAMP], so a caller can extend the list without repeats.
    """
    s[S_STAMP] += 1
    return add_three_cells(g, s, p, out, base, 0)


@njit(cache=True)
def add_three_cells(g, s, p, out, base, count):
    """Append to out[base + count:] the empty cells of ``p``'s threes not yet stamped with s[S_STAMP]
    (stamping them); returns the new count. Those are the cells where ``p`` makes a four."""
    k = g[G_K]
    lists = s[S_SETS] + (THREES + p) * g[G_WINDOWS]
    board = s[S_BOARD]
    mark = s[S_MARK]
    stamp = s[S_STAMP]
    for i in range(s[S_SET_LEN + THREES + p]):
        cells = g[G_WCELLS] + s[lists + i] * k
        for j in range(k):
            c = g[cells + j]
            if s[board + c] == 0 and s[mark + c] != stamp:
                s[mark + c] = stamp
                out[base + count] = c
                count += 1
    return count


@njit(cache=True, inline="always")
def forbidden_for(g, s, p, c):
    """Whether ``p`` may not play the empty cell ``c``: black (player 0) on a forbidden point in renju.

    A forbidden point is no move, so it is no defence and no threat: the search, the VCF and the VCT
    skip it as black's move, and a white four whose only block is one wins. Any other rule pays one
    comparison."""
    return p == 0 and g[G_RULE] == RULE_RENJU and black_forbidden(g, s, c)


@njit(cache=True)
def black_forbidden(g, s, c):
    """The engine's judgement (arbiter.engine.five: double-three, double-four, overline, unless a five)
    of black on the empty cell ``c``, after its cheap test that clears most points."""
    m = g[G_M]
    n = g[G_N]
    board = s[s[S_BOARD] : s[S_BOARD] + g[G_CELLS]]
    if not may_be_forbidden(board, m, n, c % m, c // m):
        return False
    return forbidden(board, m, n, c % m, c // m, new_stack()) != NOT_FORBIDDEN


@njit(cache=True)
def double_threat(g, s, p):
    """A cell where ``p`` would make two fours with different winning cells at once, or -1.

    That is an open four or a double four: unless the other side can win first, it wins. Found
    from p's threes alone: a three has exactly two empty cells, and filling one makes a four
    whose winning cell is the other. A cell ``p`` may not play (forbidden_for) does not count: in
    renju black's double four is forbidden, and so is an open four made with a four or overline
    elsewhere, and a three that only such a point would make open is no threat.
    """
    k = g[G_K]
    windows = g[G_WINDOWS]
    if s[S_SET_LEN + THREES + p] < 2:
        return -1
    lists = s[S_SETS] + (THREES + p) * windows
    board = s[S_BOARD]
    mark = s[S_MARK]
    partner = s[S_PARTNER]
    s[S_STAMP] += 1
    stamp = s[S_STAMP]
    for i in range(s[S_SET_LEN + THREES + p]):
        cells = g[G_WCELLS] + s[lists + i] * k
        a = -1
        b = -1
        for j in range(k):
            c = g[cells + j]
            if s[board + c] == 0:
                if a < 0:
                    a = c
                else:
                    b = c
                    break
        for side in range(2):
            t = a if side == 0 else b
            other = b if side == 0 else a
            if s[mark + t] != stamp:
                s[mark + t] = stamp
                s[partner + t] = other
            elif s[partner + t] != other and not forbidden_for(g, s, p, t):
                return t
    return -1


@njit(cache=True)
def evaluate(s, p):
    """Static score for ``p`` to move: own windows weighted as the mover's, the opponent's as the waiter's."""
    return s[S_EVAL + 2 * EVAL_MOVER + p] - s[S_EVAL + 2 * EVAL_WAITER + 1 - p]


class Board:
    """A position of an m,n,k game held as tracks, for the Python side (searcher, tests, benchmarks)."""

    def __init__(
        self, m: int, n: int, k: int, exact: bool = False, evaluation: Evaluation = HAND, rule: int = RULE_FREE
    ) -> None:
        self.evaluation = evaluation
        self.g = geometry(m, n, k, exact, evaluation, rule)
        self.s = new_tracks(self.g)

    @classmethod
    def from_moves(
        cls,
        m: int,
        n: int,
        k: int,
        exact: bool,
        cells: list[int],
        evaluation: Evaluation = HAND,
        rule: int = RULE_FREE,
    ) -> Board:
        """The position after ``cells`` were played alternately, first player first."""
        board = cls(m, n, k, exact, evaluation, rule)
        for c in cells:
            board.play(c)
        return board

    @property
    def m(self) -> int:
        return int(self.g[G_M])

    @property
    def n(self) -> int:
        return int(self.g[G_N])

    @property
    def cells(self) -> int:
        return int(self.g[G_CELLS])

    @property
    def stones(self) -> int:
        return int(self.s[S_STONES])

    @property
    def to_move(self) -> int:
        """0 for the first player, 1 for the second: players alternate from an empty board."""
        return self.stones % 2

    def stone(self, c: int) -> int:
        """0 empty, 1 first player, 2 second player."""
        return int(self.s[self.s[S_BOARD] + c])

    def play(self, c: int) -> None:
        """Place the side to move's stone on ``c`` (the caller checks that it is empty)."""
        make(self.g, self.s, c, self.to_move)

    def undo(self) -> None:
        unmake(self.g, self.s)

    def candidates(self) -> list[int]:
        """Empty cells near a stone, sorted."""
        return sorted(int(c) for c in region(self.s, S_CAND, int(self.s[S_CAND_N])))

    def window_codes(self) -> np.ndarray:
        """[windows, 2]: each window's cached code per player (-1 dead, else stones)."""
        records = region(self.s, S_WIN, int(self.g[G_WINDOWS]) * WIN_STRIDE).reshape(-1, WIN_STRIDE)
        return records[:, W_CODE : W_CODE + 2]

    def set_windows(self, row: int) -> list[int]:
        """The windows in one set row (FOURS + p or THREES + p), sorted."""
        start = int(self.s[S_SETS]) + row * int(self.g[G_WINDOWS])
        return sorted(int(w) for w in self.s[start : start + int(self.s[S_SET_LEN + row])])

    def line_codes(self) -> np.ndarray:
        """[2, 4, cells]: each cell's line code per player and direction (an occupied cell's: from when it filled)."""
        return region(self.s, S_LINE_CODE, 2 * 4 * self.cells).reshape(2, 4, self.cells)

    def combos(self) -> np.ndarray:
        """[2, cells]: each cell's combination index per player (an occupied cell's: from when it filled)."""
        return region(self.s, S_COMBO, 2 * self.cells).reshape(2, self.cells)

    def shape_evals(self) -> list[list[int]]:
        """[EVAL_MOVER, EVAL_WAITER][player]: the cell values (shapes.EVAL, WAITER_EVAL) summed over the empty cells."""
        return self.s[S_SHAPE_EVAL : S_SHAPE_EVAL + 4].reshape(2, 2).tolist()

    def copy(self) -> Board:
        clone = Board.__new__(Board)
        clone.evaluation = self.evaluation
        clone.g = self.g
        clone.s = self.s.copy()
        return clone
