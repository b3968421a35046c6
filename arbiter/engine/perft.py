"""Perft: counting move sequences, the standard check that a move generator is exact."""

from __future__ import annotations

from .base import State
from .ops import perft as perft_kernel


def perft(state: State, depth: int) -> int:
    """Action sequences of exactly ``depth`` from ``state`` passing through no terminal position."""
    game = state.game
    s = state.s.copy()
    return int(perft_kernel(game.gid, game.param_array, s, depth, game.max_actions))


def divide(state: State, depth: int) -> list[tuple[int, int]]:
    """perft(depth - 1) below each legal action: [(action, count)], for finding a wrong branch."""
    rows = []
    for action in state.legal_actions():
        child = state.copy()
        child.play_action(int(action))
        rows.append((int(action), perft(child, depth - 1)))
    return rows
