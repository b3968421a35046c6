"""Reference m,n,k rules: rescan every line of the board after each move."""

from __future__ import annotations

from ..base import (
    REASON_BOARD_FULL,
    REASON_LINE,
    REASON_NONE,
    STATUS_DRAW,
    STATUS_ONGOING,
    Game,
)


class ReferenceMnk:
    def __init__(self, m: int, n: int, k: int, exact: bool) -> None:
        self.m, self.n, self.k, self.exact = m, n, k, exact
        self.board = [0] * (m * n)
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
        if self._has_line(stone):
            self.status, self.reason = stone, REASON_LINE
        elif all(self.board):
            self.status, self.reason = STATUS_DRAW, REASON_BOARD_FULL

    def _has_line(self, stone: int) -> bool:
        """Every maximal run of ``stone`` on the board, in all four directions."""
        for y in range(self.n):
            for x in range(self.m):
                for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
                    px, py = x - dx, y - dy
                    if self._at(px, py) == stone or self._at(x, y) != stone:
                        continue  # not the start of a run
                    length = 0
                    while self._at(x + length * dx, y + length * dy) == stone:
                        length += 1
                    if length == self.k or (length > self.k and not self.exact):
                        return True
        return False

    def _at(self, x: int, y: int) -> int:
        if 0 <= x < self.m and 0 <= y < self.n:
            return self.board[y * self.m + x]
        return -1


def new_state(game: Game) -> ReferenceMnk:
    p = game.params
    return ReferenceMnk(p["m"], p["n"], p["k"], p["exact"])
