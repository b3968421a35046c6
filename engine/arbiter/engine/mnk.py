"""The m,n,k family: an m×n board, k in a row wins (tic-tac-toe, 4×4, gomoku).

Rules: players alternate placing a stone on an empty cell; a line of k or more of one's own stones
(row, column or either diagonal) wins, or exactly k when ``exact`` is set (an overline then does
not win); a full board without a line is a draw. A move is a cell ``(x, y)``, 0-based, x the
column, y the row from the top. Text notation: column letter then row number, ``a1`` top-left.

State array after the common header: ``board[m*n]`` (0 empty, 1 first player, 2 second), then
``stack[m*n]``, the cells played in order. Kernels take ``p = [m, n, k, exact]``.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np
from numba import njit

from .base import (
    HASH,
    HEADER,
    PLY,
    REASON,
    REASON_BOARD_FULL,
    REASON_LINE,
    REASON_NONE,
    STATUS,
    STATUS_DRAW,
    STATUS_ONGOING,
    TO_MOVE,
    Game,
    Move,
    MoveFormatError,
    Param,
    ParamError,
    State,
)
from .fastrandom import below, seed_from_numpy
from .zobrist import zobrist_table

MAX_SIDE = 26  # one letter per column in the text notation
ZOBRIST = zobrist_table(2 * MAX_SIDE * MAX_SIDE, seed=0x6D6E6B)


@njit(cache=True, inline="always")
def line_through(board, m, n, k, exact, x, y, stone):
    """Whether ``stone`` on (x, y) completes a winning line (only lines through the cell can).

    The four directions are spelled out rather than read from a table: constant deltas let the
    compiler specialise each loop, which makes random playouts about a third faster.
    """
    for d in range(4):
        if d == 0:
            dx, dy = 1, 0
        elif d == 1:
            dx, dy = 0, 1
        elif d == 2:
            dx, dy = 1, 1
        else:
            dx, dy = 1, -1
        length = 1
        px, py = x + dx, y + dy
        while 0 <= px < m and 0 <= py < n and board[py * m + px] == stone:
            length += 1
            px += dx
            py += dy
        px, py = x - dx, y - dy
        while 0 <= px < m and 0 <= py < n and board[py * m + px] == stone:
            length += 1
            px -= dx
            py -= dy
        if length == k or (length > k and not exact):
            return True
    return False


@njit(cache=True)
def makes_line(board, m, n, k, exact, cell, stone):
    """Whether ``stone`` on ``cell`` completes a winning line."""
    return line_through(board, m, n, k, exact, cell % m, cell // m, stone)


@njit(cache=True)
def legal(p, s, out):
    """Write the empty cells in row-major order to ``out``; return how many."""
    if s[STATUS] != STATUS_ONGOING:
        return 0
    size = p[0] * p[1]
    count = 0
    for c in range(size):
        if s[HEADER + c] == 0:
            out[count] = c
            count += 1
    return count


@njit(cache=True, inline="always")
def place(p, s, cell):
    """Put the side to move's stone on ``cell`` and on the move stack, pass the turn, update the hash;
    return the stone (1 or 2). ``p`` starts with m, n (the five family shares this board)."""
    size = p[0] * p[1]
    player = s[TO_MOVE]
    stone = player + 1
    s[HEADER + cell] = stone
    s[HEADER + size + s[PLY]] = cell
    s[PLY] += 1
    s[HASH] ^= ZOBRIST[player * MAX_SIDE * MAX_SIDE + cell]
    s[TO_MOVE] = 1 - player
    return stone


@njit(cache=True)
def play(p, s, cell):
    """Place the side to move's stone on ``cell`` (assumed empty) and update status and hash."""
    m = p[0]
    n = p[1]
    size = m * n
    stone = place(p, s, cell)
    if makes_line(s[HEADER : HEADER + size], m, n, p[2], p[3], cell, stone):
        s[STATUS] = stone  # STATUS_WIN0 == 1, STATUS_WIN1 == 2
        s[REASON] = REASON_LINE
    elif s[PLY] == size:
        s[STATUS] = STATUS_DRAW
        s[REASON] = REASON_BOARD_FULL


@njit(cache=True)
def play_if_legal(p, s, cell):
    """``play`` when ``cell`` is empty and the game goes on: the ply before it; else -1, nothing changed.

    The server's move in one kernel call, instead of reading the status and the cell from Python."""
    if s[STATUS] != STATUS_ONGOING or s[HEADER + cell] != 0:
        return -1
    ply = s[PLY]
    play(p, s, cell)
    return ply


@njit(cache=True)
def undo(p, s):
    """Take back the last stone."""
    size = p[0] * p[1]
    s[PLY] -= 1
    cell = s[HEADER + size + s[PLY]]
    s[HEADER + size + s[PLY]] = 0  # equal positions keep equal arrays
    player = 1 - s[TO_MOVE]
    s[HEADER + cell] = 0
    s[HASH] ^= ZOBRIST[player * MAX_SIDE * MAX_SIDE + cell]
    s[TO_MOVE] = player
    s[STATUS] = STATUS_ONGOING
    s[REASON] = REASON_NONE


@njit(cache=True)
def playout_span(p):
    """State slots ``playout`` reads or writes: the header and the board, not the move stack."""
    return HEADER + p[0] * p[1]


@njit(cache=True, inline="always")
def line_mask_wins(line, shift, k, exact):
    """Whether one player's half of a packed line mask (bits ``shift`` to ``shift + 31``) holds a win.

    ``r`` keeps the bits that start k stones in a row; with ``exact``, only a run whose next bit
    is clear (``r >> 1`` would also mark it) and whose previous bit is clear (``v << 1``).
    """
    v = (line >> shift) & 0xFFFFFFFF
    r = v
    for i in range(1, k):
        r &= v >> i
    if exact:
        r &= ~(r >> 1) & ~(v << 1)
    return r != 0


@njit(cache=True)
def playout(p, s, buffer):
    """Random play from ``s`` to the end, on ``s`` itself (pass a copy); return the final status.

    Taking a uniformly random entry of the empty-cell list and moving the last entry into its
    slot is the same distribution as picking a uniformly random empty cell at each turn, at O(1)
    per move instead of a board scan. Each entry packs ``cell << 16 | y << 8 | x``. The line check
    reads bit masks instead of walking the board: one int64 per row, column, diagonal and
    anti-diagonal, the first player's stones in the low 32 bits and the second's in the high 32
    (bit x along a row or diagonal, bit y along a column); only the four lines through the new
    stone can change, and a shift-and test finds k in a row without a branch per cell. The empty
    list and the masks live in ``buffer`` (a fresh array on boards too thin for both to fit).
    Afterwards ``s`` holds the final board, ``PLY``, ``STATUS`` and ``REASON``; the move stack,
    ``TO_MOVE`` and the hash are left as they were (only the result matters to a playout).
    """
    m = p[0]
    n = p[1]
    k = p[2]
    exact = p[3]
    if s[STATUS] != STATUS_ONGOING:
        return s[STATUS]
    size = m * n
    board = s[HEADER : HEADER + size]
    columns = n  # masks: rows at 0, columns at n, diagonals (x - y + n - 1) and anti-diagonals (x + y) after
    diagonals = columns + m
    antidiagonals = diagonals + m + n - 1
    lines = antidiagonals + m + n - 1
    if len(buffer) >= size + lines:
        masks = buffer[size : size + lines]
        masks[:] = 0
    else:
        masks = np.zeros(lines, dtype=np.int64)
    empties = buffer
    count = 0
    cell = 0
    for y in range(n):
        for x in range(m):
            stone = board[cell]
            if stone == 0:
                empties[count] = cell << 16 | y << 8 | x
                count += 1
            else:
                shift = 32 * (stone - 1)
                masks[y] |= 1 << (x + shift)
                masks[columns + x] |= 1 << (y + shift)
                masks[diagonals + x - y + n - 1] |= 1 << (x + shift)
                masks[antidiagonals + x + y] |= 1 << (x + shift)
            cell += 1
    stone = s[TO_MOVE] + 1
    rng = seed_from_numpy()
    placed = 0
    while count > 0:
        rng, j = below(rng, count)
        count -= 1
        entry = empties[j]
        empties[j] = empties[count]
        board[entry >> 16] = stone
        placed += 1
        x = entry & 255
        y = (entry >> 8) & 255
        shift = 32 * (stone - 1)
        row = masks[y] | 1 << (x + shift)
        masks[y] = row
        column = masks[columns + x] | 1 << (y + shift)
        masks[columns + x] = column
        diagonal = masks[diagonals + x - y + n - 1] | 1 << (x + shift)
        masks[diagonals + x - y + n - 1] = diagonal
        antidiagonal = masks[antidiagonals + x + y] | 1 << (x + shift)
        masks[antidiagonals + x + y] = antidiagonal
        if (
            line_mask_wins(row, shift, k, exact)
            or line_mask_wins(column, shift, k, exact)
            or line_mask_wins(diagonal, shift, k, exact)
            or line_mask_wins(antidiagonal, shift, k, exact)
        ):
            s[PLY] += placed
            s[STATUS] = stone  # STATUS_WIN0 == 1, STATUS_WIN1 == 2
            s[REASON] = REASON_LINE
            return stone
        stone = 3 - stone
    s[PLY] += placed
    s[STATUS] = STATUS_DRAW
    s[REASON] = REASON_BOARD_FULL
    return STATUS_DRAW


# How the first stones come: the server runs a swap opening (its play/swap_opening.py); the rules of
# the position do not change. Gomoku-family games only (five in a row).
OPENINGS = ("none", "swap1", "swap2")
OPENING = Param(
    "opening",
    str,
    "none",
    "swap1: the first player places three stones, the second chooses a colour; swap2: the second may "
    "instead place two more and let the first choose (five in a row only)",
    choices=OPENINGS,
)


class MnkGame(Game):
    """m×n board, k in a row. Presets: tictactoe, tictactoe4, gomoku10, gomoku."""

    family = "mnk"
    gid = 0
    PARAMS = (
        Param("m", int, 15, "columns", minimum=1, maximum=MAX_SIDE),
        Param("n", int, 15, "rows", minimum=1, maximum=MAX_SIDE),
        Param("k", int, 5, "stones in a row that win", minimum=1, maximum=MAX_SIDE),
        Param("exact", bool, False, "only exactly k in a row wins (an overline does not)"),
        OPENING,
    )

    def validate(self) -> None:
        m, n, k = self.params["m"], self.params["n"], self.params["k"]
        if k > max(m, n):
            raise ParamError(f"k={k} is larger than the board ({m}x{n}): no line can ever win")
        if self.params["opening"] != "none" and k != 5:
            raise ParamError(f"opening={self.params['opening']} is for five in a row (k=5), not k={k}")

    def _param_values(self) -> list[int]:
        return [self.params["m"], self.params["n"], self.params["k"], int(self.params["exact"])]

    @property
    def cells(self) -> int:
        return self.params["m"] * self.params["n"]

    @property
    def state_size(self) -> int:
        return HEADER + 2 * self.cells

    @property
    def max_actions(self) -> int:
        return self.cells

    def new_state(self) -> MnkState:
        return MnkState(self, np.zeros(self.state_size, dtype=np.int64))

    @cached_property
    def shape(self) -> tuple[int, int]:
        """(columns, rows): the bounds of a cell."""
        return self.params["m"], self.params["n"]

    def decode_move(self, value: Any) -> Move:
        return decode_cell(value, self.shape)

    def move_to_text(self, move: Move) -> str:
        x, y = move
        return f"{chr(ord('a') + x)}{y + 1}"

    def move_from_text(self, text: str) -> Move:
        text = text.strip().lower()
        if len(text) < 2 or not text[0].isalpha() or not text[1:].isdigit():
            raise MoveFormatError(f"{text!r} is not a cell like 'h8'")
        return self.decode_move([ord(text[0]) - ord("a"), int(text[1:]) - 1])


def decode_cell(value: Any, shape: tuple[int, ...]) -> Move:
    """A wire cell (list of ints, one per board axis) checked against the board's shape.

    A plain loop, no generators: the server decodes every move it receives with this.
    """
    if not isinstance(value, (list, tuple)) or len(value) != len(shape):
        raise MoveFormatError(f"a move is a list of {len(shape)} integers, not {value!r}")
    for v, limit in zip(value, shape, strict=True):
        if type(v) is not int and (isinstance(v, bool) or not isinstance(v, int)):
            raise MoveFormatError(f"a move is a list of {len(shape)} integers, not {value!r}")
        if not 0 <= v < limit:
            raise MoveFormatError(f"cell {list(value)} is off the {'x'.join(map(str, shape))} board")
    return tuple(map(int, value))


class MnkState(State):
    game: MnkGame
    # the kernels, which the five family (the same board, other rules) replaces
    _legal = staticmethod(legal)
    _play = staticmethod(play)
    _play_if_legal = staticmethod(play_if_legal)

    def legal_actions(self) -> np.ndarray:
        out = np.empty(self.game.max_actions, dtype=np.int64)
        return out[: self._legal(self.game.param_array, self.s, out)]

    def is_legal_action(self, action: int) -> bool:
        """An empty cell of a game still going on: one lookup instead of listing every empty cell."""
        return 0 <= action < self.game.cells and self.s[STATUS] == STATUS_ONGOING and self.s[HEADER + action] == 0

    def _play_action_unchecked(self, action: int) -> None:
        self._play(self.game.param_array, self.s, action)

    def play_wire(self, wire: Any) -> list[int]:
        """A legal cell takes a few comparisons and the kernel; anything else goes the general way,
        which raises the error that fits."""
        if type(wire) is list and len(wire) == 2:
            x, y = wire
            m, n = self.game.shape
            if type(x) is int and type(y) is int and 0 <= x < m and 0 <= y < n:
                ply = self._play_if_legal(self.game.param_array, self.s, y * m + x)
                if ply >= 0:
                    self._move_plies.append(ply)
                    return [x, y]
        return super().play_wire(wire)

    def _undo_action(self) -> None:
        undo(self.game.param_array, self.s)

    def _action_to_move(self, action: int) -> Move:
        m = self.game.params["m"]
        return (action % m, action // m)

    def _move_to_actions(self, move: Move) -> list[int]:
        x, y = self.game.decode_move(move)
        return [y * self.game.params["m"] + x]

    def moves(self) -> list[Move]:
        size = self.game.cells
        return [self._action_to_move(int(c)) for c in self.s[HEADER + size : HEADER + size + self.ply]]

    def board(self) -> np.ndarray:
        """The board as an n×m array: 0 empty, 1 first player, 2 second player."""
        m, n = self.game.params["m"], self.game.params["n"]
        return self.s[HEADER : HEADER + m * n].reshape(n, m)

    def diagram(self) -> str:
        m = self.game.params["m"]
        rows = ["    " + " ".join(chr(ord("a") + x) for x in range(m))]
        for y, row in enumerate(self.board()):
            rows.append(f"{y + 1:>3} " + " ".join(".XO"[v] for v in row))
        return "\n".join(rows)
