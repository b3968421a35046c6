"""Tic-tac-toe in an n×n×n cube (3×3×3 by default, 4×4×4 is Qubic): n in a line wins.

Rules: players alternate placing a stone on an empty cell; n of one's own stones along a full line
of the cube wins: a row, column or pillar, a diagonal of any axis-aligned plane, or one of the
four space diagonals (13 directions; 49 lines for n=3, 76 for n=4). A full cube without a line is
a draw. A line of n stones along a direction always spans the whole cube, so the kernel only
measures the run through the last stone in each direction.

A move is a cell ``(x, y, z)``, 0-based: x the column, y the row from the top, z the layer; its
action is ``z*n*n + y*n + x``. Text notation: the m,n,k cell of the layer, a colon, then the
layer number from 1: ``a1:1`` is the first layer's top-left cell, ``b2:2`` the centre of 3×3×3.

State array after the common header: ``board[n**3]`` (0 empty, 1 first player, 2 second), then
``stack[n**3]``, the cells played in order. Kernels take ``p = [n]``.
"""

from __future__ import annotations

import itertools
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
    State,
)
from .mnk import decode_cell
from .zobrist import zobrist_table

MIN_SIDE = 3
MAX_SIDE = 7
MAX_CELLS = MAX_SIDE**3
ZOBRIST = zobrist_table(2 * MAX_CELLS, seed=0x747433)
# The 13 directions of a line: every step in {-1, 0, 1}^3 whose first non-zero component is +1.
DIRECTIONS = np.array([d for d in itertools.product((-1, 0, 1), repeat=3) if d > (0, 0, 0)], dtype=np.int64)


@njit(cache=True, inline="always")
def run_length(board, n, x, y, z, dx, dy, dz, stone):
    """Stones equal to ``stone`` from (x, y, z) stepping (dx, dy, dz), not counting the start."""
    count = 0
    x += dx
    y += dy
    z += dz
    while 0 <= x < n and 0 <= y < n and 0 <= z < n and board[(z * n + y) * n + x] == stone:
        count += 1
        x += dx
        y += dy
        z += dz
    return count


@njit(cache=True, inline="always")
def line_position(coord, step, n, along):
    """One axis's say on where a cell sits along the full line in direction ``step``: its index from
    the line's start, agreeing with ``along`` (the axes before; -1 if none moved yet). -2 once two
    axes disagree: then no full line in that direction passes through the cell."""
    if step == 0:
        return along
    index = coord if step > 0 else n - 1 - coord
    if along == -1 or along == index:
        return index
    return -2


@njit(cache=True)
def makes_line(board, n, cell, stone):
    """Whether ``stone`` on ``cell`` completes a line of n (only lines through cell can).

    Directions in which the cell lies on no full line (most diagonals) are skipped at once.
    """
    x = cell % n
    y = (cell // n) % n
    z = cell // (n * n)
    for d in range(DIRECTIONS.shape[0]):
        dx = DIRECTIONS[d, 0]
        dy = DIRECTIONS[d, 1]
        dz = DIRECTIONS[d, 2]
        along = line_position(z, dz, n, line_position(y, dy, n, line_position(x, dx, n, -1)))
        if along == -2:
            continue
        length = 1 + run_length(board, n, x, y, z, dx, dy, dz, stone)
        if length + run_length(board, n, x, y, z, -dx, -dy, -dz, stone) == n:
            return True
    return False


@njit(cache=True)
def legal(p, s, out):
    """Write the empty cells in action order to ``out``; return how many."""
    if s[STATUS] != STATUS_ONGOING:
        return 0
    size = p[0] ** 3
    count = 0
    for c in range(size):
        if s[HEADER + c] == 0:
            out[count] = c
            count += 1
    return count


@njit(cache=True)
def play(p, s, cell):
    """Place the side to move's stone on ``cell`` (assumed empty) and update status and hash."""
    n = p[0]
    size = n * n * n
    player = s[TO_MOVE]
    stone = player + 1
    s[HEADER + cell] = stone
    s[HEADER + size + s[PLY]] = cell
    s[PLY] += 1
    s[HASH] ^= ZOBRIST[player * MAX_CELLS + cell]
    s[TO_MOVE] = 1 - player
    if makes_line(s[HEADER : HEADER + size], n, cell, stone):
        s[STATUS] = stone  # STATUS_WIN0 == 1, STATUS_WIN1 == 2
        s[REASON] = REASON_LINE
    elif s[PLY] == size:
        s[STATUS] = STATUS_DRAW
        s[REASON] = REASON_BOARD_FULL


@njit(cache=True)
def undo(p, s):
    """Take back the last stone and clear its stack slot, so the array is exactly as before."""
    size = p[0] ** 3
    s[PLY] -= 1
    slot = HEADER + size + s[PLY]
    cell = s[slot]
    s[slot] = 0
    player = 1 - s[TO_MOVE]
    s[HEADER + cell] = 0
    s[HASH] ^= ZOBRIST[player * MAX_CELLS + cell]
    s[TO_MOVE] = player
    s[STATUS] = STATUS_ONGOING
    s[REASON] = REASON_NONE


@njit(cache=True)
def playout(p, s, empties):
    """Random play from ``s`` to the end, on ``s`` itself (pass a copy); return the final status.

    Filling the empty cells in a shuffled order is the same distribution as a uniformly random
    empty cell each turn, at O(1) per move instead of a scan of the cube. Only the board, status
    and reason are kept up to date: the array is a scratch copy.
    """
    n = p[0]
    size = n * n * n
    if s[STATUS] != STATUS_ONGOING:
        return s[STATUS]
    count = 0
    for c in range(size):
        if s[HEADER + c] == 0:
            empties[count] = c
            count += 1
    board = s[HEADER : HEADER + size]
    stone = s[TO_MOVE] + 1
    for i in range(count):
        j = np.random.randint(i, count)
        cell = empties[j]
        empties[j] = empties[i]
        board[cell] = stone
        if makes_line(board, n, cell, stone):
            s[STATUS] = stone
            s[REASON] = REASON_LINE
            return stone
        stone = 3 - stone
    s[STATUS] = STATUS_DRAW
    s[REASON] = REASON_BOARD_FULL
    return STATUS_DRAW


class Ttt3dGame(Game):
    """n×n×n cube tic-tac-toe, n in a line wins. Preset: qubic (4×4×4)."""

    family = "ttt3d"
    gid = 2
    PARAMS = (Param("n", int, 3, "cells along each edge of the cube", minimum=MIN_SIDE, maximum=MAX_SIDE),)

    def _param_values(self) -> list[int]:
        return [self.params["n"]]

    @property
    def cells(self) -> int:
        return self.params["n"] ** 3

    @property
    def state_size(self) -> int:
        return HEADER + 2 * self.cells

    @property
    def max_actions(self) -> int:
        return self.cells

    def new_state(self) -> Ttt3dState:
        return Ttt3dState(self, np.zeros(self.state_size, dtype=np.int64))

    def decode_move(self, value: Any) -> Move:
        n = self.params["n"]
        return decode_cell(value, (n, n, n))

    def move_to_text(self, move: Move) -> str:
        x, y, z = move
        return f"{chr(ord('a') + x)}{y + 1}:{z + 1}"

    def move_from_text(self, text: str) -> Move:
        cell, colon, layer = text.strip().lower().partition(":")
        if not colon or len(cell) < 2 or not cell[0].isalpha() or not cell[1:].isdigit() or not layer.isdigit():
            raise MoveFormatError(f"{text!r} is not a cell like 'b2:1' (column, row, colon, layer)")
        return self.decode_move([ord(cell[0]) - ord("a"), int(cell[1:]) - 1, int(layer) - 1])


class Ttt3dState(State):
    game: Ttt3dGame

    def legal_actions(self) -> np.ndarray:
        out = np.empty(self.game.max_actions, dtype=np.int64)
        return out[: legal(self.game.param_array, self.s, out)]

    def is_legal_action(self, action: int) -> bool:
        """An empty cell of a game still going on: one lookup instead of listing every empty cell."""
        return 0 <= action < self.game.cells and self.s[STATUS] == STATUS_ONGOING and self.s[HEADER + action] == 0

    def _play_action_unchecked(self, action: int) -> None:
        play(self.game.param_array, self.s, action)

    def _undo_action(self) -> None:
        undo(self.game.param_array, self.s)

    def _action_to_move(self, action: int) -> Move:
        n = self.game.params["n"]
        return (action % n, action // n % n, action // (n * n))

    def _move_to_actions(self, move: Move) -> list[int]:
        x, y, z = self.game.decode_move(move)
        n = self.game.params["n"]
        return [(z * n + y) * n + x]

    def moves(self) -> list[Move]:
        size = self.game.cells
        return [self._action_to_move(int(c)) for c in self.s[HEADER + size : HEADER + size + self.ply]]

    def board(self) -> np.ndarray:
        """The cube as an array indexed [z, y, x]: 0 empty, 1 first player, 2 second player."""
        n = self.game.params["n"]
        return self.s[HEADER : HEADER + n**3].reshape(n, n, n)

    def diagram(self) -> str:
        """The layers side by side, layer 1 on the left."""
        n = self.game.params["n"]
        width = 4 + 2 * n - 1
        gap = "   "
        letters = " ".join(chr(ord("a") + x) for x in range(n))
        rows = [
            gap.join(f"layer {z + 1}".center(width) for z in range(n)),
            gap.join(f"    {letters}" for _ in range(n)),
        ]
        for y in range(n):
            rows.append(gap.join(f"{y + 1:>3} " + " ".join(".XO"[v] for v in layer[y]) for layer in self.board()))
        return "\n".join(row.rstrip() for row in rows)
