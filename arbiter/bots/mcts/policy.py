"""The light playout policy: win at once if possible, else block the opponent's immediate win,
else play at random (for paper soccer: score if possible, never into one's own goal or a dead
end, otherwise a random step leaning towards the goal one attacks).

A playout runs on a scratch copy of a state and returns the final status. The source's playout
bot only knew how to get in the player's way and play at random; a playout that looks one ply
ahead makes the Monte-Carlo averages far less noisy than uniform play, at a small cost.

One entry point, ``light_playout(gid, …)``, dispatches like ``arbiter.engine.ops``. The line games
(m,n,k and the cube) keep each player's winning cells in a list updated incrementally from the
lines through each new stone, so finding a win or a block costs about as much as the line check
the rules do anyway. Paper soccer reads the ball from its state. Any other game (vanishing
tic-tac-toe, games added later) uses a generic version written only against ``ops``: it costs
one scan of the legal actions per ply, fine for small boards.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from arbiter.engine import ops, paper_soccer
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
    return generic_light_playout(gid, p, s, scratch)


# --- m,n,k ------------------------------------------------------------------------------------
BORDER = 3  # a cell of the padding round the board: neither empty nor a stone of either player


def mnk_scratch_size(m: int, n: int, k: int) -> int:
    """Scratch slots the m,n,k playout needs: padded board, its index, empties, threat lists."""
    padded = (m + 2 * k) * (n + 2 * k)
    return 2 * padded + 3 * m * n + 4


@njit(cache=True, inline="always")
def _add_threat(threats, counts, colour, limit, at):
    base = colour * limit
    for i in range(counts[colour]):
        if threats[base + i] == at:
            return
    threats[base + counts[colour]] = at
    counts[colour] += 1


@njit(cache=True, inline="always")
def _line_threats(board, k, exact, centre, step, stone, threats, counts, limit):
    """Record the cells where ``stone`` wins at once along one line through its stone at ``centre``.

    The 2k+1 cells around ``centre`` become two bit masks (own stones, empty cells) without a
    branch per cell; then each of the k windows of length k that contain ``centre`` is a threat
    when it holds k-1 own stones and one empty cell (for exact k, also no own stone just outside
    it). Every new winning cell lies in such a window, since the new stone must be in its line.
    The board is padded by k cells on every side, so no bounds checks are needed.
    """
    own = 0
    empty = 0
    stones = 0
    first = 0 if exact else 1  # the cells just outside the windows matter only for exact k
    at = centre + (first - k) * step
    for i in range(first, 2 * k + 1 - first):
        v = board[at]
        is_own = np.int64(v == stone)
        own |= is_own << i
        stones += is_own
        empty |= np.int64(v == 0) << i
        at += step
    if stones < k - 1:  # no window can hold k-1 own stones: the common case, settled without the windows
        return
    mask = (np.int64(1) << k) - 1
    for start in range(1, k + 1):
        missing = mask & ~(own >> start)
        one_gap = missing & (missing - 1) == 0 and (empty >> start) & missing != 0
        if one_gap and (not exact or ((own >> (start - 1)) & 1 == 0 and (own >> (start + k)) & 1 == 0)):
            offset = start - k
            while missing > 1:
                missing >>= 1
                offset += 1
            _add_threat(threats, counts, stone - 1, limit, centre + offset * step)


@njit(cache=True)
def _stone_threats(board, k, exact, width, at, stone, threats, counts, limit):
    """The winning cells ``stone`` has in the four lines through its stone at ``at``."""
    _line_threats(board, k, exact, at, 1, stone, threats, counts, limit)
    _line_threats(board, k, exact, at, width, stone, threats, counts, limit)
    _line_threats(board, k, exact, at, width + 1, stone, threats, counts, limit)
    _line_threats(board, k, exact, at, width - 1, stone, threats, counts, limit)


@njit(cache=True)
def _completes_line(board, k, exact, width, at, stone):
    """Whether ``stone`` on the empty cell ``at`` of the padded board makes a winning line."""
    for step in (1, width, width + 1, width - 1):
        length = 1
        i = at + step
        while board[i] == stone:
            length += 1
            i += step
        i = at - step
        while board[i] == stone:
            length += 1
            i -= step
        if length == k or (length > k and not exact):
            return True
    return False


@njit(cache=True)
def _winning_cell(board, k, exact, width, colour, threats, counts, limit):
    """A cell where ``colour`` wins at once, or -1; drops listed cells that no longer are."""
    base = colour * limit
    i = counts[colour] - 1
    while i >= 0:
        at = threats[base + i]
        if board[at] == 0 and (not exact or _completes_line(board, k, exact, width, at, colour + 1)):
            return at
        # filled, or (exact k) an overline now: neither wins again in this playout
        counts[colour] -= 1
        threats[base + i] = threats[base + counts[colour]]
        i -= 1
    return -1


@njit(cache=True)
def mnk_light_playout(p, s, scratch):
    """The light policy on an m,n,k board, with each player's winning cells kept incrementally.

    Works on its own padded copy of the board in ``scratch`` (``mnk_scratch_size`` slots); of
    ``s`` only the status and reason are written. A random or blocking stone never wins (a
    winning cell would have been taken first), so no line check is needed after it.
    """
    m, n, k, exact = p[0], p[1], p[2], p[3]
    if s[STATUS] != STATUS_ONGOING:
        return s[STATUS]
    size = m * n
    width = m + 2 * k
    padded = width * (n + 2 * k)
    board = scratch[:padded]
    where = scratch[padded : 2 * padded]
    empties = scratch[2 * padded : 2 * padded + size]
    threats = scratch[2 * padded + size : 2 * padded + 3 * size]
    counts = scratch[2 * padded + 3 * size : 2 * padded + 3 * size + 2]
    stones = scratch[2 * padded + 3 * size + 2 : 2 * padded + 3 * size + 4]
    board[:] = BORDER
    counts[:] = 0
    stones[:] = 0
    count = 0
    for y in range(n):
        for x in range(m):
            v = s[HEADER + y * m + x]
            at = (y + k) * width + x + k
            board[at] = v
            if v == 0:
                empties[count] = at
                where[at] = count
                count += 1
            else:
                stones[v - 1] += 1
    for colour in range(2):
        if stones[colour] >= k - 1:  # a winning cell needs k-1 own stones in its line
            for y in range(n):
                for x in range(m):
                    at = (y + k) * width + x + k
                    if board[at] == colour + 1:
                        _stone_threats(board, k, exact, width, at, colour + 1, threats, counts, size)
    stone = s[TO_MOVE] + 1
    while count > 0:
        colour = stone - 1
        if _winning_cell(board, k, exact, width, colour, threats, counts, size) >= 0:
            s[STATUS] = stone  # STATUS_WIN0 == 1, STATUS_WIN1 == 2
            s[REASON] = REASON_LINE
            return stone
        at = _winning_cell(board, k, exact, width, 1 - colour, threats, counts, size)
        if at < 0:
            at = empties[np.random.randint(0, count)]
        last = empties[count - 1]  # take ``at`` out of the empty list: swap with the last
        empties[where[at]] = last
        where[last] = where[at]
        count -= 1
        board[at] = stone
        stones[colour] += 1
        if stones[colour] >= k - 1:
            _stone_threats(board, k, exact, width, at, stone, threats, counts, size)
        stone = 3 - stone
    s[STATUS] = STATUS_DRAW
    s[REASON] = REASON_BOARD_FULL
    return STATUS_DRAW


# --- n×n×n cube -------------------------------------------------------------------------------
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
    while count > 0:
        colour = stone - 1
        if _winning_cell(board, 0, False, 0, colour, threats, counts, size) >= 0:
            s[STATUS] = stone
            s[REASON] = REASON_LINE
            return stone
        cell = _winning_cell(board, 0, False, 0, 1 - colour, threats, counts, size)
        if cell < 0:
            cell = empties[np.random.randint(0, count)]
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
        pick = np.random.randint(0, total)
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
    while s[STATUS] == STATUS_ONGOING:
        player = s[TO_MOVE]
        count = ops.legal(gid, p, s, mine)
        if not known_no_win:
            win = _winning_action(gid, p, s, mine, count)
            if win >= 0:
                ops.play(gid, p, s, win)
                return s[STATUS]
        known_no_win = False
        pick = mine[np.random.randint(0, count)]
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
