"""Vanishing tic-tac-toe: 3×3, three in a row wins, but each player keeps at most three stones.

Rules: players alternate placing a stone on an empty cell. From a player's fourth stone on (the
game's 7th ply), the new stone goes on an empty cell while all six stones still stand (so the
square of the stone about to vanish is not available), then that player's oldest stone is
removed, then lines are checked: a line that needed the removed stone no longer counts. At most
six stones stand, so three cells are always free and the board never fills. Moves and text
notation are those of m,n,k: a cell ``(x, y)``, text ``a1`` (top-left) to ``c3``.

Endless play is cut off by two draw rules (parameters): ``repetition`` (default 3) draws when
the same position occurs for that many times (0 turns it off), and ``ply_limit`` (default 100,
i.e. 50 stones each, far beyond any forced win) draws when that many plies were played without a
line. A line on the last ply still wins; repetition is checked before the ply limit. There is no
"no limit" value: the state array keeps every ply (for undo and repetition), so its length is
fixed by the limit.

A position is the standing stones in age order plus the side to move. ``HASH`` holds an exact
key, not a Zobrist sum: the code ``to_move | (cell+1) << (1 + 4*i)`` over the up to six standing
stones (newest first), passed through a bijective 64-bit mixer. Distinct positions therefore
never share a key, which makes repetition detection exact, and the empty board's key is 0.

State array after the common header: ``board[9]`` (0 empty, 1 first player, 2 second), then
``stack[ply_limit]``, the cell played at each ply, then ``keys[ply_limit + 1]``, the key after
each ply. The stone removed at ply t is always the one placed at ply t - 6. Kernels take
``p = [ply_limit, repetition]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .base import (
    HASH,
    HEADER,
    PLY,
    REASON,
    REASON_LINE,
    REASON_MOVE_LIMIT,
    REASON_NONE,
    REASON_REPETITION,
    STATUS,
    STATUS_DRAW,
    STATUS_ONGOING,
    TO_MOVE,
    Game,
    Move,
    Param,
    ParamError,
    State,
)
from .mnk import MnkGame, decode_cell

SIDE = 3
CELLS = SIDE * SIDE
STANDING = 6  # stones on the board once both players have three
STACK = HEADER + CELLS  # offset of the per-ply cell stack
MAX_PLY_LIMIT = 1000
# A position can only recur 8 or more plies later: a new stone never lands on a cell played in the
# six plies before (those stones still stand), and fewer than six stones never come back.
REPEAT_DISTANCE = 8


@njit(cache=True, inline="always")
def mix(code):
    """The splitmix64 finalizer: a bijection of 64-bit words that spreads the code's bits."""
    z = np.uint64(code)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z)


@njit(cache=True, inline="always")
def makes_line(s, cell, stone):
    """Whether ``stone`` owns a full row, column or diagonal through ``cell``."""
    x = cell % SIDE
    row = cell - x
    if s[HEADER + row] == stone and s[HEADER + row + 1] == stone and s[HEADER + row + 2] == stone:
        return True
    if s[HEADER + x] == stone and s[HEADER + x + 3] == stone and s[HEADER + x + 6] == stone:
        return True
    if cell % 4 == 0 and s[HEADER] == stone and s[HEADER + 4] == stone and s[HEADER + 8] == stone:
        return True  # the main diagonal: cells 0, 4, 8
    return (
        (cell == 2 or cell == 4 or cell == 6)
        and s[HEADER + 2] == stone
        and s[HEADER + 4] == stone
        and s[HEADER + 6] == stone
    )


@njit(cache=True)
def legal(p, s, out):
    """Write the empty cells in row-major order to ``out``; return how many."""
    if s[STATUS] != STATUS_ONGOING:
        return 0
    count = 0
    for c in range(CELLS):
        if s[HEADER + c] == 0:
            out[count] = c
            count += 1
    return count


@njit(cache=True)
def play(p, s, cell):
    """Place a stone on ``cell`` (assumed empty), remove the mover's oldest if it was the fourth,
    then update the key and the status: line, repetition, ply limit, in that order."""
    ply_limit = p[0]
    repetition = p[1]
    keys = STACK + ply_limit
    ply = s[PLY]
    player = s[TO_MOVE]
    stone = player + 1
    s[HEADER + cell] = stone
    s[STACK + ply] = cell
    if ply >= STANDING:
        s[HEADER + s[STACK + ply - STANDING]] = 0
    ply += 1
    s[PLY] = ply
    s[TO_MOVE] = 1 - player
    code = 1 - player
    shift = 1
    for i in range(ply - 1, max(ply - 1 - STANDING, -1), -1):
        code |= (s[STACK + i] + 1) << shift
        shift += 4
    key = mix(code)
    s[HASH] = key
    s[keys + ply] = key
    if makes_line(s, cell, stone):
        s[STATUS] = stone  # STATUS_WIN0 == 1, STATUS_WIN1 == 2
        s[REASON] = REASON_LINE
        return
    if repetition > 0:
        seen = 1
        for earlier in range(ply - REPEAT_DISTANCE, STANDING - 1, -2):  # same side to move: same parity
            if s[keys + earlier] == key:
                seen += 1
        if seen >= repetition:
            s[STATUS] = STATUS_DRAW
            s[REASON] = REASON_REPETITION
            return
    if ply == ply_limit:
        s[STATUS] = STATUS_DRAW
        s[REASON] = REASON_MOVE_LIMIT


@njit(cache=True)
def undo(p, s):
    """Take back the last ply: lift its stone, put back the stone it removed, clear its records."""
    keys = STACK + p[0]
    ply = s[PLY]
    ply -= 1
    player = 1 - s[TO_MOVE]
    s[HEADER + s[STACK + ply]] = 0
    if ply >= STANDING:
        s[HEADER + s[STACK + ply - STANDING]] = player + 1
    s[STACK + ply] = 0
    s[keys + ply + 1] = 0
    s[PLY] = ply
    s[TO_MOVE] = player
    s[HASH] = s[keys + ply]
    s[STATUS] = STATUS_ONGOING
    s[REASON] = REASON_NONE


@njit(cache=True, inline="always")
def owns_line(mask):
    """Whether the cells of ``mask`` (bit c set for cell c) hold a full row, column or diagonal."""
    return (
        (mask & 0o7) == 0o7  # rows: cells 0-2, 3-5, 6-8
        or (mask & 0o70) == 0o70
        or (mask & 0o700) == 0o700
        or (mask & 0o111) == 0o111  # columns: cells 0, 3, 6 and the next two
        or (mask & 0o222) == 0o222
        or (mask & 0o444) == 0o444
        or (mask & 0o421) == 0o421  # the diagonals: cells 0, 4, 8 and 2, 4, 6
        or (mask & 0o124) == 0o124
    )


@njit(cache=True)
def playout(p, s, free):
    """Random play from ``s`` to the end, on ``s`` itself (pass a copy); return the final status.

    Leaves ``s`` exactly as ``play`` would after the same moves, but plays a ply without the
    generic work of ``play``: the free cells stay in ``free`` (a stone lands on one, the mover's
    oldest stone frees one), the six newest stones are a 24-bit ring in a register, newest in the
    low nibble, so the vanishing stone is its top nibble and the key's code is ``to_move | ring << 1``
    with no loop, and each player's stones are a 9-bit mask for the line check: the mover keeps at
    most three stones, so any line of theirs is the new stone's. Repetition is scanned from ply 14
    on, the first at which a position can recur (``REPEAT_DISTANCE`` after the first of six stones).
    """
    status = s[STATUS]
    if status != STATUS_ONGOING:
        return status
    ply_limit = p[0]
    repetition = p[1]
    keys = STACK + ply_limit
    ply = s[PLY]
    player = s[TO_MOVE]
    ring = 0  # cell + 1 of the six newest stones, oldest in bits 20-23; 0 where there is none
    for i in range(max(ply - STANDING, 0), ply):
        ring = (ring << 4) | (s[STACK + i] + 1)
    mine = 0  # the side to move's cells as bits
    theirs = 0
    count = 0
    for c in range(CELLS):
        stone = s[HEADER + c]
        if stone == 0:
            free[count] = c
            count += 1
        elif stone == player + 1:
            mine |= 1 << c
        else:
            theirs |= 1 << c
    while True:
        i = np.random.randint(0, count)
        cell = free[i]
        vanishing = (ring >> 20) - 1  # the stone placed STANDING plies ago, or -1
        ring = ((ring << 4) & 0xFFFFFF) | (cell + 1)
        s[HEADER + cell] = player + 1
        mine |= 1 << cell
        if vanishing >= 0:
            s[HEADER + vanishing] = 0
            mine &= ~(1 << vanishing)
            free[i] = vanishing
        else:
            count -= 1
            free[i] = free[count]
        s[STACK + ply] = cell
        ply += 1
        player = 1 - player
        key = mix(player | (ring << 1))
        s[keys + ply] = key
        if owns_line(mine):
            status = 2 - player  # the mover's win: STATUS_WIN0 == 1, STATUS_WIN1 == 2
            reason = REASON_LINE
            break
        if repetition > 0 and ply >= STANDING + REPEAT_DISTANCE:
            seen = 1
            for earlier in range(ply - REPEAT_DISTANCE, STANDING - 1, -2):  # as in ``play``
                if s[keys + earlier] == key:
                    seen += 1
            if seen >= repetition:
                status = STATUS_DRAW
                reason = REASON_REPETITION
                break
        if ply == ply_limit:
            status = STATUS_DRAW
            reason = REASON_MOVE_LIMIT
            break
        mine, theirs = theirs, mine
    s[PLY] = ply
    s[TO_MOVE] = player
    s[HASH] = key
    s[STATUS] = status
    s[REASON] = reason
    return status


class VanishingGame(Game):
    """3×3 tic-tac-toe where each player's fourth stone makes their oldest vanish."""

    family = "vanishing"
    gid = 1
    PARAMS = (
        Param(
            "ply_limit",
            int,
            100,
            "draw after this many plies without a line",
            minimum=1,
            maximum=MAX_PLY_LIMIT,
        ),
        Param(
            "repetition",
            int,
            3,
            "draw when a position occurs this many times (0: never)",
            minimum=0,
            maximum=10,
        ),
    )

    def validate(self) -> None:
        if self.params["repetition"] == 1:
            raise ParamError("repetition=1 would end the game at once; use 0 (off) or at least 2")

    def _param_values(self) -> list[int]:
        return [self.params["ply_limit"], self.params["repetition"]]

    @property
    def state_size(self) -> int:
        return STACK + 2 * self.params["ply_limit"] + 1

    @property
    def max_actions(self) -> int:
        return CELLS

    def new_state(self) -> VanishingState:
        return VanishingState(self, np.zeros(self.state_size, dtype=np.int64))  # key(empty board) == 0

    def decode_move(self, value: Any) -> Move:
        return decode_cell(value, (SIDE, SIDE))

    move_to_text = MnkGame.move_to_text
    move_from_text = MnkGame.move_from_text


class VanishingState(State):
    game: VanishingGame

    def legal_actions(self) -> np.ndarray:
        out = np.empty(CELLS, dtype=np.int64)
        return out[: legal(self.game.param_array, self.s, out)]

    def is_legal_action(self, action: int) -> bool:
        """An empty cell of a game still going on: one lookup instead of listing every empty cell."""
        return 0 <= action < CELLS and self.s[STATUS] == STATUS_ONGOING and self.s[HEADER + action] == 0

    def _play_action_unchecked(self, action: int) -> None:
        play(self.game.param_array, self.s, action)

    def _undo_action(self) -> None:
        undo(self.game.param_array, self.s)

    def _action_to_move(self, action: int) -> Move:
        return (action % SIDE, action // SIDE)

    def _move_to_actions(self, move: Move) -> list[int]:
        x, y = self.game.decode_move(move)
        return [y * SIDE + x]

    def moves(self) -> list[Move]:
        return [self._action_to_move(int(c)) for c in self.s[STACK : STACK + self.ply]]

    def board(self) -> np.ndarray:
        """The board as a 3×3 array: 0 empty, 1 first player, 2 second player."""
        return self.s[HEADER:STACK].reshape(SIDE, SIDE)

    def next_to_vanish(self) -> int | None:
        """The cell whose stone vanishes with the side to move's next stone, if one will."""
        if self.ply < STANDING or self.is_terminal:
            return None
        return int(self.s[STACK + self.ply - STANDING])

    def diagram(self) -> str:
        """The board; the stone that vanishes with the next move is drawn in lower case."""
        vanishing = self.next_to_vanish()
        rows = ["    a b c"]
        for y, row in enumerate(self.board()):
            marks = [".XO"[v].lower() if y * SIDE + x == vanishing else ".XO"[v] for x, v in enumerate(row)]
            rows.append(f"{y + 1:>3} " + " ".join(marks))
        return "\n".join(rows)
