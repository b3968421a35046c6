"""Reference vanishing tic-tac-toe: each player's stones as a queue, every line rescanned, every
earlier position kept as a plain tuple and counted for repetition."""

from __future__ import annotations

from ..base import (
    REASON_LINE,
    REASON_MOVE_LIMIT,
    REASON_NONE,
    REASON_REPETITION,
    STATUS_DRAW,
    STATUS_ONGOING,
    Game,
)

LINES = [
    {(0, 0), (1, 0), (2, 0)},
    {(0, 1), (1, 1), (2, 1)},
    {(0, 2), (1, 2), (2, 2)},
    {(0, 0), (0, 1), (0, 2)},
    {(1, 0), (1, 1), (1, 2)},
    {(2, 0), (2, 1), (2, 2)},
    {(0, 0), (1, 1), (2, 2)},
    {(2, 0), (1, 1), (0, 2)},
]

Position = tuple[tuple[int, ...], tuple[int, ...], int]


class ReferenceVanishing:
    def __init__(self, ply_limit: int, repetition: int) -> None:
        self.ply_limit, self.repetition = ply_limit, repetition
        self.stones: list[list[int]] = [[], []]  # each player's cells, oldest first
        self.to_move = 0
        self.plies = 0
        self.status = STATUS_ONGOING
        self.reason = REASON_NONE
        self.history: list[Position] = [self.position()]

    def position(self) -> Position:
        """Everything the rules depend on: both players' stones in age order and the side to move."""
        return (tuple(self.stones[0]), tuple(self.stones[1]), self.to_move)

    def legal_actions(self) -> list[int]:
        if self.status != STATUS_ONGOING:
            return []
        taken = self.stones[0] + self.stones[1]
        return [c for c in range(9) if c not in taken]

    def play(self, cell: int) -> None:
        assert cell in self.legal_actions()
        player = self.to_move
        mine = self.stones[player]
        mine.append(cell)
        if len(mine) == 4:
            mine.pop(0)
        self.to_move = 1 - player
        self.plies += 1
        self.history.append(self.position())
        if self._has_line(mine):
            self.status, self.reason = player + 1, REASON_LINE
        elif self.repetition and self.history.count(self.position()) >= self.repetition:
            self.status, self.reason = STATUS_DRAW, REASON_REPETITION
        elif self.plies == self.ply_limit:
            self.status, self.reason = STATUS_DRAW, REASON_MOVE_LIMIT

    @staticmethod
    def _has_line(cells: list[int]) -> bool:
        points = {(c % 3, c // 3) for c in cells}
        return any(line <= points for line in LINES)


def new_state(game: Game) -> ReferenceVanishing:
    return ReferenceVanishing(game.params["ply_limit"], game.params["repetition"])
