"""Five in a row under a tournament rule: renju (forbidden points for black) or caro (blocked fives).

Both are played like gomoku on an m×n board (moves, text notation and the state layout are the
m,n,k family's: ``board[m*n]`` then the stack of cells played); only who wins and, in renju, which
cells black may take differ. Kernels take ``p = [m, n, rule, exact]`` (``rule`` 0 renju, 1 caro).

**renju** — the Renju International Federation's rules ("The International Rules of Renju", RIF,
1996 with the 1998 correction, renju.net/study/rifrules.php), articles 3 (terms) and 9 (forbidden
moves): black moves first; a *five* is an unbroken row of exactly five stones and an *overline*
one of six or more; a *four* is a row of four to which one stone can be added to make five, a
*straight four* one to which that can be done in two ways; a *three* is a row of three to which
one stone can be added, without making a five at the same time, to make a straight four. Black
wins only with a five (9.2), white with a five or an overline (9.1). A black move that makes a
double-three, a double-four (two or more threes or fours meeting at the new stone; two fours on
one line count) or an overline is forbidden (9.3), unless it makes a five at the same time (9.2:
the five takes precedence). A three is a three only if black may actually play the point that
makes it a straight four (the renju.net explanations of 9.3, and Gomocup's renju rule, which is the
RIF rule): that point's own legality is the same question again, one stone further on, and is
answered recursively, to ``MAX_DEPTH`` nested points (beyond that, which no real position reaches,
the point counts as legal). RIF has black lose on playing a forbidden point once white points it
out; here, as in Gomocup and on every renju server, a forbidden point is simply not a legal move
(``legal`` omits it, ``forbidden_kind`` says why). A black with no legal point left (every empty
point forbidden) would have to pass, which moves here cannot express: the game is then drawn,
reason ``stuck``. White has no forbidden points. The opening rules (swap2, Yamaguchi, …) are not
part of these rules.

**caro** — Vietnamese five in a row as Gomocup's manager Piskvork judges it (``INFO rule`` 8,
"Caro with overlines", or with ``exact`` rule 9, "standard Caro"; Piskvork's game.cpp): a row of
exactly five wins unless both of its ends are the opponent's stones. The edge of the board is not
a block: a five against the edge, or against the edge and one opponent stone, wins. An overline
(six or more) wins whatever its ends, or never with ``exact``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .base import (
    HEADER,
    PLY,
    REASON,
    REASON_BOARD_FULL,
    REASON_LINE,
    REASON_STUCK,
    STATUS,
    STATUS_DRAW,
    STATUS_ONGOING,
    TO_MOVE,
    IllegalMove,
    Move,
    Param,
    ParamError,
)
from .fastrandom import below, seed_from_numpy
from .mnk import MAX_SIDE, OPENING, MnkGame, MnkState, place

RULE_RENJU = 0
RULE_CARO = 1
RULES = ("renju", "caro")
BLACK = 1
WHITE = 2
FIVE = 5
MAX_DEPTH = 16  # nested three-completing points followed before one is taken as legal
STACK_WIDTH = 20

NOT_FORBIDDEN = 0
OVERLINE = 1
DOUBLE_FOUR = 2
DOUBLE_THREE = 3
FORBIDDEN_NAMES = {OVERLINE: "overline", DOUBLE_FOUR: "double-four", DOUBLE_THREE: "double-three"}


@njit(cache=True, inline="always")
def delta(d):
    """The step of direction ``d``: along a row, a column, the diagonal, the anti-diagonal."""
    if d == 0:
        return 1, 0
    if d == 1:
        return 0, 1
    if d == 2:
        return 1, 1
    return 1, -1


@njit(cache=True, inline="always")
def at(board, m, n, x, y):
    """The stone on (x, y), or -1 off the board."""
    if 0 <= x < m and 0 <= y < n:
        return board[y * m + x]
    return -1


@njit(cache=True, inline="always")
def stretch(board, m, n, x, y, dx, dy, stone):
    """How many ``stone`` follow (x, y) in a row, stepping (dx, dy): (x, y) itself not counted."""
    count = 0
    x += dx
    y += dy
    while 0 <= x < m and 0 <= y < n and board[y * m + x] == stone:
        count += 1
        x += dx
        y += dy
    return count


@njit(cache=True)
def wins(board, m, n, rule, exact, x, y, stone):
    """Whether ``stone``, just placed on (x, y), made a winning row under ``rule``."""
    for d in range(4):
        dx, dy = delta(d)
        back = stretch(board, m, n, x, y, -dx, -dy, stone)
        ahead = stretch(board, m, n, x, y, dx, dy, stone)
        run = back + ahead + 1
        if rule == RULE_RENJU:
            if run == FIVE or (run > FIVE and stone == WHITE):
                return True
        elif run > FIVE:
            if not exact:
                return True
        elif run == FIVE:
            other = 3 - stone
            before = at(board, m, n, x - (back + 1) * dx, y - (back + 1) * dy)
            after = at(board, m, n, x + (ahead + 1) * dx, y + (ahead + 1) * dy)
            if before != other or after != other:
                return True
    return False


@njit(cache=True, inline="always")
def makes_five(board, m, n, x, y):
    """Whether black on (x, y) (already placed) has exactly five in some direction."""
    for d in range(4):
        dx, dy = delta(d)
        if stretch(board, m, n, x, y, -dx, -dy, BLACK) + stretch(board, m, n, x, y, dx, dy, BLACK) + 1 == FIVE:
            return True
    return False


@njit(cache=True)
def fours_on_line(board, m, n, x, y, dx, dy, back, ahead):
    """Fours that black's stone on (x, y) (placed; its run spans ``back`` behind, ``ahead`` ahead)
    makes along (dx, dy): 0, 1 (a four, or a straight four: both ends complete the same four stones)
    or 2 (two fours on one line, as ``x.xxx.x``). Only the empty points touching the run can make a
    five with it, so those two are all there is to try."""
    run = back + ahead + 1
    count = 0
    for side in range(2):
        step = -1 if side == 0 else 1
        reach = back + 1 if side == 0 else ahead + 1
        ex, ey = x + step * reach * dx, y + step * reach * dy
        if at(board, m, n, ex, ey) == 0 and run + 1 + stretch(board, m, n, ex, ey, step * dx, step * dy, BLACK) == FIVE:
            count += 1
    if count == 2 and run == 4:
        return 1  # a straight four
    return count


@njit(cache=True)
def examine(board, m, n, x, y, points, lines):
    """Place black on the empty (x, y) and judge what needs no deeper look.

    Returns a code (``NOT_FORBIDDEN`` for a five, which overrides everything, then ``OVERLINE``,
    ``DOUBLE_FOUR``, or ``NOT_FORBIDDEN`` when fewer than two lines could be threes), or -(count + 1)
    with the points that would make a three of a line into a straight four written to ``points``
    (as cells) and their line's direction to ``lines``: those points' own legality decides. A
    candidate touches the run through (x, y), makes a run of four with both ends empty and neither
    end's completion an overline, and makes no five (RIF: a three becomes a straight four "without
    at the same time a five in a row is made"). A line holding a four cannot also hold a three.
    """
    board[y * m + x] = BLACK
    overline = False
    fours = 0
    four_lines = 0  # bit d: direction d holds a four
    for d in range(4):
        dx, dy = delta(d)
        back = stretch(board, m, n, x, y, -dx, -dy, BLACK)
        ahead = stretch(board, m, n, x, y, dx, dy, BLACK)
        run = back + ahead + 1
        if run == FIVE:
            return NOT_FORBIDDEN
        if run > FIVE:
            overline = True
        else:
            found = fours_on_line(board, m, n, x, y, dx, dy, back, ahead)
            if found:
                fours += found
                four_lines |= 1 << d
    if overline:
        return OVERLINE
    if fours >= 2:
        return DOUBLE_FOUR
    count = 0
    candidate_lines = 0
    for d in range(4):
        if four_lines & (1 << d):
            continue
        dx, dy = delta(d)
        back = stretch(board, m, n, x, y, -dx, -dy, BLACK)
        ahead = stretch(board, m, n, x, y, dx, dy, BLACK)
        run = back + ahead + 1
        for side in range(2):
            step = -1 if side == 0 else 1
            reach = back + 1 if side == 0 else ahead + 1
            ex, ey = x + step * reach * dx, y + step * reach * dy
            if at(board, m, n, ex, ey) != 0:
                continue
            joined = stretch(board, m, n, ex, ey, step * dx, step * dy, BLACK)
            if run + 1 + joined != 4:
                continue
            lo = back + 1 + joined if side == 0 else back  # the four's extent behind (x, y) ...
            hi = ahead if side == 0 else ahead + 1 + joined  # ... and ahead of it
            lx, ly = x - (lo + 1) * dx, y - (lo + 1) * dy
            hx, hy = x + (hi + 1) * dx, y + (hi + 1) * dy
            if at(board, m, n, lx, ly) != 0 or at(board, m, n, hx, hy) != 0:
                continue
            if at(board, m, n, lx - dx, ly - dy) == BLACK or at(board, m, n, hx + dx, hy + dy) == BLACK:
                continue  # completing that end would make an overline: not a straight four
            board[ey * m + ex] = BLACK
            completes_five = makes_five(board, m, n, ex, ey)
            board[ey * m + ex] = 0
            if completes_five:
                continue
            points[count] = ey * m + ex
            lines[count] = d
            count += 1
            candidate_lines |= 1 << d
    if candidate_lines & (candidate_lines - 1) == 0:  # fewer than two lines could be threes
        return NOT_FORBIDDEN
    return -(count + 1)


@njit(cache=True)
def new_stack():
    """Scratch for ``forbidden``: per level, 8 candidate points, their 8 lines, then the count of
    candidates, the next to try, the lines found to be threes (bits) and the level's point."""
    return np.empty((MAX_DEPTH + 1, STACK_WIDTH), dtype=np.int64)


@njit(cache=True)
def forbidden(board, m, n, x, y, stack):
    """Why black may not play the empty point (x, y): ``OVERLINE``, ``DOUBLE_FOUR``, ``DOUBLE_THREE``,
    or ``NOT_FORBIDDEN``. ``board`` is changed while it looks, and restored.

    A line is a three when one of its straight-four points (``examine``) is itself legal for black,
    with (x, y) now black: the same question one stone deeper, followed to ``MAX_DEPTH`` levels
    (past that a point counts as legal). The levels live on an explicit stack, not in recursive
    calls, which numba's cache cannot reload; ``stack`` is ``new_stack()``, reused across calls.
    """
    points = stack[:, 0:8]
    lines = stack[:, 8:16]
    counts = stack[:, 16]
    nexts = stack[:, 17]
    threes = stack[:, 18]  # bit d: line d is a three
    cells = stack[:, 19]
    level = 0
    cells[0] = y * m + x
    code = examine(board, m, n, x, y, points[0], lines[0])
    while True:
        if code < -1:  # a new level (``examine`` found two or more candidates): try them in turn
            counts[level] = -code - 1
            nexts[level] = 0
            threes[level] = 0
            code = -1
        # the next candidate of this level, or this level's verdict
        while code == -1:
            i = nexts[level]
            if threes[level] & (threes[level] - 1):
                code = DOUBLE_THREE
            elif i == counts[level]:
                code = NOT_FORBIDDEN
            elif threes[level] & (1 << lines[level, i]):
                nexts[level] = i + 1  # that line is a three already
            elif level == MAX_DEPTH:
                threes[level] |= 1 << lines[level, i]
                nexts[level] = i + 1
            else:
                nexts[level] = i + 1
                point = points[level, i]
                level += 1
                cells[level] = point
                code = examine(board, m, n, point % m, point // m, points[level], lines[level])
                break
        if code < -1:
            continue
        # ``code`` is the verdict on ``cells[level]``: lift its stone and hand it down
        board[cells[level]] = 0
        if level == 0:
            return code
        level -= 1
        if code == NOT_FORBIDDEN:
            threes[level] |= 1 << lines[level, nexts[level] - 1]
        code = -1  # resume that level


@njit(cache=True)
def may_be_forbidden(board, m, n, x, y):
    """A cheap necessary condition for (x, y) to be forbidden, reading each line outward from it up to
    a white stone or the edge (a row holds no opponent stone): two lines that could be threes (two
    black stones within three points) or fours (three within four), or one line with four black
    stones within five points (an overline, or two fours on one line). Most points fail it."""
    busy = 0
    for d in range(4):
        dx, dy = delta(d)
        three = 0
        four = 0
        far = 0
        for side in range(2):
            step = -1 if side == 0 else 1
            for t in range(1, 6):
                stone = at(board, m, n, x + step * t * dx, y + step * t * dy)
                if stone == WHITE or stone == -1:
                    break
                if stone == BLACK:
                    far += 1
                    if t <= 4:
                        four += 1
                        if t <= 3:
                            three += 1
        if far >= 4:
            return True
        if three >= 2 or four >= 3:
            busy += 1
            if busy >= 2:
                return True
    return False


@njit(cache=True)
def black_forbidden(board, m, n, cell, stack):
    """``forbidden`` for the empty ``cell``, after the cheap test that clears most points."""
    x = cell % m
    y = cell // m
    if not may_be_forbidden(board, m, n, x, y):
        return NOT_FORBIDDEN
    return forbidden(board, m, n, x, y, stack)


@njit(cache=True, inline="always")
def renju_black_to_move(p, s):
    """Whether black may have forbidden points: renju, black to move, the game on, and at least four
    black stones (a forbidden point needs that many besides the new one)."""
    return p[2] == RULE_RENJU and s[TO_MOVE] == 0 and s[STATUS] == STATUS_ONGOING and s[PLY] >= 8


@njit(cache=True)
def forbidden_at(p, s, cell):
    """Why ``cell`` is forbidden, if black is to move in a renju game still going on; else NOT_FORBIDDEN."""
    if not renju_black_to_move(p, s) or s[HEADER + cell] != 0:
        return NOT_FORBIDDEN
    return black_forbidden(s[HEADER : HEADER + p[0] * p[1]], p[0], p[1], cell, new_stack())


@njit(cache=True)
def count_black_near(p, s, counts):
    """For every cell and line, the black stones within three, four and five points of it, packed in
    four bits each (``counts[4 * cell + d]``): spread from black's own stones (the even entries of the
    move stack), a few dozen writes instead of reading forty cells around every empty one."""
    m = p[0]
    n = p[1]
    size = m * n
    counts[:] = 0
    for i in range(0, s[PLY], 2):
        cell = s[HEADER + size + i]
        x = cell % m
        y = cell // m
        for d in range(4):
            dx, dy = delta(d)
            for t in range(-5, 6):
                px, py = x + t * dx, y + t * dy
                if t != 0 and 0 <= px < m and 0 <= py < n:
                    distance = abs(t)
                    counts[4 * (py * m + px) + d] += (distance <= 3) + 16 * (distance <= 4) + 256


@njit(cache=True, inline="always")
def near_enough(counts, cell):
    """``may_be_forbidden``'s condition on the counts, without its stop at white stones: looser, as cheap as it gets."""
    busy = 0
    for d in range(4):
        packed = counts[4 * cell + d]
        if packed >> 8 >= 4:
            return True
        if packed & 15 >= 2 or (packed >> 4) & 15 >= 3:
            busy += 1
    return busy >= 2


@njit(cache=True)
def legal(p, s, out):
    """Write the legal cells in row-major order to ``out``: the empty ones, less black's forbidden
    points in renju; return how many."""
    if s[STATUS] != STATUS_ONGOING:
        return 0
    m = p[0]
    size = m * p[1]
    board = s[HEADER : HEADER + size]
    count = 0
    if not renju_black_to_move(p, s):
        for c in range(size):
            if board[c] == 0:
                out[count] = c
                count += 1
        return count
    counts = np.empty(4 * size, dtype=np.int64)
    count_black_near(p, s, counts)
    stack = new_stack()
    for c in range(size):
        if board[c] == 0 and (not near_enough(counts, c) or black_forbidden(board, m, p[1], c, stack) == NOT_FORBIDDEN):
            out[count] = c
            count += 1
    return count


@njit(cache=True)
def forbidden_cells(p, s, out):
    """Write black's forbidden points (cell, then its code) to ``out``; return how many points."""
    count = 0
    if not renju_black_to_move(p, s):
        return 0
    board = s[HEADER : HEADER + p[0] * p[1]]
    stack = new_stack()
    for c in range(p[0] * p[1]):
        kind = black_forbidden(board, p[0], p[1], c, stack) if board[c] == 0 else NOT_FORBIDDEN
        if kind != NOT_FORBIDDEN:
            out[2 * count] = c
            out[2 * count + 1] = kind
            count += 1
    return count


@njit(cache=True)
def black_is_stuck(p, s):
    """Whether black, to move in renju, has no legal point though empty ones remain."""
    if not renju_black_to_move(p, s):
        return False
    board = s[HEADER : HEADER + p[0] * p[1]]
    stack = new_stack()
    for c in range(p[0] * p[1]):
        if board[c] == 0 and black_forbidden(board, p[0], p[1], c, stack) == NOT_FORBIDDEN:
            return False
    return True


@njit(cache=True)
def play(p, s, cell):
    """Place the side to move's stone on ``cell`` (assumed legal) and update status and hash."""
    m = p[0]
    n = p[1]
    size = m * n
    stone = place(p, s, cell)
    player = stone - 1
    if wins(s[HEADER : HEADER + size], m, n, p[2], p[3], cell % m, cell // m, stone):
        s[STATUS] = stone  # STATUS_WIN0 == 1, STATUS_WIN1 == 2
        s[REASON] = REASON_LINE
    elif s[PLY] == size:
        s[STATUS] = STATUS_DRAW
        s[REASON] = REASON_BOARD_FULL
    elif player == 1 and black_is_stuck(p, s):
        s[STATUS] = STATUS_DRAW
        s[REASON] = REASON_STUCK


@njit(cache=True)
def play_if_legal(p, s, cell):
    """``play`` when ``cell`` is legal here: the ply before it; else -1, nothing changed."""
    if s[STATUS] != STATUS_ONGOING or s[HEADER + cell] != 0 or forbidden_at(p, s, cell) != NOT_FORBIDDEN:
        return -1
    ply = s[PLY]
    play(p, s, cell)
    return ply


@njit(cache=True)
def playout(p, s, buffer):
    """Random play from ``s`` to the end, on ``s`` itself (pass a copy); return the final status.

    Uniform among the legal cells at every turn: a random empty cell, and for black in renju a
    forbidden one is set aside (after the untried ones) and another drawn, until one is legal; the
    set-aside cells return with the next turn, when they may be legal again. ``s`` is left as
    ``mnk.playout`` leaves it: the final board, ``PLY``, ``STATUS`` and ``REASON``.
    """
    m = p[0]
    n = p[1]
    if s[STATUS] != STATUS_ONGOING:
        return s[STATUS]
    size = m * n
    board = s[HEADER : HEADER + size]
    empties = buffer
    count = 0
    for c in range(size):
        if board[c] == 0:
            empties[count] = c
            count += 1
    player = s[TO_MOVE]
    renju_black = p[2] == RULE_RENJU
    stack = new_stack()
    rng = seed_from_numpy()
    while count > 0:
        choosable = count
        cell = -1
        while choosable > 0:
            rng, j = below(rng, choosable)
            candidate = empties[j]
            choosable -= 1
            empties[j] = empties[choosable]
            empties[choosable] = candidate  # the drawn cell now sits just past the choosable ones
            if not renju_black or player == 1 or black_forbidden(board, m, n, candidate, stack) == NOT_FORBIDDEN:
                cell = candidate
                empties[choosable] = empties[count - 1]
                break
        if cell < 0:
            s[STATUS] = STATUS_DRAW
            s[REASON] = REASON_STUCK
            return STATUS_DRAW
        count -= 1
        stone = player + 1
        board[cell] = stone
        s[PLY] += 1
        if wins(board, m, n, p[2], p[3], cell % m, cell // m, stone):
            s[STATUS] = stone
            s[REASON] = REASON_LINE
            return stone
        player = 1 - player
    s[STATUS] = STATUS_DRAW
    s[REASON] = REASON_BOARD_FULL
    return STATUS_DRAW


class FiveGame(MnkGame):
    """Five in a row under a tournament rule: renju (black's forbidden points) or caro (blocked fives)."""

    family = "five"
    gid = 4
    PARAMS = (
        Param("m", int, 15, "columns", minimum=FIVE, maximum=MAX_SIDE),
        Param("n", int, 15, "rows", minimum=FIVE, maximum=MAX_SIDE),
        Param(
            "rule",
            str,
            "renju",
            "renju: black's double-three, double-four and overline are forbidden; "
            "caro: a five blocked at both ends does not win",
            choices=RULES,
        ),
        Param("exact", bool, False, "caro only: an overline does not win"),
        OPENING,
    )

    def validate(self) -> None:
        if self.params["exact"] and self.params["rule"] != "caro":
            raise ParamError("exact applies to caro only: in renju black's overline is forbidden and white's wins")

    def _param_values(self) -> list[int]:
        p = self.params
        return [p["m"], p["n"], RULES.index(p["rule"]), int(p["exact"])]

    def new_state(self) -> FiveState:
        return FiveState(self, np.zeros(self.state_size, dtype=np.int64))


class FiveState(MnkState):
    game: FiveGame
    _legal = staticmethod(legal)
    _play = staticmethod(play)
    _play_if_legal = staticmethod(play_if_legal)

    def is_legal_action(self, action: int) -> bool:
        """An empty cell of a game still going on that is not one of black's forbidden points."""
        return super().is_legal_action(action) and forbidden_at(self.game.param_array, self.s, action) == NOT_FORBIDDEN

    def _check_and_play_actions(self, actions: list[int]) -> None:
        (action,) = actions
        kind = forbidden_at(self.game.param_array, self.s, action) if 0 <= action < self.game.cells else NOT_FORBIDDEN
        if kind != NOT_FORBIDDEN:
            text = self.game.move_to_text(self._action_to_move(action))
            raise IllegalMove(f"{text} is forbidden for black ({FORBIDDEN_NAMES[kind]})")
        super()._check_and_play_actions(actions)

    def forbidden_points(self) -> list[Move]:
        """Black's forbidden points when black is to move in renju (else none), row-major: what a
        board marks so a player sees them before clicking."""
        out = np.empty(2 * self.game.cells, dtype=np.int64)
        count = forbidden_cells(self.game.param_array, self.s, out)
        return [self._action_to_move(int(out[2 * i])) for i in range(count)]

    def forbidden_kind(self, move: Move) -> str | None:
        """Why black may not play ``move`` here ("overline", "double-four", "double-three"), or None."""
        (action,) = self._move_to_actions(move)
        kind = forbidden_at(self.game.param_array, self.s, action)
        return FORBIDDEN_NAMES.get(kind)
