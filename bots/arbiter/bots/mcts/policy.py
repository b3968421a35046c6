"""The light playout policy: win at once if possible, else block the opponent's immediate win,
else play at random (for paper soccer: score if possible, never into one's own goal or a dead
end, otherwise a random step leaning towards the goal one attacks).

A playout runs on a scratch copy of a state and returns the final status. The source's playout
bot only knew how to get in the player's way and play at random; a playout that looks one ply
ahead makes the Monte-Carlo averages far less noisy than uniform play, at a small cost.

One entry point, ``light_playout(gid, …)``, dispatches like ``arbiter.engine.ops``. The line games
(m,n,k and the cube) keep each player's winning cells updated incrementally from the lines through
each new stone, so finding a win or a block costs about as much as the line check the rules do
anyway; on m,n,k boards the lines are bit masks, and a line's winning cells a few shifts and ands.
Paper soccer reads the ball from its state. Any other game (vanishing tic-tac-toe, games added
later) uses a generic version written only against ``ops``: it costs one scan of the legal
actions per ply, fine for small boards. Renju and caro (the five family) play uniform playouts
for now: on their 15×15 board that scan, with a forbidden-point check for each of black's cells,
made a playout a hundred times slower than gomoku's (64 simulations in 0.4 s against 5,000
uniform ones). Random picks come from ``arbiter.engine.fastrandom``: one
seed from ``np.random`` per playout (so ``seed_random`` still makes a search reproducible), then a
stream kept in a register.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from arbiter.engine import mnk, ops, paper_soccer
from arbiter.engine.base import (
    HEADER,
    REASON,
    REASON_BOARD_FULL,
    REASON_LINE,
    STATUS,
    STATUS_DRAW,
    STATUS_ONGOING,
    STATUS_WIN0,
    TO_MOVE,
    Game,
)
from arbiter.engine.fastrandom import below, seed_from_numpy

# Paper soccer step weights by how a step moves the ball along the field, for the attacker:
# forwards, sideways, backwards. A bias, not a rule: backward steps still happen.
SOCCER_FORWARD = 4
SOCCER_SIDEWAYS = 2
SOCCER_BACKWARD = 1


def scratch_size(game: Game) -> int:
    """Length of the int64 scratch buffer ``light_playout`` needs for ``game``."""
    generic = 2 * game.max_actions + 8
    if game.gid == ops.GID_MNK:
        params = game.params
        return max(generic, mnk_scratch_size(params["m"], params["n"], params["k"]))
    if game.gid == ops.GID_TTT3D:
        return max(generic, cube_scratch_size(game.params["n"]))
    return generic


@njit(cache=True)
def light_playout(gid, p, s, scratch):
    """Play ``s`` (a scratch copy) to the end with the light policy; return the final status.

    ``scratch`` is an int64 buffer of ``scratch_size(game)`` slots.
    """
    if gid == ops.GID_MNK and p[2] >= 2:  # with k = 1 every empty cell wins: no threat list needed
        return mnk_light_playout(p, s, scratch)
    if gid == ops.GID_TTT3D:
        return cube_light_playout(p, s, scratch)
    if gid == ops.GID_SOCCER:
        return soccer_light_playout(p, s, scratch)
    if gid == ops.GID_FIVE:  # uniform: the generic policy's scans cost a forbidden check per black cell
        return ops.playout(gid, p, s, scratch)
    return generic_light_playout(gid, p, s, scratch)


# --- m,n,k ------------------------------------------------------------------------------------
# The board is kept as bit masks, one per line and player: every row, column, diagonal and
# anti-diagonal is an integer whose bit i is the line's i-th cell (x for rows and both diagonals,
# y for columns). The cells where a player wins at once along a line are then a handful of shifts
# and ands over that line's masks, with the board's edges for free (no stone lies off the line).
# Cells are coded ``y << 5 | x`` (sides up to 26), so the coordinates need no division, and each
# player's winning cells are a set of row masks (word y, bit x) with a count, updated as stones
# fall: a new winning cell can only appear in a line through the new stone, within k-1 of it.
CODE_SHIFT = 5  # a cell's code is y << CODE_SHIFT | x
CODE_X = (1 << CODE_SHIFT) - 1


def mnk_scratch_size(m: int, n: int, k: int) -> int:
    """Scratch slots the m,n,k playout needs: line masks, winning cells, empties and their index."""
    lines = n + m + 2 * (m + n - 1)
    return 2 * lines + 2 * n + 4 + m * n + (n << CODE_SHIFT) + k + 1


@njit(cache=True, inline="always")
def _window_count_at_least(bits, count):
    """Whether ``bits`` has at least ``count`` (>= 1) bits set."""
    for _ in range(count - 1):
        bits &= bits - 1
    return bits != 0


@njit(cache=True)
def _line_wins(own, other, lo, hi, k, exact, runs):
    """Bits in [lo, hi] of the line's empty cells where a stone with the bits ``own`` makes a
    winning line (k in a row, or exactly k if ``exact``); ``other`` is the opponent's bits.

    Cell i wins when, for some j, the j cells before it and the k-1-j after it are own stones
    (for exact k, and the cells just beyond those runs are not). ``runs`` is a scratch buffer.
    """
    window = ((np.int64(1) << (hi + 1)) - 1) ^ ((np.int64(1) << lo) - 1)
    empty = window & ~(own | other)
    if empty == 0:
        return np.int64(0)
    # runs[t]: bit i set when cells i+1 .. i+t are own stones (exactly t of them if exact)
    after = np.int64(-1)
    for t in range(k):
        runs[t] = after & ~(own >> (t + 1)) if exact else after
        after &= own >> (t + 1)
    before = np.int64(-1)
    wins = np.int64(0)
    for j in range(k):
        exact_before = before & ~(own << (j + 1)) if exact else before
        wins |= exact_before & runs[k - 1 - j]
        before &= own << (j + 1)
    return wins & empty


@njit(cache=True, inline="always")
def _mark_win(threats, counts, colour, n, x, y):
    at = colour * n + y
    bit = np.int64(1) << x
    if threats[at] & bit == 0:
        threats[at] |= bit
        counts[colour] += 1


@njit(cache=True)
def _mark_line(threats, counts, colour, n, wins, lo, hi, kind, index):
    """Add the winning cells ``wins`` (bits of line ``index`` of ``kind``) to ``colour``'s set.

    Kinds: 0 row y=index (bit x), 1 column x=index (bit y), 2 diagonal x-y=index (bit x),
    3 anti-diagonal x+y=index (bit x).
    """
    for b in range(lo, hi + 1):
        if (wins >> b) & 1:
            if kind == 0:
                _mark_win(threats, counts, colour, n, b, index)
            elif kind == 1:
                _mark_win(threats, counts, colour, n, index, b)
            elif kind == 2:
                _mark_win(threats, counts, colour, n, b, b - index)
            else:
                _mark_win(threats, counts, colour, n, b, index - b)


@njit(cache=True)
def _new_wins(masks, lines, threats, counts, runs, m, n, k, exact, colour, x, y):
    """Record the winning cells ``colour`` gained with its stone on (x, y): in the four lines
    through it, within k-1 cells of it, if those cells hold at least k-1 of its stones."""
    own_base = colour * lines
    other_base = (1 - colour) * lines
    for kind in range(4):
        if kind == 0:
            line, pos, first, last, index = y, x, 0, m - 1, y
        elif kind == 1:
            line, pos, first, last, index = n + x, y, 0, n - 1, x
        elif kind == 2:
            index = x - y
            line, pos, first, last = n + m + index + n - 1, x, max(0, index), min(m - 1, index + n - 1)
        else:
            index = x + y
            line, pos, first, last = n + m + (m + n - 1) + index, x, max(0, index - n + 1), min(m - 1, index)
        lo = max(first, pos - k + 1)
        hi = min(last, pos + k - 1)
        own = masks[own_base + line]
        window = ((np.int64(1) << (hi + 1)) - 1) ^ ((np.int64(1) << lo) - 1)
        if not _window_count_at_least(own & window, k - 1):
            continue
        wins = _line_wins(own, masks[other_base + line], lo, hi, k, exact, runs)
        if wins != 0:
            _mark_line(threats, counts, colour, n, wins, lo, hi, kind, index)


@njit(cache=True)
def _all_wins(masks, lines, threats, counts, runs, m, n, k, exact, colour):
    """Record every winning cell ``colour`` has on the board (a playout's start)."""
    own_base = colour * lines
    other_base = (1 - colour) * lines
    for kind in range(4):
        count = n if kind == 0 else (m if kind == 1 else m + n - 1)
        for i in range(count):
            if kind == 0:
                line, first, last, index = i, 0, m - 1, i
            elif kind == 1:
                line, first, last, index = n + i, 0, n - 1, i
            elif kind == 2:
                index = i - n + 1
                line, first, last = n + m + i, max(0, index), min(m - 1, index + n - 1)
            else:
                index = i
                line, first, last = n + m + (m + n - 1) + i, max(0, index - n + 1), min(m - 1, index)
            own = masks[own_base + line]
            if not _window_count_at_least(own, k - 1):
                continue
            wins = _line_wins(own, masks[other_base + line], first, last, k, exact, runs)
            if wins != 0:
                _mark_line(threats, counts, colour, n, wins, first, last, kind, index)


@njit(cache=True)
def _first_win(board, threats, counts, m, n, k, exact, colour):
    """The lowest cell (row-major) where ``colour`` wins at once, or -1. With exact k a listed
    cell may have become an overline since: it is checked, and dropped if it no longer wins."""
    if counts[colour] == 0:
        return -1
    base = colour * n
    for y in range(n):
        word = threats[base + y]
        x = 0
        while word != 0:
            while (word >> x) & 1 == 0:
                x += 1
            cell = y * m + x
            if board[cell] == 0 and (not exact or mnk.makes_line(board, m, n, k, exact, cell, colour + 1)):
                return cell
            word &= ~(np.int64(1) << x)
            threats[base + y] = word
            counts[colour] -= 1
            if counts[colour] == 0:
                return -1
    return -1


@njit(cache=True, inline="always")
def _set_line_bits(masks, lines, m, n, colour, x, y):
    base = colour * lines
    masks[base + y] |= np.int64(1) << x
    masks[base + n + x] |= np.int64(1) << y
    masks[base + n + m + x - y + n - 1] |= np.int64(1) << x
    masks[base + n + m + (m + n - 1) + x + y] |= np.int64(1) << x


@njit(cache=True)
def mnk_light_playout(p, s, scratch):
    """The light policy on an m,n,k board, with each player's winning cells kept incrementally.

    Writes the stones on the board of ``s`` (a scratch copy), then its status and reason; the
    rest of ``s`` (ply, stack, hash) is left behind. A random or blocking stone never wins (a
    winning cell would have been taken first), so no line check is needed after it.
    """
    m, n, k, exact = p[0], p[1], p[2], p[3] != 0
    if s[STATUS] != STATUS_ONGOING:
        return s[STATUS]
    size = m * n
    lines = n + m + 2 * (m + n - 1)
    board = s[HEADER : HEADER + size]
    end = 2 * lines
    masks = scratch[:end]
    threats = scratch[end : end + 2 * n]
    end += 2 * n
    counts = scratch[end : end + 2]
    stones = scratch[end + 2 : end + 4]
    end += 4
    empties = scratch[end : end + size]
    end += size
    where = scratch[end : end + (n << CODE_SHIFT)]
    end += n << CODE_SHIFT
    runs = scratch[end : end + k + 1]
    masks[:] = 0
    threats[:] = 0
    counts[:] = 0
    stones[:] = 0
    count = 0
    for y in range(n):
        for x in range(m):
            v = board[y * m + x]
            if v == 0:
                code = (y << CODE_SHIFT) | x
                empties[count] = code
                where[code] = count
                count += 1
            else:
                _set_line_bits(masks, lines, m, n, v - 1, x, y)
                stones[v - 1] += 1
    for colour in range(2):
        if stones[colour] >= k - 1:  # a winning cell needs k-1 own stones in its line
            _all_wins(masks, lines, threats, counts, runs, m, n, k, exact, colour)
    stone = s[TO_MOVE] + 1
    rng = seed_from_numpy()
    while count > 0:
        colour = stone - 1
        if counts[colour] > 0 and (not exact or _first_win(board, threats, counts, m, n, k, exact, colour) >= 0):
            s[STATUS] = stone  # STATUS_WIN0 == 1, STATUS_WIN1 == 2
            s[REASON] = REASON_LINE
            return stone
        cell = _first_win(board, threats, counts, m, n, k, exact, 1 - colour)
        if cell >= 0:
            y = cell // m
            code = (y << CODE_SHIFT) | (cell - y * m)
        else:
            rng, pick = below(rng, count)
            code = empties[pick]
        last = empties[count - 1]  # take the cell out of the empty list: swap with the last
        empties[where[code]] = last
        where[last] = where[code]
        count -= 1
        x = code & CODE_X
        y = code >> CODE_SHIFT
        board[y * m + x] = stone
        bit = np.int64(1) << x
        for c in range(2):  # the cell is taken: a winning cell of neither player any more
            if threats[c * n + y] & bit:
                threats[c * n + y] &= ~bit
                counts[c] -= 1
        _set_line_bits(masks, lines, m, n, colour, x, y)
        stones[colour] += 1
        if stones[colour] >= k - 1:
            _new_wins(masks, lines, threats, counts, runs, m, n, k, exact, colour, x, y)
        stone = 3 - stone
    s[STATUS] = STATUS_DRAW
    s[REASON] = REASON_BOARD_FULL
    return STATUS_DRAW


# --- n×n×n cube -------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _add_threat(threats, counts, colour, limit, at):
    base = colour * limit
    for i in range(counts[colour]):
        if threats[base + i] == at:
            return
    threats[base + counts[colour]] = at
    counts[colour] += 1


@njit(cache=True)
def _winning_cell(board, colour, threats, counts, limit):
    """A listed cell where ``colour`` wins at once, or -1; drops listed cells that are filled."""
    base = colour * limit
    i = counts[colour] - 1
    while i >= 0:
        at = threats[base + i]
        if board[at] == 0:
            return at
        counts[colour] -= 1
        threats[base + i] = threats[base + counts[colour]]
        i -= 1
    return -1


# The 13 line directions of a cube: every step in {-1, 0, 1}^3 whose first non-zero component is +1.
CUBE_DIRECTIONS = np.array(
    [(dx, dy, dz) for dx in (-1, 0, 1) for dy in (-1, 0, 1) for dz in (-1, 0, 1) if (dx, dy, dz) > (0, 0, 0)],
    dtype=np.int64,
)


def cube_scratch_size(n: int) -> int:
    """Scratch slots the cube playout needs: empties, their index, threat lists, counters."""
    return 4 * n**3 + 4


@njit(cache=True)
def _cube_threats(board, n, cell, stone, threats, counts, limit):
    """Record the winning cells ``stone`` has on the full lines (n cells) through ``cell``."""
    x = cell % n
    y = (cell // n) % n
    z = cell // (n * n)
    for d in range(CUBE_DIRECTIONS.shape[0]):
        dx = CUBE_DIRECTIONS[d, 0]
        dy = CUBE_DIRECTIONS[d, 1]
        dz = CUBE_DIRECTIONS[d, 2]
        sx, sy, sz = x, y, z
        while 0 <= sx - dx < n and 0 <= sy - dy < n and 0 <= sz - dz < n:
            sx -= dx
            sy -= dy
            sz -= dz
        length = 0
        own = 0
        free = 0
        free_at = -1
        while 0 <= sx < n and 0 <= sy < n and 0 <= sz < n:
            at = (sz * n + sy) * n + sx
            v = board[at]
            length += 1
            if v == stone:
                own += 1
            elif v == 0:
                free += 1
                free_at = at
            sx += dx
            sy += dy
            sz += dz
        if length == n and own == n - 1 and free == 1:
            _add_threat(threats, counts, stone - 1, limit, free_at)


@njit(cache=True)
def cube_light_playout(p, s, scratch):
    """The light policy in an n×n×n cube, each player's winning cells kept incrementally.

    Lines always span the cube, so a winning cell is the one empty cell of a full line holding
    n-1 own stones; only lines through the new stone can gain one. Writes the board of ``s``.
    """
    n = p[0]
    if s[STATUS] != STATUS_ONGOING:
        return s[STATUS]
    size = n * n * n
    board = s[HEADER : HEADER + size]
    empties = scratch[:size]
    where = scratch[size : 2 * size]
    threats = scratch[2 * size : 4 * size]
    counts = scratch[4 * size : 4 * size + 2]
    stones = scratch[4 * size + 2 : 4 * size + 4]
    counts[:] = 0
    stones[:] = 0
    count = 0
    for cell in range(size):
        v = board[cell]
        if v == 0:
            empties[count] = cell
            where[cell] = count
            count += 1
        else:
            stones[v - 1] += 1
    for cell in range(size):
        v = board[cell]
        if v != 0 and stones[v - 1] >= n - 1:
            _cube_threats(board, n, cell, v, threats, counts, size)
    stone = s[TO_MOVE] + 1
    rng = seed_from_numpy()
    while count > 0:
        colour = stone - 1
        if _winning_cell(board, colour, threats, counts, size) >= 0:
            s[STATUS] = stone
            s[REASON] = REASON_LINE
            return stone
        cell = _winning_cell(board, 1 - colour, threats, counts, size)
        if cell < 0:
            rng, pick = below(rng, count)
            cell = empties[pick]
        last = empties[count - 1]
        empties[where[cell]] = last
        where[last] = where[cell]
        count -= 1
        board[cell] = stone
        stones[colour] += 1
        if stones[colour] >= n - 1:
            _cube_threats(board, n, cell, stone, threats, counts, size)
        stone = 3 - stone
    s[STATUS] = STATUS_DRAW
    s[REASON] = REASON_BOARD_FULL
    return STATUS_DRAW


# --- paper soccer -----------------------------------------------------------------------------
@njit(cache=True)
def soccer_light_playout(p, s, scratch):
    """Step by step: a goal if one is in reach; never one's own goal or a step into a dead end
    (a bounce onto a point with no way out) while another step exists; else a random step,
    weighted towards the goal the stepping player attacks (the north goal for player 0)."""
    columns = p[0] + 1
    length = p[1]
    weights = scratch[:8]
    rng = seed_from_numpy()
    while s[STATUS] == STATUS_ONGOING:
        player = s[TO_MOVE]
        ball = s[paper_soccer.BALL]
        open_steps = ~s[paper_soccer.CLOSED + ball] & paper_soccer.ALL_CLOSED
        total = 0
        fallback = -1
        for d in range(8):
            weights[d] = 0
            if (open_steps >> d) & 1 == 0:
                continue
            fallback = d
            target = ball + paper_soccer.DY[d] * columns + paper_soccer.DX[d]
            y = target // columns - 1
            if (y < 0 and player == 0) or (y > length and player == 1):
                paper_soccer.play(p, s, d)
                return s[STATUS]
            if y < 0 or y > length:
                continue  # one's own goal
            closed_after = s[paper_soccer.CLOSED + target] | (1 << ((d + 4) & 7))
            if s[paper_soccer.CLOSED + target] != 0 and closed_after == paper_soccer.ALL_CLOSED:
                continue  # a bounce that leaves the same player with no step: stuck
            forward = -paper_soccer.DY[d] if player == 0 else paper_soccer.DY[d]
            if forward > 0:
                weights[d] = SOCCER_FORWARD
            elif forward == 0:
                weights[d] = SOCCER_SIDEWAYS
            else:
                weights[d] = SOCCER_BACKWARD
            total += weights[d]
        if total == 0:
            paper_soccer.play(p, s, fallback)  # every step loses: take one
            continue
        rng, pick = below(rng, total)
        for d in range(8):
            if pick < weights[d]:
                paper_soccer.play(p, s, d)
                break
            pick -= weights[d]
    return s[STATUS]


# --- any other game, through ops only ---------------------------------------------------------
@njit(cache=True)
def _winning_action(gid, p, s, actions, count):
    """An action among ``actions[:count]`` that wins at once for the player to move, or -1."""
    winner_status = STATUS_WIN0 + s[TO_MOVE]
    for i in range(count):
        ops.play(gid, p, s, actions[i])
        won = s[STATUS] == winner_status
        ops.undo(gid, p, s)
        if won:
            return actions[i]
    return -1


@njit(cache=True)
def generic_light_playout(gid, p, s, scratch):
    """The light policy through ops alone.

    Blocking needs the opponent's winning actions in the current position, which ops cannot list
    directly; so the mover plays its random pick, looks for the opponent's immediate wins in the
    result, and if there is one takes the pick back and plays the opponent's winning action
    instead (for games whose actions are cells, that is the block). That scan is also the
    opponent's "win at once" check for the next ply, so the policy costs about one scan per ply.
    """
    size = scratch.shape[0] // 2
    mine = scratch[:size]
    theirs = scratch[size:]
    known_no_win = False
    rng = seed_from_numpy()
    while s[STATUS] == STATUS_ONGOING:
        player = s[TO_MOVE]
        count = ops.legal(gid, p, s, mine)
        if not known_no_win:
            win = _winning_action(gid, p, s, mine, count)
            if win >= 0:
                ops.play(gid, p, s, win)
                return s[STATUS]
        known_no_win = False
        rng, pick = below(rng, count)
        pick = mine[pick]
        ops.play(gid, p, s, pick)
        if s[STATUS] != STATUS_ONGOING or s[TO_MOVE] == player:
            continue
        threat = _winning_action(gid, p, s, theirs, ops.legal(gid, p, s, theirs))
        if threat < 0:
            known_no_win = True
            continue
        for i in range(count):
            if mine[i] == threat:
                ops.undo(gid, p, s)
                ops.play(gid, p, s, threat)
                break
    return s[STATUS]
