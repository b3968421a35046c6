"""Exact 3×3 tic-tac-toe in plain Python, the oracle of the mcts tests: cells 0..8 row by row,
stones 1 (first player) and 2 (second)."""

from __future__ import annotations

import functools

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def completes_a_line(board: tuple[int, ...], stone: int) -> bool:
    return any(all(board[i] == stone for i in line) for line in LINES)


@functools.cache
def tictactoe_value(board: tuple[int, ...], stone: int) -> int:
    """Exact value for ``stone`` (1 or 2) to move: +1 win, 0 draw, -1 loss. Plain memoised minimax."""
    best = -2
    for cell in (c for c in range(9) if board[c] == 0):
        after = (*board[:cell], stone, *board[cell + 1 :])
        if completes_a_line(after, stone):
            return 1
        best = max(best, -tictactoe_value(after, 3 - stone) if 0 in after else 0)
    return best
