"""Reference cube tic-tac-toe: list every line of the cube once, check them all after each move."""

from __future__ import annotations

import functools
import itertools

from ..base import (
    REASON_BOARD_FULL,
    REASON_LINE,
    REASON_NONE,
    STATUS_DRAW,
    STATUS_ONGOING,
    Game,
)


@functools.cache
def cube_lines(n: int) -> tuple[frozenset[int], ...]:
    """Every full line of the n-cube as a set of actions.

    Along a line each coordinate is fixed, rises 0..n-1 or falls n-1..0, and not all are fixed:
    ((n+2)**3 - n**3) / 2 lines, since reading a line backwards gives the same set.
    """
    axes = [(c,) * n for c in range(n)] + [tuple(range(n)), tuple(reversed(range(n)))]
    lines = set()
    for xs, ys, zs in itertools.product(axes, repeat=3):
        cells = frozenset(z * n * n + y * n + x for x, y, z in zip(xs, ys, zs, strict=True))
        if len(cells) == n:  # not every coordinate fixed
            lines.add(cells)
    return tuple(sorted(lines, key=sorted))


class ReferenceTtt3d:
    def __init__(self, n: int) -> None:
        self.n = n
        self.board = [0] * n**3
        self.to_move = 0
        self.status = STATUS_ONGOING
        self.reason = REASON_NONE

    def legal_actions(self) -> list[int]:
        if self.status != STATUS_ONGOING:
            return []
        return [c for c, v in enumerate(self.board) if v == 0]

    def play(self, cell: int) -> None:
        assert cell in self.legal_actions()
        stone = self.to_move + 1
        self.board[cell] = stone
        self.to_move = 1 - self.to_move
        if any(all(self.board[c] == stone for c in line) for line in cube_lines(self.n)):
            self.status, self.reason = stone, REASON_LINE
        elif all(self.board):
            self.status, self.reason = STATUS_DRAW, REASON_BOARD_FULL


def new_state(game: Game) -> ReferenceTtt3d:
    return ReferenceTtt3d(game.params["n"])
