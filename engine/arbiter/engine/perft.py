"""Perft: counting move sequences, the standard check that a move generator is exact."""

from __future__ import annotations

import numpy as np
from numba import njit

from .base import STATUS, STATUS_ONGOING, State
from .ops import legal, play, undo
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


@njit(cache=True)
def _outcomes_kernel(gid, p, s, max_depth, max_actions):
    """[first-player wins, second-player wins, draws] over every complete game from ``s``."""
    tally = np.zeros(3, dtype=np.int64)
    actions = np.empty((max_depth + 1, max_actions), dtype=np.int64)
    counts = np.zeros(max_depth + 1, dtype=np.int64)
    nexts = np.zeros(max_depth + 1, dtype=np.int64)
    level = 0
    counts[0] = legal(gid, p, s, actions[0])
    while True:
        if s[STATUS] != STATUS_ONGOING:
            tally[s[STATUS] - 1] += 1
        elif nexts[level] < counts[level] and level < max_depth:
            play(gid, p, s, actions[level, nexts[level]])
            nexts[level] += 1
            level += 1
            counts[level] = legal(gid, p, s, actions[level])
            nexts[level] = 0
            continue
        if level == 0:
            return tally
        level -= 1
        undo(gid, p, s)


def game_outcomes(state: State, max_depth: int) -> tuple[int, int, int]:
    """Count every complete game from ``state`` (games longer than ``max_depth`` are not followed)."""
    game = state.game
    wins0, wins1, draws = _outcomes_kernel(game.gid, game.param_array, state.s.copy(), max_depth, game.max_actions)
    return int(wins0), int(wins1), int(draws)
